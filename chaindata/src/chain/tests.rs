use super::*;

/// The known chains are told apart by their digests, and each is found by it.
#[test]
fn known_chains_have_distinct_digests() {
    use alloy_hardforks::EthereumHardforks;
    let chains = known_chains();
    for (name, config) in &chains {
        assert_eq!(known_chain_of(config.digest()), Some(*name));
        // What the host writes for it is what the guest accepts.
        let canonical = config.canonical();
        let written = alloy_rlp::encode(&canonical);
        assert_eq!(
            ChainConfig::decode_canonical(&written),
            Ok(canonical),
            "{name}"
        );
    }
    let digests: std::collections::BTreeSet<_> = chains.iter().map(|(_, c)| c.digest()).collect();
    assert_eq!(digests.len(), chains.len());
    let (_, sepolia) = &chains[1];
    assert!(sepolia.is_osaka_active_at_timestamp(1_760_427_360));
    assert!(sepolia.is_paris_active_at_block(1_450_409));
    assert!(!sepolia.is_paris_active_at_block(1_450_408));
    // Sepolia forked to Amsterdam at 1,791,294,816 (block 11,856,337), under BPO2's blobs.
    let amsterdam = 1_791_294_816;
    assert!(sepolia.is_amsterdam_active_at_timestamp(amsterdam));
    assert!(!sepolia.is_amsterdam_active_at_timestamp(amsterdam - 1));
    assert_eq!(
        sepolia.blob_params_at(amsterdam),
        Some(alloy_eips::eip7840::BlobParams::bpo2())
    );
    // Mainnet and Hoodi leave it unscheduled.
    for (name, config) in [&chains[0], &chains[2]] {
        assert_eq!(
            config.ethereum_fork_activation(EthereumHardfork::Amsterdam),
            ForkCondition::Never,
            "{name}"
        );
    }
    let (_, hoodi) = &chains[2];
    assert!(hoodi.is_cancun_active_at_timestamp(0));
    assert!(hoodi.is_prague_active_at_timestamp(1_742_999_832));
    assert!(!hoodi.is_prague_active_at_timestamp(1_742_999_831));
}

/// go-ethereum's published mainnet `config`: a terminal total difficulty already passed,
/// no merge block, the TTD a bare JSON number over u64.
const GETH_MAINNET: &str = r#"{
    "chainId": 1, "homesteadBlock": 1150000, "daoForkBlock": 1920000, "daoForkSupport": true,
    "eip150Block": 2463000, "eip155Block": 2675000, "eip158Block": 2675000,
    "byzantiumBlock": 4370000, "constantinopleBlock": 7280000, "petersburgBlock": 7280000,
    "istanbulBlock": 9069000, "muirGlacierBlock": 9200000, "berlinBlock": 12244000,
    "londonBlock": 12965000, "arrowGlacierBlock": 13773000, "grayGlacierBlock": 15050000,
    "terminalTotalDifficulty": 58750000000000000000000, "terminalTotalDifficultyPassed": true,
    "shanghaiTime": 1681338455, "cancunTime": 1710338135, "pragueTime": 1746612311,
    "osakaTime": 1764798551, "bpo1Time": 1765290071, "bpo2Time": 1767747671,
    "depositContractAddress": "0x00000000219ab540356cbb839cbe05303d7705fa",
    "ethash": {},
    "blobSchedule": {
        "cancun": {"target": 3, "max": 6, "baseFeeUpdateFraction": 3338477},
        "prague": {"target": 6, "max": 9, "baseFeeUpdateFraction": 5007716},
        "osaka": {"target": 6, "max": 9, "baseFeeUpdateFraction": 5007716},
        "bpo1": {"target": 10, "max": 15, "baseFeeUpdateFraction": 8346193},
        "bpo2": {"target": 14, "max": 21, "baseFeeUpdateFraction": 11684671}
    }
}"#;

#[test]
fn geths_mainnet_config_is_the_built_in_mainnet() {
    use alloy_hardforks::EthereumHardforks;
    let config = from_genesis_config(&serde_json::from_str(GETH_MAINNET).unwrap()).unwrap();
    assert!(config.is_paris_active_at_block(15_537_394));
    assert!(!config.is_paris_active_at_block(15_537_393));
    assert_eq!(config.canonical(), ChainConfig::mainnet().canonical());
    assert_eq!(config.digest(), ChainConfig::mainnet().digest());
}

#[test]
fn a_passed_ttd_on_an_unknown_chain_asks_for_the_merge_block() {
    let mut json: Value = serde_json::from_str(GETH_MAINNET).unwrap();
    json["chainId"] = 12345.into();
    assert!(matches!(
        from_genesis_config(&json),
        Err(ChainError::UnknownMergeBlock {
            chain_id: 12345,
            ..
        })
    ));
    json["mergeNetsplitBlock"] = 15_600_000.into();
    let config = from_genesis_config(&json).unwrap();
    use alloy_hardforks::EthereumHardforks;
    assert!(
        config.is_paris_active_at_block(15_600_000) && !config.is_paris_active_at_block(15_599_999)
    );
    // A merge block before an earlier fork's activation goes backwards: refused.
    json["mergeNetsplitBlock"] = 100.into();
    assert!(matches!(
        from_genesis_config(&json),
        Err(ChainError::Invalid(
            program::chain::ChainConfigError::ActivationOrder {
                fork: alloy_hardforks::EthereumHardfork::Paris,
                ..
            }
        ))
    ));
}

#[test]
fn blob_schedules_that_divide_by_zero_are_refused() {
    let mut json: Value = serde_json::from_str(GETH_MAINNET).unwrap();
    json["blobSchedule"]["prague"]["max"] = 0.into();
    assert!(matches!(
        from_genesis_config(&json),
        Err(ChainError::Invalid(_))
    ));
}

#[test]
fn networks_and_transitions() {
    use alloy_hardforks::EthereumHardforks;
    let cancun = from_network("Cancun", 1, &Value::Null).unwrap();
    assert!(cancun.is_cancun_active_at_timestamp(0));
    assert!(!cancun.is_prague_active_at_timestamp(u64::MAX));
    let transition = from_network("ShanghaiToCancunAtTime15k", 1, &Value::Null).unwrap();
    assert!(transition.is_shanghai_active_at_timestamp(0));
    assert!(!transition.is_cancun_active_at_timestamp(14_999));
    assert!(transition.is_cancun_active_at_timestamp(15_000));
    for pre_merge in [
        "London",
        "ConstantinopleFix",
        "BerlinToLondonAt5",
        "ArrowGlacierToParisAtDiffC0000",
    ] {
        assert!(
            matches!(
                from_network(pre_merge, 1, &Value::Null),
                Err(ChainError::PreMerge(_))
            ),
            "{pre_merge}"
        );
    }
    assert!(matches!(
        from_network("Nonsense", 1, &Value::Null),
        Err(ChainError::UnknownNetwork(_))
    ));
}

/// The devnet-amsterdam block's config as committed (`blocks/devnet-amsterdam.chain.json`).
fn devnet_amsterdam() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../blocks/devnet-amsterdam.chain.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A key that looks like a fork activation and is none this verifier reads is refused, named,
/// in either spelling and any case, at the top level or in `extra_fields`: read as absent, it
/// would leave its fork out of the rules and the digest. Unset (`null`), it schedules nothing.
#[test]
fn unknown_fork_keys_are_refused_naming_the_key() {
    let base = devnet_amsterdam();
    let digest = from_genesis_config(&base).unwrap().digest();
    for key in [
        "verkle_time",
        "verkleTime",
        "bpo6_time",
        "bpo6Time",
        "glamsterdam_time",
        "mergeForkBlock",
        "shanghai_block",
        "CancunTime",
        "regolithTime",
        "eip1559Block",
    ] {
        for value in [Value::from(0), Value::from(u64::MAX), Value::from("0x10")] {
            let mut json = base.clone();
            json[key] = value.clone();
            match from_genesis_config(&json) {
                Err(ChainError::UnknownForkKey(named)) => assert_eq!(named, key),
                other => panic!("{key} = {value}: {other:?}"),
            }
        }
        let mut json = base.clone();
        json[key] = Value::Null;
        assert_eq!(
            from_genesis_config(&json).unwrap().digest(),
            digest,
            "{key}"
        );
    }
    let mut json = base.clone();
    json["extra_fields"] = serde_json::json!({"bogota_time": 0, "note": "x"});
    match from_genesis_config(&json) {
        Err(ChainError::UnknownForkKey(named)) => assert_eq!(named, "extra_fields.bogota_time"),
        other => panic!("{other:?}"),
    }
    // Fields a client's config carries that schedule no fork are read or ignored as before.
    let mut json = base.clone();
    for (key, value) in [
        ("dao_fork_support", Value::from(true)),
        ("terminal_total_difficulty_passed", Value::from(true)),
        ("ethash", serde_json::json!({})),
        ("clique", Value::Null),
        ("parlia", Value::Null),
        ("extra_fields", serde_json::json!({"note": "x"})),
    ] {
        json[key] = value;
    }
    assert_eq!(from_genesis_config(&json).unwrap().digest(), digest);
}

/// One field in two spellings would be read in one of them only: refused, both named.
#[test]
fn a_field_in_two_spellings_is_refused() {
    for (snake, camel, value) in [
        ("amsterdam_time", "amsterdamTime", Value::Null),
        ("amsterdam_time", "amsterdamTime", Value::from(0)),
        ("chain_id", "chainid", Value::from(7_011_893)),
        ("chain_id", "chainId", Value::from(1)),
        ("blob_schedule", "blobSchedule", serde_json::json!({})),
    ] {
        let mut json = devnet_amsterdam();
        json[camel] = value;
        match from_genesis_config(&json) {
            Err(ChainError::TwoSpellings { first, second }) => {
                let mut named = [first, second];
                named.sort();
                let mut expected = [snake.to_owned(), camel.to_owned()];
                expected.sort();
                assert_eq!(named, expected);
            }
            other => panic!("{camel}: {other:?}"),
        }
    }
}

/// Bogota, the fork after Amsterdam, is read in both spellings and refused as a fork this
/// verifier does not implement, at any activation: by the genesis-config parser, by a file
/// given to `--chain` (`named_or_file`, what `host verify --chain FILE` reads) and by a block's
/// config (`for_block`, what `host run` reads), its error naming the file and the fork.
#[test]
fn bogota_is_refused_as_unsupported() {
    use program::chain::ChainConfigError;
    let refused = |json: &Value| match from_genesis_config(json) {
        Err(ChainError::Invalid(ChainConfigError::UnsupportedFork(fork))) => {
            assert_eq!(fork, EthereumHardfork::Bogota)
        }
        other => panic!("{json}: {other:?}"),
    };
    for key in ["bogota_time", "bogotaTime"] {
        for time in [0, 1_800_000_000, u64::MAX] {
            let mut json = devnet_amsterdam();
            json[key] = time.into();
            refused(&json);
        }
    }
    // In a geth-style config too, far after every block it has.
    let mut geth: Value = serde_json::from_str(GETH_MAINNET).unwrap();
    geth["amsterdamTime"] = 1_900_000_000u64.into();
    geth["bogotaTime"] = 2_000_000_000u64.into();
    refused(&geth);
    // As a file, the way `host verify --chain FILE` and `host run` read it.
    let dir = std::env::temp_dir().join(format!("chaindata-bogota-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut json = devnet_amsterdam();
    json["bogota_time"] = 0.into();
    let file = dir.join("devnet-amsterdam.chain.json");
    std::fs::write(&file, serde_json::to_vec(&json).unwrap()).unwrap();
    match named_or_file(file.to_str().unwrap()) {
        Err(ChainError::Invalid(ChainConfigError::UnsupportedFork(EthereumHardfork::Bogota))) => {}
        other => panic!("{:?}", other.map(|(_, name)| name)),
    }
    for chain_file in [None, Some(file.as_path())] {
        match for_block(&dir, "devnet-amsterdam", chain_file) {
            Err(e @ ChainError::File { .. }) => {
                let message = e.to_string();
                assert!(
                    message.contains("devnet-amsterdam.chain.json") && message.contains("Bogota"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Adding a fork activation to a config never keeps its digest: the config is refused, or its
/// digest changes. Every activation key the parser reads, in both spellings, absent from the
/// devnet-amsterdam config, and some it does not, each at genesis and later.
#[test]
fn an_extra_fork_key_never_keeps_the_digest() {
    let base = devnet_amsterdam();
    let digest = from_genesis_config(&base).unwrap().digest();
    let (mut parsed, mut refused) = (0, 0);
    let keys = BLOCK_FORKS
        .iter()
        .map(|(_, stem)| format!("{stem}_block"))
        .chain(TIME_FORKS.iter().map(|(_, stem)| format!("{stem}_time")))
        .chain(["verkle_time".to_owned(), "bpo6_time".to_owned()])
        .flat_map(|snake| [camel(&snake), snake]);
    for key in keys {
        if base.get(&key).is_some() || base.get(camel_to_snake(&key)).is_some() {
            continue;
        }
        for value in [0u64, 1, 1_000_000] {
            let mut json = base.clone();
            json[&key] = value.into();
            match from_genesis_config(&json) {
                Ok(config) => {
                    assert_ne!(config.digest(), digest, "{key} = {value}");
                    parsed += 1;
                }
                Err(_) => refused += 1,
            }
        }
    }
    assert!(
        parsed > 10 && refused > 10,
        "{parsed} parsed, {refused} refused"
    );
}

/// `camel`'s inverse on the keys above.
fn camel_to_snake(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Every chain config file the project and `../shared` use still parses: the committed
/// blocks' configs and genesis files, and the shared blocks' configs. (The EEST fixtures'
/// `config` objects hold `network`, `chainid` and `blobSchedule` only, and go through
/// [`from_network`]: the corpus tests in `tests/tests/corpora` run them.)
#[test]
fn every_config_in_use_still_parses() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    let mut add_dir = |dir: std::path::PathBuf| {
        for entry in std::fs::read_dir(&dir).into_iter().flatten() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".chain.json") || name.ends_with(".genesis.json") {
                files.push(path);
            }
        }
    };
    add_dir(root.join("blocks"));
    let shared = root.join("../shared/blocks");
    for entry in std::fs::read_dir(&shared).into_iter().flatten() {
        add_dir(entry.unwrap().path());
    }
    assert!(files.len() >= 5, "{files:?}");
    for file in &files {
        if let Err(e) = from_file(file) {
            panic!("{}: {e}", file.display());
        }
    }
    println!("{} config files", files.len());
}
