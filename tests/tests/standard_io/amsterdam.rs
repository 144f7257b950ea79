//! The standard I/O at Amsterdam (schema 0x1501): the payload carries the block access list's
//! RLP and the slot number, the requests the builders' kinds. The request root commits to the
//! list, so the list given must be the one execution builds: any other list, resealed into a
//! payload whose block hash matches it, validates `false` for the list's hash (never a panic),
//! whatever its bytes; and a payload whose slot number or list is not its header's is `false`
//! for the block hash.

use program::standard::payload::PayloadError;
use program::standard::{validate_input, StandardError};
use program::ValidationError;
use stateless_ssz::NewPayloadRequest::V5;
use stateless_ssz::{Fork, Sha2Hasher, StatelessInput};

fn input() -> StatelessInput {
    let (data, chain) = super::project_block("devnet-amsterdam");
    let input = super::input_of(&data, &chain);
    assert_eq!(input.fork, Fork::Amsterdam);
    assert_eq!(input.fork.schema_id(), 0x1501);
    input
}

/// `input` with its payload's access list replaced by `list`, the block hash resealed to match
/// (what a prover who controls the payload can send).
fn with_list(input: &StatelessInput, list: Vec<u8>) -> StatelessInput {
    let mut bad = input.clone();
    let V5(r) = &mut bad.new_payload_request else {
        panic!("an Amsterdam request")
    };
    r.execution_payload.block_access_list = list.into();
    // The header the payload now describes, and its hash as the payload's.
    let block = match program::standard::payload::block_of(&bad.new_payload_request) {
        Err(PayloadError::BlockHash { computed, .. }) => computed,
        other => panic!("{other:?}"),
    };
    let V5(r) = &mut bad.new_payload_request else {
        unreachable!()
    };
    r.execution_payload.block_hash = block.0;
    bad
}

#[test]
fn the_list_given_must_be_the_list_execution_builds() {
    let input = input();
    let out = validate_input(&input, &Sha2Hasher);
    assert!(out.result.successful_validation, "{:?}", out.error());
    let V5(r) = &input.new_payload_request else {
        panic!("an Amsterdam request")
    };
    let list = r.execution_payload.block_access_list.to_vec();
    let built: Vec<alloy_eips::eip7928::AccountChanges> =
        alloy_rlp::decode_exact(&list).expect("the host writes the built list's RLP");
    assert!(!built.is_empty());
    // One account dropped, the list empty, bytes that are no RLP at all.
    let mut dropped = built.clone();
    dropped.remove(1);
    let mut dropped_rlp = Vec::new();
    alloy_rlp::encode_list(&dropped, &mut dropped_rlp);
    for (what, bytes) in [
        ("an account dropped", dropped_rlp),
        ("the empty list", vec![0xc0]),
        ("no RLP", vec![0xff; 7]),
    ] {
        let bad = with_list(&input, bytes);
        let out = validate_input(&bad, &Sha2Hasher);
        assert!(!out.result.successful_validation, "{what}");
        // The root the result commits to is the tampered request's.
        assert_eq!(
            out.result.new_payload_request_root,
            bad.request_root(&Sha2Hasher),
            "{what}"
        );
        match out.error() {
            Some(StandardError::Validation(ValidationError::BlockAccessListHash {
                expected,
                got,
            })) => {
                assert_eq!(
                    *expected,
                    alloy_primitives::keccak256(bad_list(&bad)),
                    "{what}"
                );
                assert_eq!(*got, alloy_primitives::keccak256(&list), "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
    }
}

fn bad_list(input: &StatelessInput) -> Vec<u8> {
    match &input.new_payload_request {
        V5(r) => r.execution_payload.block_access_list.to_vec(),
        _ => unreachable!(),
    }
}

#[test]
fn a_slot_number_or_list_not_the_headers_is_a_wrong_block_hash() {
    let input = input();
    let mut slot = input.clone();
    let V5(r) = &mut slot.new_payload_request else {
        panic!()
    };
    r.execution_payload.slot_number += 1;
    let out = validate_input(&slot, &Sha2Hasher);
    assert!(!out.result.successful_validation);
    assert!(
        matches!(
            out.error(),
            Some(StandardError::Payload(PayloadError::BlockHash { .. }))
        ),
        "{:?}",
        out.error()
    );
    let mut list = input.clone();
    let V5(r) = &mut list.new_payload_request else {
        panic!()
    };
    r.execution_payload.block_access_list = vec![0xc0].into();
    let out = validate_input(&list, &Sha2Hasher);
    assert!(matches!(
        out.error(),
        Some(StandardError::Payload(PayloadError::BlockHash { .. }))
    ));
}
