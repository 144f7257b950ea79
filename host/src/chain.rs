//! Chain configurations from JSON: the genesis-style `config` objects of EEST fixtures and
//! clients, in reth's snake_case (`cancun_time`) or geth's camelCase (`cancunTime`), and the
//! `network` names of blockchain tests (`"Prague"`: every fork through Prague from genesis).
//!
//! The merge: a config gives it as a netsplit block, or as a terminal total difficulty of zero
//! (merged at genesis), or, as clients publish mainnet's and Sepolia's genesis configs, as a
//! non-zero terminal total difficulty already passed with no block. A stateless verifier cannot
//! sum difficulties, so for those it uses the chain's known first proof-of-stake block, the one
//! its headers show (the first with difficulty zero): the config then selects exactly the rules
//! the built-in one does, and has the same digest.

use alloy_eips::eip7840::BlobParams;
use alloy_hardforks::{EthereumHardfork, ForkCondition};
use alloy_primitives::{Address, U256};
use program::chain::{default_blob_params, FORKS};
use program::ChainConfig;
use serde_json::Value;

/// A chain configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    /// A field has the wrong type or an unparsable value.
    #[error("chain config field `{0}` is not a valid number or address")]
    BadField(String),
    /// No `chain_id` / `chainId` / `chainid`.
    #[error("chain config has no chain id")]
    NoChainId,
    /// The config's blob parameters cannot be validated under.
    #[error(transparent)]
    Invalid(#[from] program::chain::ChainConfigError),
    /// A non-zero terminal total difficulty with no merge block, on a chain whose merge block
    /// this verifier does not know.
    #[error("chain {chain_id}: terminal total difficulty {ttd} without `mergeNetsplitBlock`: give the first proof-of-stake block as `mergeNetsplitBlock`")]
    UnknownMergeBlock {
        /// The chain id.
        chain_id: u64,
        /// The terminal total difficulty as written.
        ttd: String,
    },
    /// The file is unreadable or not JSON.
    #[error("chain config {path}: {reason}")]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A blockchain test's network that starts before the merge (proof-of-work blocks).
    #[error("network `{0}` starts before the merge: proof-of-work blocks are not validated")]
    PreMerge(String),
    /// A blockchain test's `network` that is not a plain fork name.
    #[error("unsupported network `{0}` (expected a fork name such as \"Prague\")")]
    UnknownNetwork(String),
}

/// `(fork, snake_case key stem)`, in activation order. Block-activated forks use `<stem>_block`,
/// timestamp-activated ones `<stem>_time`.
const BLOCK_FORKS: [(EthereumHardfork, &str); 13] = [
    (EthereumHardfork::Homestead, "homestead"),
    (EthereumHardfork::Dao, "dao_fork"),
    (EthereumHardfork::Tangerine, "eip150"),
    (EthereumHardfork::SpuriousDragon, "eip158"),
    (EthereumHardfork::Byzantium, "byzantium"),
    (EthereumHardfork::Constantinople, "constantinople"),
    (EthereumHardfork::Petersburg, "petersburg"),
    (EthereumHardfork::Istanbul, "istanbul"),
    (EthereumHardfork::MuirGlacier, "muir_glacier"),
    (EthereumHardfork::Berlin, "berlin"),
    (EthereumHardfork::London, "london"),
    (EthereumHardfork::ArrowGlacier, "arrow_glacier"),
    (EthereumHardfork::GrayGlacier, "gray_glacier"),
];
const TIME_FORKS: [(EthereumHardfork, &str); 10] = [
    (EthereumHardfork::Shanghai, "shanghai"),
    (EthereumHardfork::Cancun, "cancun"),
    (EthereumHardfork::Prague, "prague"),
    (EthereumHardfork::Osaka, "osaka"),
    (EthereumHardfork::Bpo1, "bpo1"),
    (EthereumHardfork::Bpo2, "bpo2"),
    (EthereumHardfork::Bpo3, "bpo3"),
    (EthereumHardfork::Bpo4, "bpo4"),
    (EthereumHardfork::Bpo5, "bpo5"),
    (EthereumHardfork::Amsterdam, "amsterdam"),
];

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The value at `key` in snake_case or camelCase; `None` when absent or null.
fn get<'a>(config: &'a Value, key: &str) -> Option<&'a Value> {
    config
        .get(key)
        .or_else(|| config.get(camel(key)))
        .filter(|v| !v.is_null())
}

/// A number given as JSON number, decimal string or `0x` hex string.
fn number(value: &Value, key: &str) -> Result<u128, ChainError> {
    let bad = || ChainError::BadField(key.to_owned());
    match value {
        Value::Number(n) => n.as_u64().map(u128::from).ok_or_else(bad),
        Value::String(s) => match s.strip_prefix("0x") {
            Some(hex) => u128::from_str_radix(hex, 16).map_err(|_| bad()),
            None => s.parse().map_err(|_| bad()),
        },
        _ => Err(bad()),
    }
}

pub(crate) fn u64_field(config: &Value, key: &str) -> Result<Option<u64>, ChainError> {
    get(config, key)
        .map(|v| {
            number(v, key)
                .and_then(|n| u64::try_from(n).map_err(|_| ChainError::BadField(key.to_owned())))
        })
        .transpose()
}

/// Parses a genesis-style chain config.
pub fn from_genesis_config(config: &Value) -> Result<ChainConfig, ChainError> {
    let chain_id = ["chain_id", "chainid"]
        .iter()
        .find_map(|k| u64_field(config, k).transpose())
        .transpose()?
        .ok_or(ChainError::NoChainId)?;
    let mut forks = vec![(EthereumHardfork::Frontier, ForkCondition::Block(0))];
    for (fork, stem) in BLOCK_FORKS {
        if let Some(block) = u64_field(config, &format!("{stem}_block"))? {
            forks.push((fork, ForkCondition::Block(block)));
        }
    }
    if let Some(paris) = merge(config, chain_id)? {
        forks.push((EthereumHardfork::Paris, paris));
    }
    for (fork, stem) in TIME_FORKS {
        if let Some(time) = u64_field(config, &format!("{stem}_time"))? {
            forks.push((fork, ForkCondition::Timestamp(time)));
        }
    }
    let deposit_contract = get(config, "deposit_contract_address")
        .map(|v| {
            v.as_str()
                .and_then(|s| s.parse::<Address>().ok())
                .ok_or_else(|| ChainError::BadField("deposit_contract_address".into()))
        })
        .transpose()?
        .or(Some(alloy_eips::eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS));
    let schedule = get(config, "blob_schedule").cloned().unwrap_or(Value::Null);
    let blob_schedule = blob_schedule(&schedule, &forks)?;
    let config = ChainConfig {
        chain_id,
        forks,
        blob_schedule,
        deposit_contract,
    };
    config.check()?;
    Ok(config)
}

/// The first proof-of-stake block of chains whose published configs give only a terminal total
/// difficulty: mainnet (the merge, block 15,537,394) and Sepolia (block 1,450,409).
const KNOWN_MERGE_BLOCKS: [(u64, u64); 2] = [(1, 15_537_394), (11_155_111, 1_450_409)];

/// The merge's condition: at the netsplit block when given; at genesis when the terminal total
/// difficulty is zero (every EEST fixture); at the known first proof-of-stake block when a
/// non-zero one is given without a block; never when there is no terminal total difficulty.
fn merge(config: &Value, chain_id: u64) -> Result<Option<ForkCondition>, ChainError> {
    let netsplit = u64_field(config, "merge_netsplit_block")?;
    let ttd = get(config, "terminal_total_difficulty");
    // Published configs write mainnet's 5.875e22 as a bare JSON number, over u64.
    let ttd_value = match ttd {
        None => None,
        Some(Value::Number(n)) if n.as_u64().is_none() => n
            .as_f64()
            .filter(|f| *f > 0.0)
            .map(|f| U256::from(f as u128))
            .map(Some)
            .ok_or_else(|| ChainError::BadField("terminal_total_difficulty".into()))?,
        Some(v) => Some(U256::from(number(v, "terminal_total_difficulty")?)),
    };
    let block = match (netsplit, ttd_value) {
        (Some(block), _) => block,
        (None, Some(ttd)) if ttd.is_zero() => 0,
        (None, Some(ttd)) => KNOWN_MERGE_BLOCKS
            .iter()
            .find(|(id, _)| *id == chain_id)
            .map(|(_, block)| *block)
            .ok_or_else(|| ChainError::UnknownMergeBlock {
                chain_id,
                ttd: ttd.to_string(),
            })?,
        (None, None) => return Ok(None),
    };
    Ok(Some(ForkCondition::TTD {
        activation_block_number: block,
        fork_block: netsplit,
        total_difficulty: ttd_value.unwrap_or_default(),
    }))
}

/// A chain config file: a genesis file (config under `config`) or a bare config object.
pub fn from_file(path: &std::path::Path) -> Result<ChainConfig, ChainError> {
    let file = |reason: String| ChainError::File {
        path: path.to_owned(),
        reason,
    };
    let text = std::fs::read(path).map_err(|e| file(e.to_string()))?;
    let json: Value = serde_json::from_slice(&text).map_err(|e| file(e.to_string()))?;
    from_genesis_config(json.get("config").unwrap_or(&json))
}

/// The chain config block `id` in `dir` runs under: `chain_file` if given, else
/// `<id>.chain.json` beside the block's files, else Ethereum mainnet. An unusable file's error
/// names it.
pub fn for_block(
    dir: &std::path::Path,
    id: &str,
    chain_file: Option<&std::path::Path>,
) -> Result<ChainConfig, ChainError> {
    let beside = dir.join(format!("{id}.chain.json"));
    let path = match chain_file {
        Some(path) => path.to_owned(),
        None if beside.is_file() => beside,
        None => return Ok(ChainConfig::mainnet()),
    };
    from_file(&path).map_err(|e| match e {
        ChainError::File { .. } => e,
        other => ChainError::File {
            path,
            reason: other.to_string(),
        },
    })
}

/// Default blob parameters for every scheduled fork, overridden by the config's entries
/// (`{"cancun": {"target": 3, "max": 6, "baseFeeUpdateFraction": 3338477}}`, any key case).
fn blob_schedule(
    schedule: &Value,
    forks: &[(EthereumHardfork, ForkCondition)],
) -> Result<Vec<(EthereumHardfork, BlobParams)>, ChainError> {
    let mut out: Vec<(EthereumHardfork, BlobParams)> = Vec::new();
    for &(fork, _) in forks {
        let name = fork.name().to_lowercase();
        let entry = schedule
            .as_object()
            .and_then(|m| m.iter().find(|(k, _)| k.to_lowercase() == name))
            .map(|(_, v)| v);
        // A blob-parameter-only fork without built-in defaults (BPO3 and later) that the
        // schedule names: its entry over the previous schedule (the per-transaction cap and the
        // EIP-7918 base cost carry over, as BPO forks change only target, max and fraction).
        let inherited = entry.and(out.last().map(|(_, p)| *p));
        let Some(mut params) = default_blob_params(fork).or(inherited) else {
            continue;
        };
        if let Some(entry) = entry {
            if let Some(v) = get(entry, "target") {
                params.target_blob_count = number(v, "target")? as u64;
            }
            if let Some(v) = get(entry, "max") {
                params.max_blob_count = number(v, "max")? as u64;
                params.max_blobs_per_tx = params.max_blobs_per_tx.min(params.max_blob_count);
            }
            if let Some(v) = get(entry, "base_fee_update_fraction") {
                params.update_fraction = number(v, "baseFeeUpdateFraction")?;
            }
        }
        out.push((fork, params));
    }
    Ok(out)
}

/// A blockchain test's `network`: every fork up to and including the named one from genesis,
/// or a transition `XToYAtTime15k` (X from genesis, Y and the forks between at timestamp
/// 15,000) with the test's `blobSchedule` (may be null). A network that starts before the merge
/// is [`ChainError::PreMerge`]: a post-merge verifier does not run it.
pub fn from_network(
    network: &str,
    chain_id: u64,
    schedule: &Value,
) -> Result<ChainConfig, ChainError> {
    let position = |name: &str| {
        FORKS
            .iter()
            .position(|f| f.name().eq_ignore_ascii_case(name))
    };
    let paris = position("Paris").unwrap_or_default();
    let shanghai = position("Shanghai").unwrap_or_default();
    let unknown = || ChainError::UnknownNetwork(network.to_owned());
    let (first, later) = match network.split_once("To") {
        None => (network, None),
        Some((first, rest)) => {
            let (name, at) = rest.split_once("At").ok_or_else(unknown)?;
            (first, Some((name, at)))
        }
    };
    // Names of pre-merge forks that `FORKS` spells otherwise (`ConstantinopleFix`, `EIP158`).
    let first_at = match position(first) {
        Some(at) if at >= paris => at,
        Some(_) => return Err(ChainError::PreMerge(network.to_owned())),
        None if ["ConstantinopleFix", "EIP150", "EIP158"].contains(&first) => {
            return Err(ChainError::PreMerge(network.to_owned()))
        }
        None => return Err(unknown()),
    };
    let (last_at, switch) = match later {
        None => (first_at, None),
        Some((name, at)) => {
            let time = at
                .strip_prefix("Time")
                .and_then(|t| t.strip_suffix('k'))
                .and_then(|k| k.parse::<u64>().ok())
                .map(|k| k * 1000)
                .ok_or_else(unknown)?;
            (position(name).ok_or_else(unknown)?, Some(time))
        }
    };
    let forks: Vec<_> = FORKS[..=last_at]
        .iter()
        .enumerate()
        .map(|(at, &fork)| {
            let condition = if at > first_at {
                ForkCondition::Timestamp(switch.unwrap_or_default())
            } else if at >= shanghai {
                ForkCondition::Timestamp(0)
            } else if at == paris {
                ForkCondition::TTD {
                    activation_block_number: 0,
                    fork_block: None,
                    total_difficulty: U256::ZERO,
                }
            } else {
                ForkCondition::Block(0)
            };
            (fork, condition)
        })
        .collect();
    let blob_schedule = blob_schedule(schedule, &forks)?;
    let config = ChainConfig {
        chain_id,
        forks,
        blob_schedule,
        deposit_contract: Some(alloy_eips::eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS),
    };
    config.check()?;
    Ok(config)
}

/// A public chain from alloy-hardforks' activation tables: every fork the table gives, the merge
/// at `merge_block` (by its activation block, as the encoding holds it), the default blob
/// schedules, and `deposit_contract`.
fn public_chain(
    chain_id: u64,
    merge_block: u64,
    block: fn(EthereumHardfork) -> Option<u64>,
    timestamp: fn(EthereumHardfork) -> Option<u64>,
    deposit_contract: Address,
) -> ChainConfig {
    let shanghai = FORKS
        .iter()
        .position(|f| *f == EthereumHardfork::Shanghai)
        .unwrap_or_default();
    let forks = FORKS
        .iter()
        .enumerate()
        .filter_map(|(at, &fork)| {
            let condition = match fork {
                EthereumHardfork::Paris => ForkCondition::TTD {
                    activation_block_number: merge_block,
                    fork_block: None,
                    total_difficulty: U256::ZERO,
                },
                _ if at >= shanghai => ForkCondition::Timestamp(timestamp(fork)?),
                _ => ForkCondition::Block(block(fork)?),
            };
            Some((fork, condition))
        })
        .collect();
    ChainConfig {
        chain_id,
        forks,
        blob_schedule: FORKS
            .iter()
            .filter_map(|&f| Some((f, default_blob_params(f)?)))
            .collect(),
        deposit_contract: Some(deposit_contract),
    }
}

/// The chains a verifier knows by name (`--chain NAME`), each with its config: mainnet, the
/// Sepolia and Hoodi testnets (alloy-hardforks' activations), and this project's devnet.
pub fn known_chains() -> Vec<(&'static str, ChainConfig)> {
    let sepolia = public_chain(
        11_155_111,
        1_450_409,
        |f| f.sepolia_activation_block(),
        |f| f.sepolia_activation_timestamp(),
        alloy_primitives::address!("0x7f02C3E3c98b133055B8B348B2Ac625669Ed295D"),
    );
    let hoodi = public_chain(
        560_048,
        0,
        |f| (f.hoodi_activation_timestamp() == Some(0)).then_some(0),
        |f| f.hoodi_activation_timestamp(),
        alloy_eips::eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS,
    );
    let devnet = crate::gen::Devnet::new()
        .map(|d| d.chain)
        .expect("the devnet's config is built in");
    vec![
        ("mainnet", ChainConfig::mainnet()),
        ("sepolia", sepolia),
        ("hoodi", hoodi),
        ("devnet", devnet),
    ]
}

/// The known chain whose config has `digest`, by name.
pub fn known_chain_of(digest: alloy_primitives::B256) -> Option<&'static str> {
    known_chains()
        .into_iter()
        .find(|(_, config)| config.digest() == digest)
        .map(|(name, _)| name)
}

/// `--chain`'s value: a known chain's name ([`known_chains`]) or a chain config file.
pub fn named_or_file(value: &str) -> Result<(ChainConfig, String), ChainError> {
    if let Some((name, config)) = known_chains().into_iter().find(|(n, _)| *n == value) {
        return Ok((config, name.to_owned()));
    }
    let path = std::path::Path::new(value);
    Ok((from_file(path)?, path.display().to_string()))
}

#[cfg(test)]
mod tests {
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
        let digests: std::collections::BTreeSet<_> =
            chains.iter().map(|(_, c)| c.digest()).collect();
        assert_eq!(digests.len(), chains.len());
        let (_, sepolia) = &chains[1];
        assert!(sepolia.is_osaka_active_at_timestamp(1_760_427_360));
        assert!(sepolia.is_paris_active_at_block(1_450_409));
        assert!(!sepolia.is_paris_active_at_block(1_450_408));
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
        json["mergeNetsplitBlock"] = 100.into();
        let config = from_genesis_config(&json).unwrap();
        use alloy_hardforks::EthereumHardforks;
        assert!(config.is_paris_active_at_block(100) && !config.is_paris_active_at_block(99));
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
}
