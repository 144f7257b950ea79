//! The chain config's canonical form, digest and checks: every rule in the digest, every
//! non-canonical spelling refused, random configs canonical or refused with the same rules.

use super::*;

#[test]
fn the_digest_ignores_order_duplicates_and_never_forks() {
    let mainnet = ChainConfig::mainnet();
    let mut shuffled = mainnet.clone();
    shuffled.forks.reverse();
    shuffled.blob_schedule.reverse();
    shuffled
        .forks
        .push((EthereumHardfork::Amsterdam, ForkCondition::Never));
    let first = shuffled.forks[0];
    shuffled.forks.push((first.0, ForkCondition::Block(1)));
    assert_eq!(shuffled.digest(), mainnet.digest());
    assert_eq!(shuffled.canonical(), mainnet.canonical());
    // Decoding the encoding gives the same digest.
    let bytes = alloy_rlp::encode(mainnet.canonical());
    let decoded = ChainConfig::decode_canonical(&bytes).unwrap();
    assert_eq!(decoded.digest(), mainnet.digest());
    // The canonical form's digest is the hash of its own encoding.
    assert_eq!(decoded.digest(), mpt::keccak256(&bytes));
    // The shuffled list itself is not canonical: the guest refuses it.
    let bytes = alloy_rlp::encode(&shuffled);
    assert_eq!(
        ChainConfig::decode_canonical(&bytes),
        Err(ChainConfigError::ForkOrder(EthereumHardfork::Bpo1))
    );
}

/// The review's two forgeries: each selected other rules than mainnet's while the old
/// `canonical` gave it mainnet's digest. Now the digest follows the rules the lookups
/// select, and the guest's decoder refuses both lists.
#[test]
fn a_never_entry_or_a_second_blob_entry_cannot_borrow_mainnets_digest() {
    let mainnet = ChainConfig::mainnet();
    let osaka_time = 1_764_798_551;
    let mut never = mainnet.clone();
    never
        .forks
        .insert(0, (EthereumHardfork::Osaka, ForkCondition::Never));
    assert!(!never.is_osaka_active_at_timestamp(osaka_time));
    assert!(!never.canonical().is_osaka_active_at_timestamp(osaka_time));
    assert_ne!(never.digest(), mainnet.digest());
    assert_eq!(
        ChainConfig::decode_canonical(&alloy_rlp::encode(&never)),
        Err(ChainConfigError::NeverListed(EthereumHardfork::Osaka))
    );

    let mut blobs = mainnet.clone();
    let mut other = BlobParams::bpo1();
    other.max_blob_count += 3;
    blobs.blob_schedule.push((EthereumHardfork::Bpo1, other));
    let at = 1_765_290_071 + 1;
    assert_eq!(blobs.blob_params_at(at), Some(other));
    assert_eq!(blobs.canonical().blob_params_at(at), Some(other));
    assert_ne!(blobs.digest(), mainnet.digest());
    assert_eq!(
        ChainConfig::decode_canonical(&alloy_rlp::encode(&blobs)),
        Err(ChainConfigError::BlobOrder(EthereumHardfork::Bpo1))
    );
    // The canonical forms of both decode, and keep their rules.
    for config in [never, blobs] {
        let canonical = config.canonical();
        // The canonical form decodes to itself, unless its schedule is refused (a fork by the
        // wrong kind of condition, activations that go backwards): then with that refusal.
        let decoded = ChainConfig::decode_canonical(&alloy_rlp::encode(&canonical));
        match canonical.check() {
            Ok(()) => assert_eq!(decoded, Ok(canonical.clone())),
            Err(e) => assert_eq!(decoded, Err(e)),
        }
    }
    // A merge condition with more than its block is not canonical either.
    let mut ttd = mainnet.canonical();
    for (_, condition) in &mut ttd.forks {
        if let ForkCondition::TTD {
            total_difficulty, ..
        } = condition
        {
            *total_difficulty = U256::from(1);
        }
    }
    assert_eq!(
        ttd.check_canonical(),
        Err(ChainConfigError::TtdDetails(EthereumHardfork::Paris))
    );
    let mut trailing = alloy_rlp::encode(mainnet.canonical());
    trailing.push(0);
    assert_eq!(
        ChainConfig::decode_canonical(&trailing),
        Err(ChainConfigError::TrailingBytes(1))
    );
}

/// The timestamps and blocks where any fork of `config` activates, and one either side.
fn points(config: &ChainConfig) -> Vec<u64> {
    let mut points = alloc::vec![0u64, u64::MAX];
    for (_, condition) in &config.forks {
        if let ForkCondition::Block(v)
        | ForkCondition::Timestamp(v)
        | ForkCondition::TTD {
            activation_block_number: v,
            ..
        } = condition
        {
            points.extend([v.saturating_sub(1), *v, v.saturating_add(1)]);
        }
    }
    points
}

/// Every lookup validation makes, at `points`.
fn lookups(
    config: &ChainConfig,
    points: &[u64],
) -> Vec<(u64, EthereumHardfork, Option<BlobParams>, Vec<bool>)> {
    points
        .iter()
        .copied()
        .map(|p| {
            let active = FORKS
                .iter()
                .flat_map(|&f| {
                    [
                        config.is_ethereum_fork_active_at_timestamp(f, p),
                        config.is_ethereum_fork_active_at_block(f, p),
                        config.ethereum_fork_activation(f) == ForkCondition::Never,
                    ]
                })
                .collect();
            (p, config.fork_at(p, p), config.blob_params_at(p), active)
        })
        .collect()
}

/// Random lists built from mainnet's and a devnet's: permuted, entries duplicated with other
/// conditions, `Never` entries added, blob entries duplicated or changed. Each one's
/// canonical form selects exactly its rules, is canonical, and round-trips through the
/// guest's decoder; the list itself decodes only when it already is its canonical form. Two
/// configs with one digest have one canonical form, hence the same rules.
#[test]
fn random_configs_are_refused_or_canonical_with_the_same_rules() {
    use rand::{rngs::SmallRng, Rng, SeedableRng};
    let mut rng = SmallRng::seed_from_u64(24);
    let conditions = [
        ForkCondition::Never,
        ForkCondition::Block(0),
        ForkCondition::Block(5),
        ForkCondition::Timestamp(0),
        ForkCondition::Timestamp(15_000),
        ForkCondition::Timestamp(1_764_798_551),
    ];
    let mut digests: alloc::collections::BTreeMap<alloy_primitives::B256, ChainConfig> =
        Default::default();
    let mut refused = 0;
    for round in 0..2000 {
        let mut config = ChainConfig::mainnet();
        if round % 2 == 1 {
            config = config.canonical();
        }
        for _ in 0..rng.random_range(0..4) {
            match rng.random_range(0..6) {
                0 => {
                    let k = rng.random_range(0..config.forks.len());
                    let j = rng.random_range(0..config.forks.len());
                    config.forks.swap(k, j);
                }
                1 => {
                    let fork = FORKS[rng.random_range(0..FORKS.len())];
                    let condition = conditions[rng.random_range(0..conditions.len())];
                    let at = rng.random_range(0..=config.forks.len());
                    config.forks.insert(at, (fork, condition));
                }
                2 => {
                    let k = rng.random_range(0..config.forks.len());
                    config.forks.remove(k);
                }
                3 => {
                    let k = rng.random_range(0..config.blob_schedule.len());
                    let mut entry = config.blob_schedule[k];
                    entry.1.max_blob_count += rng.random_range(0..3);
                    let at = rng.random_range(0..=config.blob_schedule.len());
                    config.blob_schedule.insert(at, entry);
                }
                4 => {
                    let k = rng.random_range(0..config.blob_schedule.len());
                    config.blob_schedule[k].1.target_blob_count =
                        rng.random_range(0..=config.blob_schedule[k].1.max_blob_count);
                }
                _ => {
                    let k = rng.random_range(0..config.blob_schedule.len());
                    let j = rng.random_range(0..config.blob_schedule.len());
                    config.blob_schedule.swap(k, j);
                }
            }
        }
        let canonical = config.canonical();
        let at = points(&config);
        assert_eq!(
            lookups(&canonical, &at),
            lookups(&config, &at),
            "{config:?}"
        );
        assert_eq!(canonical.check_canonical(), Ok(()));
        assert_eq!(canonical.canonical(), canonical);
        let encoded = alloy_rlp::encode(&config);
        match ChainConfig::decode_canonical(&encoded) {
            // Accepted bytes are exactly the canonical form's (the encoding holds a merge's
            // activation block only, so mainnet's TTD details never reach it).
            Ok(decoded) => {
                assert_eq!(decoded, canonical, "a non-canonical list decoded");
                assert_eq!(encoded, alloy_rlp::encode(&canonical));
            }
            Err(_) => {
                assert_ne!(encoded, alloy_rlp::encode(&canonical));
                refused += 1;
            }
        }
        // The canonical form decodes to itself, unless its schedule is refused (a fork by the
        // wrong kind of condition, activations that go backwards): then with that refusal.
        let decoded = ChainConfig::decode_canonical(&alloy_rlp::encode(&canonical));
        match canonical.check() {
            Ok(()) => assert_eq!(decoded, Ok(canonical.clone())),
            Err(e) => assert_eq!(decoded, Err(e)),
        }
        if let Some(seen) = digests.insert(config.digest(), canonical.clone()) {
            assert_eq!(seen, canonical, "two rule sets share a digest");
        }
    }
    assert!(
        refused > 500 && digests.len() > 500,
        "{refused} {}",
        digests.len()
    );
}

#[test]
fn every_rule_changes_the_digest() {
    let mainnet = ChainConfig::mainnet();
    let base = mainnet.digest();
    let mut no_osaka = mainnet.clone();
    no_osaka
        .forks
        .retain(|(fork, _)| *fork != EthereumHardfork::Osaka);
    let mut later_osaka = mainnet.clone();
    for (fork, condition) in &mut later_osaka.forks {
        if *fork == EthereumHardfork::Osaka {
            *condition = ForkCondition::Timestamp(u64::MAX);
        }
    }
    let mut blobs = mainnet.clone();
    blobs.blob_schedule[0].1.max_blob_count += 1;
    let mut deposit = mainnet.clone();
    deposit.deposit_contract = Some(Address::repeat_byte(1));
    let mut chain_id = mainnet.clone();
    chain_id.chain_id = 2;
    for (name, config) in [
        ("osaka removed", no_osaka),
        ("osaka later", later_osaka),
        ("blob max", blobs),
        ("deposit contract", deposit),
        ("chain id", chain_id),
    ] {
        assert_ne!(config.digest(), base, "{name}");
    }
}

#[test]
fn blob_parameters_that_divide_by_zero_are_refused() {
    for (edit, field) in [
        (
            (|p: &mut BlobParams| p.max_blob_count = 0) as fn(&mut BlobParams),
            "max_blob_count",
        ),
        (
            |p: &mut BlobParams| p.update_fraction = 0,
            "update_fraction",
        ),
    ] {
        let mut config = ChainConfig::mainnet();
        edit(&mut config.blob_schedule[0].1);
        assert_eq!(
            config.check(),
            Err(ChainConfigError::BlobParams {
                fork: EthereumHardfork::Cancun,
                field
            })
        );
        let bytes = alloy_rlp::encode(&config);
        assert_eq!(
            ChainConfig::decode_canonical(&bytes),
            Err(ChainConfigError::BlobParams {
                fork: EthereumHardfork::Cancun,
                field
            })
        );
    }
    assert_eq!(ChainConfig::mainnet().check(), Ok(()));
}

#[test]
fn a_timestamp_fork_listed_by_block_is_refused() {
    // Amsterdam at block 0 would escape every check by timestamp (its header fields
    // required) while the digest says it is scheduled.
    let mut config = ChainConfig::mainnet();
    config
        .forks
        .push((EthereumHardfork::Amsterdam, ForkCondition::Block(0)));
    let refused = ChainConfigError::ConditionKind {
        fork: EthereumHardfork::Amsterdam,
        expected: "a timestamp",
    };
    assert_eq!(config.check(), Err(refused));
    assert_eq!(
        ChainConfig::decode_canonical(&alloy_rlp::encode(&config)).err(),
        Some(refused)
    );
    // A pre-merge fork by timestamp, and the merge by timestamp.
    let mut config = ChainConfig::mainnet();
    config.forks[1].1 = ForkCondition::Timestamp(0);
    assert_eq!(
        config.check(),
        Err(ChainConfigError::ConditionKind {
            fork: config.forks[1].0,
            expected: "a block",
        })
    );
    let mut config = ChainConfig::mainnet();
    let paris = config
        .forks
        .iter()
        .position(|(f, _)| *f == EthereumHardfork::Paris)
        .unwrap();
    config.forks[paris].1 = ForkCondition::Timestamp(1);
    assert_eq!(
        config.check(),
        Err(ChainConfigError::ConditionKind {
            fork: EthereumHardfork::Paris,
            expected: "a block or total difficulty",
        })
    );
}

#[test]
fn activations_that_go_backwards_are_refused() {
    // Prague before Cancun.
    let mut config = ChainConfig::mainnet();
    let at =
        |config: &ChainConfig, fork| config.forks.iter().position(|(f, _)| *f == fork).unwrap();
    let prague = at(&config, EthereumHardfork::Prague);
    config.forks[prague].1 = ForkCondition::Timestamp(1_710_338_134);
    assert_eq!(
        config.check(),
        Err(ChainConfigError::ActivationOrder {
            fork: EthereumHardfork::Prague,
            earlier: EthereumHardfork::Cancun,
        })
    );
    // London before Berlin, by block.
    let mut config = ChainConfig::mainnet();
    let london = at(&config, EthereumHardfork::London);
    config.forks[london].1 = ForkCondition::Block(12_000_000);
    assert_eq!(
        config.check(),
        Err(ChainConfigError::ActivationOrder {
            fork: EthereumHardfork::London,
            earlier: EthereumHardfork::Berlin,
        })
    );
    // The same activation for two forks is not backwards; neither is the merge's block after
    // every earlier fork.
    let mut config = ChainConfig::mainnet();
    let cancun = at(&config, EthereumHardfork::Cancun);
    let time = match config.forks[cancun].1 {
        ForkCondition::Timestamp(t) => t,
        other => panic!("{other:?}"),
    };
    config.forks[prague].1 = ForkCondition::Timestamp(time);
    assert_eq!(config.check(), Ok(()));
    assert_eq!(ChainConfig::mainnet().check(), Ok(()));
}

/// A config that schedules a fork this verifier does not implement (Bogota) is refused, by any
/// condition at any activation, before any other refusal: by [`ChainConfig::check`] (the
/// host's parse, the validation's entry) and by the guest's decoder. Listed as never
/// activating, it schedules nothing: the canonical form drops it and the config is mainnet's.
#[test]
fn a_config_scheduling_an_unsupported_fork_is_refused() {
    let refused = ChainConfigError::UnsupportedFork(EthereumHardfork::Bogota);
    for condition in [
        ForkCondition::Timestamp(0),
        ForkCondition::Timestamp(u64::MAX),
        // By the wrong kind of condition: still named as the fork it is.
        ForkCondition::Block(0),
    ] {
        let mut config = ChainConfig::mainnet();
        config.forks.push((EthereumHardfork::Bogota, condition));
        assert_eq!(config.check(), Err(refused), "{condition:?}");
        let canonical = config.canonical();
        assert_eq!(canonical.check_canonical(), Ok(()));
        assert_eq!(
            ChainConfig::decode_canonical(&alloy_rlp::encode(&canonical)),
            Err(refused),
            "{condition:?}"
        );
        // Its digest is never mainnet's.
        assert_ne!(config.digest(), ChainConfig::mainnet().digest());
    }
    let mut never = ChainConfig::mainnet();
    never
        .forks
        .push((EthereumHardfork::Bogota, ForkCondition::Never));
    assert_eq!(never.check(), Ok(()));
    assert_eq!(never.canonical(), ChainConfig::mainnet().canonical());
    assert!(UNSUPPORTED_FORKS.contains(&EthereumHardfork::Bogota));
}
