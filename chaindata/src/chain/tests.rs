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
