//! The fork rules of a header: each fork's fields present exactly when it is active,
//! Amsterdam's two at their boundary, a fork this verifier does not know, proof of work.

use super::*;

#[test]
fn fork_fields_are_present_exactly_when_the_fork_is_active() {
    assert_eq!(
        check(|h| h.requests_hash = None),
        Err(ValidationError::ForkField {
            field: "requests_hash",
            required: true
        })
    );
    assert_eq!(
        check(|h| h.parent_beacon_block_root = None),
        Err(ValidationError::ForkField {
            field: "parent_beacon_block_root",
            required: true
        })
    );
    let parent = parent(SCHEDULES[0]);
    let mut header = child(&parent);
    header.requests_hash = Some(B256::ZERO);
    assert_eq!(
        validate_header(&header, &parent, &ChainConfig::mainnet()),
        Err(ValidationError::ForkField {
            field: "requests_hash",
            required: false
        })
    );
}

/// Amsterdam's two header fields, each at the boundary: an Osaka header (21 fields) with one
/// or both (22 or 23 fields, as alloy decodes them) is refused naming the field, and the same
/// header through RLP too; without them, valid.
#[test]
fn amsterdam_fields_are_refused_before_amsterdam() {
    use alloy_hardforks::{EthereumHardfork, ForkCondition};
    use alloy_rlp::Encodable;
    // Amsterdam scheduled after the block: its fields break the block's fork's rules.
    let mut chain = ChainConfig::mainnet();
    chain.forks.push((
        EthereumHardfork::Amsterdam,
        ForkCondition::Timestamp(u64::MAX),
    ));
    let check = |edit: fn(&mut Header)| {
        let parent = parent(SCHEDULES[2]);
        let mut header = child(&parent);
        edit(&mut header);
        validate_header(&header, &parent, &chain)
    };
    assert_eq!(check(|_| {}), Ok(()));
    let with_bal = |h: &mut Header| h.block_access_list_hash = Some(B256::repeat_byte(7));
    let with_slot = |h: &mut Header| {
        h.block_access_list_hash = Some(B256::ZERO);
        h.slot_number = Some(1);
    };
    assert_eq!(
        check(with_bal),
        Err(ValidationError::ForkField {
            field: "block_access_list_hash",
            required: false
        })
    );
    assert_eq!(
        check(|h| {
            h.slot_number = Some(1);
        }),
        Err(ValidationError::ForkField {
            field: "slot_number",
            required: false
        })
    );
    // The RLP of such headers decodes (so only this rule stands between them and "valid").
    let parent = parent(SCHEDULES[2]);
    for (edit, fields) in [
        (with_bal as fn(&mut Header), 22),
        (with_slot as fn(&mut Header), 23),
    ] {
        let mut header = child(&parent);
        edit(&mut header);
        let mut rlp = alloc::vec::Vec::new();
        header.encode(&mut rlp);
        let decoded = Header::decode(&mut rlp.as_slice()).unwrap();
        assert_eq!(decoded, header);
        assert_eq!(rlp_items(&rlp), fields);
        assert!(matches!(
            validate_header(&decoded, &parent, &chain),
            Err(ValidationError::ForkField {
                required: false,
                ..
            })
        ));
        // Under a config that does not schedule Amsterdam at all (mainnet's), such a
        // header is of a schedule this config does not know: unusable, not invalid.
        let err = validate_header(&decoded, &parent, &ChainConfig::mainnet()).unwrap_err();
        assert_eq!(
            err,
            ValidationError::UnscheduledFork {
                number: header.number,
                fork: EthereumHardfork::Amsterdam
            }
        );
        assert_eq!(err.verdict(), crate::Verdict::Unusable);
    }
}

/// The number of items in an RLP list.
fn rlp_items(rlp: &[u8]) -> usize {
    let mut buf = rlp;
    let header = alloy_rlp::Header::decode(&mut buf).unwrap();
    let mut payload = &buf[..header.payload_length];
    let mut count = 0;
    while !payload.is_empty() {
        let item = alloy_rlp::Header::decode(&mut payload).unwrap();
        payload = &payload[item.payload_length..];
        count += 1;
    }
    count
}

/// A block under a fork whose rules are not implemented (Bogota) is unusable input, never
/// valid, even with every field of the last fork this verifier knows.
#[test]
fn bogota_blocks_are_unsupported() {
    use alloy_hardforks::{EthereumHardfork, ForkCondition};
    let mut chain = ChainConfig::mainnet();
    chain.forks.push((
        EthereumHardfork::Amsterdam,
        ForkCondition::Timestamp(SCHEDULES[2]),
    ));
    chain.forks.push((
        EthereumHardfork::Bogota,
        ForkCondition::Timestamp(SCHEDULES[2]),
    ));
    let parent = parent(SCHEDULES[2]);
    let mut header = child(&parent);
    header.block_access_list_hash = Some(B256::ZERO);
    header.slot_number = Some(1);
    let err = validate_header(&header, &parent, &chain).unwrap_err();
    assert_eq!(
        err,
        ValidationError::UnsupportedFork {
            number: header.number,
            fork: EthereumHardfork::Bogota
        }
    );
    assert_eq!(err.verdict(), crate::Verdict::Unusable);
}

/// From Amsterdam on, both of its fields are required, each named when missing; with both,
/// the header is valid (the slot number is any: the consensus layer checks it).
#[test]
fn amsterdam_requires_its_two_fields() {
    use alloy_hardforks::{EthereumHardfork, ForkCondition};
    let mut chain = ChainConfig::mainnet();
    chain.forks.push((
        EthereumHardfork::Amsterdam,
        ForkCondition::Timestamp(SCHEDULES[2]),
    ));
    let parent = parent(SCHEDULES[2]);
    let mut header = child(&parent);
    assert_eq!(
        validate_header(&header, &parent, &chain),
        Err(ValidationError::ForkField {
            field: "block_access_list_hash",
            required: true
        })
    );
    header.block_access_list_hash = Some(B256::repeat_byte(3));
    assert_eq!(
        validate_header(&header, &parent, &chain),
        Err(ValidationError::ForkField {
            field: "slot_number",
            required: true
        })
    );
    for slot in [0, 1, u64::MAX] {
        header.slot_number = Some(slot);
        assert_eq!(validate_header(&header, &parent, &chain), Ok(()));
    }
}

#[test]
fn proof_of_work_blocks_are_refused() {
    let mut parent = parent(SCHEDULES[2]);
    parent.number = 15_537_392;
    let header = child(&parent);
    assert_eq!(
        validate_header(&header, &parent, &ChainConfig::mainnet()),
        Err(ValidationError::PreMerge(15_537_393))
    );
}
