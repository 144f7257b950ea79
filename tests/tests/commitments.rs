//! What a proof commits to is the very value validation used, never a normalised copy:
//! - the block hash is keccak256 of the header exactly as mainnet encodes it (the published
//!   hashes of real blocks), and no other encoding of the same header validates;
//! - a chain config and its canonical form (what the host writes, the only form the guest
//!   accepts) validate real and devnet blocks identically, for random lists: permuted,
//!   duplicated, `Never` entries added, blob schedules duplicated or changed.

use alloy_eips::eip7840::BlobParams;
use alloy_hardforks::{EthereumHardfork, ForkCondition};
use alloy_primitives::{b256, keccak256, B256};
use program::chain::FORKS;
use program::{ChainConfig, GuestInput, PublicValues};
use tests::{mainnet_block, shared_blocks_dir};

#[test]
fn the_committed_block_hash_is_the_header_as_mainnet_encodes_it() {
    let published: [(u64, B256); 2] = [
        (
            24171384,
            b256!("0x088f187b1a58bf6e611c37046ed948008af381d9a9eb1c29a2eae91cbcba0a09"),
        ),
        (
            21882667,
            b256!("0x71e7a6a427d2d43f3fe4164248d877885678243ccc5747f477604a7393aecf87"),
        ),
    ];
    for (number, hash) in published {
        let data = mainnet_block(number);
        let chain = ChainConfig::mainnet();
        let output = program::validate_block(&data.block_rlp, &data.witness, &chain).unwrap();
        let public = PublicValues::new(&output, &chain);
        assert_eq!(public.block_hash, hash, "{number}");
        assert_eq!(keccak256(data.header_rlp()), hash, "{number}");
        // (alloy's own view of the fee.)
        let header: alloy_consensus::Header = alloy_rlp::decode_exact(data.header_rlp()).unwrap();
        assert!(header.base_fee_per_gas.is_some());
        // The header with its base fee (item 15) written with a leading zero byte, the list's
        // length fixed to match: the same value, not mainnet's encoding. It does not decode, so
        // no second encoding can stand for the header.
        let mut payload = data.header_rlp();
        let list = alloy_rlp::Header::decode(&mut payload).unwrap();
        assert!(list.list);
        let mut items: Vec<&[u8]> = Vec::new();
        let mut rest = &payload[..list.payload_length];
        while !rest.is_empty() {
            let mut after = rest;
            let item = alloy_rlp::Header::decode(&mut after).unwrap();
            let len = rest.len() - after.len() + item.payload_length;
            items.push(&rest[..len]);
            rest = &rest[len..];
        }
        let fee: u64 = alloy_rlp::decode_exact(items[15]).unwrap();
        assert_eq!(Some(fee), header_fee(data.header_rlp()));
        let mut padded = vec![items[15][0] + 1, 0];
        padded.extend_from_slice(&items[15][1..]);
        let mut body: Vec<u8> = Vec::new();
        for (k, item) in items.iter().enumerate() {
            body.extend_from_slice(if k == 15 { &padded } else { item });
        }
        let mut reencoded = Vec::new();
        alloy_rlp::Header {
            list: true,
            payload_length: body.len(),
        }
        .encode(&mut reencoded);
        reencoded.extend_from_slice(&body);
        assert!(
            alloy_rlp::decode_exact::<alloy_consensus::Header>(&reencoded).is_err(),
            "{number}: a non-canonical header decoded"
        );
        // And with mainnet's byte there instead, it is mainnet's header again (the splice is
        // right, so the refusal above is for the leading zero alone).
        let mut same = Vec::new();
        alloy_rlp::Header {
            list: true,
            payload_length: items.iter().map(|i| i.len()).sum(),
        }
        .encode(&mut same);
        items.iter().for_each(|i| same.extend_from_slice(i));
        assert_eq!(same, data.header_rlp());
    }
}

fn header_fee(rlp: &[u8]) -> Option<u64> {
    alloy_rlp::decode_exact::<alloy_consensus::Header>(rlp)
        .ok()?
        .base_fee_per_gas
}

/// Random lists around `base`: each edit keeps the list one a prover could send.
fn mutate(base: &ChainConfig, rng: &mut rand::rngs::SmallRng) -> ChainConfig {
    use rand::Rng;
    let mut config = base.clone();
    let conditions = |rng: &mut rand::rngs::SmallRng| match rng.random_range(0..4) {
        0 => ForkCondition::Never,
        1 => ForkCondition::Timestamp(0),
        2 => ForkCondition::Timestamp(u64::MAX),
        _ => ForkCondition::Block(0),
    };
    for _ in 0..rng.random_range(1..4) {
        match rng.random_range(0..5) {
            0 => {
                let (k, j) = (
                    rng.random_range(0..config.forks.len()),
                    rng.random_range(0..config.forks.len()),
                );
                config.forks.swap(k, j);
            }
            1 => {
                // Osaka and later are what the blocks below turn on.
                let fork = FORKS[rng.random_range(16..FORKS.len())];
                let at = rng.random_range(0..=config.forks.len());
                let condition = conditions(rng);
                config.forks.insert(at, (fork, condition));
            }
            2 => {
                let k = rng.random_range(0..config.blob_schedule.len());
                let (fork, mut params): (EthereumHardfork, BlobParams) = config.blob_schedule[k];
                params.max_blob_count += rng.random_range(0..3);
                params.update_fraction += rng.random_range(0..2);
                let at = rng.random_range(0..=config.blob_schedule.len());
                config.blob_schedule.insert(at, (fork, params));
            }
            3 => {
                let k = rng.random_range(0..config.forks.len());
                config.forks.remove(k);
            }
            _ => {
                let (k, j) = (
                    rng.random_range(0..config.blob_schedule.len()),
                    rng.random_range(0..config.blob_schedule.len()),
                );
                config.blob_schedule.swap(k, j);
            }
        }
    }
    config
}

#[test]
fn a_config_and_its_canonical_form_validate_blocks_alike() {
    use rand::SeedableRng;
    let blocks = tests::project_blocks_dir();
    let runs = [
        host::native::run_native(&blocks, "devnet", None).unwrap(),
        host::native::run_native(&blocks, "devnet-small", None).unwrap(),
        host::native::run_native(&shared_blocks_dir().join("mainnet"), "24171384", None).unwrap(),
    ];
    let mut rng = rand::rngs::SmallRng::seed_from_u64(2024);
    let (mut refused, mut schedules, mut verdicts) = (0, 0, std::collections::BTreeSet::new());
    for round in 0..24 {
        let run = &runs[round % runs.len()];
        let config = mutate(&run.chain, &mut rng);
        let data = &run.data;
        let native = program::validate_block(&data.block_rlp, &data.witness, &config);
        let canonical = config.canonical();
        let under_canonical = program::validate_block(&data.block_rlp, &data.witness, &canonical);
        assert_eq!(native, under_canonical, "round {round}: {config:?}");
        assert_eq!(config.digest(), canonical.digest());
        // What the guest reads: the host writes the canonical form, which decodes to itself
        // and validates as natively; the list as it is decodes only if it was canonical.
        let written = program::guest_items(
            &data.block_rlp,
            &data.witness.headers,
            &config,
            data.witness
                .state
                .iter()
                .map(|n| (n.as_ref(), false))
                .chain(data.witness.codes.iter().map(|c| (c.as_ref(), true)))
                .collect::<Vec<_>>()
                .into_iter(),
        );
        match GuestInput::from_items(&written) {
            Ok(input) => {
                assert_eq!(input.chain, canonical);
                assert_eq!(input.validate(), native, "round {round}");
            }
            // A schedule the rules refuse (a fork by the wrong kind of condition, activations
            // going backwards) is refused where the guest reads it, for the reason validation
            // gives natively.
            Err(program::input::InputError::Chain(refusal)) => {
                assert_eq!(
                    native,
                    Err(program::ValidationError::Chain(refusal)),
                    "round {round}"
                );
                schedules += 1;
            }
            Err(other) => panic!("round {round}: {other}"),
        }
        if ChainConfig::decode_canonical(&alloy_rlp::encode(&config)).is_err() {
            refused += 1;
        }
        verdicts.insert(program::Verdict::of(&native).name());
    }
    println!(
        "24 random configs: {refused} refused as written, {schedules} schedules refused, verdicts {verdicts:?}"
    );
    assert!(refused > 12, "{refused}");
    // The edits reach the rules: some configs validate, some do not.
    assert!(
        verdicts.contains("valid") && verdicts.len() > 1,
        "{verdicts:?}"
    );
}
