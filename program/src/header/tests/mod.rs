//! Each header rule at its boundary: the last value it accepts and the first it refuses,
//! with the exact error, on mainnet's schedule.

use super::*;
use alloc::string::ToString;
use alloy_eips::eip4844::DATA_GAS_PER_BLOB;

mod forks;

/// Mainnet activation timestamps inside each blob schedule: Cancun, Prague, Osaka, BPO1,
/// BPO2.
const SCHEDULES: [u64; 5] = [
    1_720_000_000,
    1_750_000_000,
    1_765_000_000,
    1_766_000_000,
    1_770_000_000,
];

fn parent(timestamp: u64) -> Header {
    Header {
        number: 24_000_000,
        timestamp,
        gas_limit: 60_000_000,
        gas_used: 20_000_000,
        base_fee_per_gas: Some(1_000_000_000),
        withdrawals_root: Some(B256::ZERO),
        blob_gas_used: Some(4 * DATA_GAS_PER_BLOB),
        excess_blob_gas: Some(50 * DATA_GAS_PER_BLOB),
        parent_beacon_block_root: Some(B256::ZERO),
        requests_hash: (timestamp >= SCHEDULES[1]).then_some(B256::ZERO),
        ..Default::default()
    }
}

/// The child the rules imply, with no blobs.
fn child(parent: &Header) -> Header {
    let chain = ChainConfig::mainnet();
    let params = chain.blob_params_at(parent.timestamp + 12).unwrap();
    Header {
        number: parent.number + 1,
        timestamp: parent.timestamp + 12,
        gas_limit: parent.gas_limit,
        gas_used: 0,
        base_fee_per_gas: parent.next_block_base_fee(BaseFeeParams::ethereum()),
        blob_gas_used: Some(0),
        excess_blob_gas: Some(params.next_block_excess_blob_gas_osaka(
            parent.excess_blob_gas.unwrap(),
            parent.blob_gas_used.unwrap(),
            parent.base_fee_per_gas.unwrap(),
        )),
        ..parent.clone()
    }
}

fn check(edit: impl FnOnce(&mut Header)) -> Result<(), ValidationError> {
    let parent = parent(SCHEDULES[2]);
    let mut header = child(&parent);
    edit(&mut header);
    validate_header(&header, &parent, &ChainConfig::mainnet())
}

fn field_error(result: Result<(), ValidationError>) -> &'static str {
    match result {
        Err(ValidationError::HeaderField { field, .. }) => field,
        other => panic!("expected a header field error, got {other:?}"),
    }
}

#[test]
fn the_implied_child_is_valid_under_every_blob_schedule() {
    for t in SCHEDULES {
        let parent = parent(t);
        validate_header(&child(&parent), &parent, &ChainConfig::mainnet())
            .unwrap_or_else(|e| panic!("timestamp {t}: {e}"));
    }
}

#[test]
fn gas_limit_moves_by_less_than_a_1024th() {
    let bound = 60_000_000 / GAS_LIMIT_BOUND_DIVISOR;
    assert_eq!(check(|h| h.gas_limit += bound - 1), Ok(()));
    assert_eq!(check(|h| h.gas_limit -= bound - 1), Ok(()));
    for limit in [60_000_000 + bound, 60_000_000 - bound] {
        assert_eq!(
            check(|h| h.gas_limit = limit),
            Err(ValidationError::GasLimit {
                parent: 60_000_000,
                got: limit
            })
        );
    }
}

#[test]
fn gas_limit_is_at_least_5000_and_at_most_2_pow_63_minus_1() {
    let mut parent = parent(SCHEDULES[2]);
    parent.gas_limit = 5000;
    let mut header = child(&parent);
    let chain = ChainConfig::mainnet();
    assert_eq!(validate_header(&header, &parent, &chain), Ok(()));
    header.gas_limit = 4999;
    assert_eq!(
        validate_header(&header, &parent, &chain),
        Err(ValidationError::GasLimit {
            parent: 5000,
            got: 4999
        })
    );
    parent.gas_limit = MAX_GAS_LIMIT;
    let mut header = child(&parent);
    assert_eq!(validate_header(&header, &parent, &chain), Ok(()));
    header.gas_limit = MAX_GAS_LIMIT + 1;
    assert_eq!(
        field_error(validate_header(&header, &parent, &chain)),
        "gas_limit"
    );
}

#[test]
fn gas_used_is_at_most_the_gas_limit() {
    assert_eq!(check(|h| h.gas_used = h.gas_limit), Ok(()));
    assert_eq!(
        field_error(check(|h| h.gas_used = h.gas_limit + 1)),
        "gas_used"
    );
}

#[test]
fn extra_data_is_at_most_32_bytes() {
    assert_eq!(check(|h| h.extra_data = [7u8; 32].into()), Ok(()));
    assert_eq!(
        check(|h| h.extra_data = [7u8; 33].into()),
        Err(field("extra_data length", 32, 33))
    );
}

#[test]
fn timestamp_is_after_the_parents() {
    let parent_time = SCHEDULES[2];
    assert_eq!(check(|h| h.timestamp = parent_time + 1), Ok(()));
    assert_eq!(
        field_error(check(|h| h.timestamp = parent_time)),
        "timestamp"
    );
}

/// A parent numbered u64::MAX has no child (`number + 1` overflowed before), and an
/// ancestor chain cannot pass it either.
#[test]
fn no_block_follows_u64_max() {
    let mut parent = parent(SCHEDULES[2]);
    parent.number = u64::MAX;
    let mut header = child(&{
        let mut p = parent.clone();
        p.number = 0;
        p
    });
    header.number = u64::MAX;
    assert_eq!(
        field_error(validate_header(&header, &parent, &ChainConfig::mainnet())),
        "number"
    );
    let mut rlp = alloc::vec::Vec::new();
    alloy_rlp::Encodable::encode(&parent, &mut rlp);
    let mut second = alloc::vec::Vec::new();
    alloy_rlp::Encodable::encode(&header, &mut second);
    assert!(matches!(
        decode_ancestors(&[rlp.into(), second.into()]),
        Err(ValidationError::AncestorNumber { index: 1, .. })
    ));
}

#[test]
fn number_follows_the_parent() {
    assert_eq!(
        check(|h| h.number += 1),
        Err(field("number", 24_000_001, 24_000_002))
    );
}

#[test]
fn base_fee_is_exactly_eip_1559s() {
    let expected = child(&parent(SCHEDULES[2])).base_fee_per_gas.unwrap();
    for got in [expected - 1, expected + 1] {
        assert_eq!(
            check(|h| h.base_fee_per_gas = Some(got)),
            Err(field(
                "base_fee_per_gas",
                expected.to_string(),
                got.to_string()
            ))
        );
    }
    assert_eq!(
        field_error(check(|h| h.base_fee_per_gas = None)),
        "base_fee_per_gas"
    );
}

#[test]
fn proof_of_stake_fields_are_zero() {
    assert_eq!(
        field_error(check(|h| h.difficulty = U256::from(1))),
        "difficulty"
    );
    assert_eq!(field_error(check(|h| h.nonce = B64::from(1u64))), "nonce");
    assert_eq!(
        field_error(check(|h| h.ommers_hash = B256::ZERO)),
        "ommers_hash"
    );
}

#[test]
fn blob_gas_used_is_whole_blobs_up_to_the_schedules_maximum() {
    for t in SCHEDULES {
        let chain = ChainConfig::mainnet();
        let max = chain.blob_params_at(t + 12).unwrap().max_blob_count * DATA_GAS_PER_BLOB;
        let parent = parent(t);
        let mut header = child(&parent);
        header.blob_gas_used = Some(max);
        assert_eq!(validate_header(&header, &parent, &chain), Ok(()), "{t}");
        for bad in [max + DATA_GAS_PER_BLOB, DATA_GAS_PER_BLOB - 1] {
            header.blob_gas_used = Some(bad);
            assert_eq!(
                field_error(validate_header(&header, &parent, &chain)),
                "blob_gas_used",
                "{t}: {bad}"
            );
        }
    }
}

#[test]
fn excess_blob_gas_follows_each_blob_schedule() {
    let chain = ChainConfig::mainnet();
    let mut seen = alloc::vec::Vec::new();
    for t in SCHEDULES {
        let parent = parent(t);
        let expected = child(&parent).excess_blob_gas.unwrap();
        seen.push(expected);
        for got in [expected + 1, expected - 1] {
            let mut header = child(&parent);
            header.excess_blob_gas = Some(got);
            assert_eq!(
                validate_header(&header, &parent, &chain),
                Err(field(
                    "excess_blob_gas",
                    opt(Some(expected)),
                    opt(Some(got))
                )),
                "{t}"
            );
        }
    }
    // The schedules give different values from the same parent, so each is really used.
    seen.dedup();
    assert!(seen.len() >= 3, "{seen:?}");
}
