//! The standard entry reads its input front to back and checks what needs the headers and the
//! public keys only once they are read (`program::standard::deferred`): each deferred check
//! broken here, each must still decide the result.

use super::*;
use alloy_primitives::keccak256;
use prover::standard::shuffled;

fn result(input: &StatelessInput) -> stateless_ssz::StatelessValidationResult {
    validate_input(input, &Sha2Hasher).result
}

/// Another producer's order: the first node is not the pre-state root, so the root taken
/// before the headers are read is wrong and the block is validated again. The result is the
/// need-ordered input's, to the byte.
#[test]
fn an_input_in_any_order_gives_the_need_ordered_result() {
    for (data, chain, _) in blocks() {
        let input = input_of(&data, &chain);
        let expected = result(&input);
        assert!(expected.successful_validation, "block {}", data.id);
        for seed in [1, 8025] {
            let other = shuffled(&input, seed);
            assert_ne!(
                other.witness.state[0], input.witness.state[0],
                "block {} seed {seed}: the shuffle kept the root first",
                data.id
            );
            assert_eq!(result(&other), expected, "block {} seed {seed}", data.id);
        }
    }
}

/// The first node the root of a real state, but another block's: execution over it is not
/// execution over the parent's state, and must not decide the result.
#[test]
fn a_first_node_that_roots_another_state_is_not_taken_for_the_pre_state() {
    let (a, b) = (mainnet_block(24171384), mainnet_block(21882667));
    let mainnet = ChainConfig::mainnet();
    let (input, other) = (input_of(&a, &mainnet), input_of(&b, &mainnet));
    let other_root = other.witness.state[0].to_vec();
    assert_eq!(
        keccak256(&other_root),
        b.witness.parent_state_root().unwrap(),
        "need order puts the pre-state root first"
    );
    assert_ne!(
        keccak256(&other_root),
        a.witness.parent_state_root().unwrap()
    );
    let mut bad = input.clone();
    let mut state: Vec<_> = bad.witness.state.iter().cloned().collect();
    state.insert(0, other_root.try_into().unwrap());
    bad.witness.state = state.into();
    assert_eq!(result(&bad), result(&input));
    assert!(result(&bad).successful_validation);

    // Without the parent's own root anywhere, the block cannot be validated: `false`.
    let mut missing = bad.clone();
    let root = a.witness.parent_state_root().unwrap();
    let state: Vec<_> = (missing.witness.state.iter())
        .filter(|node| keccak256(&node[..]) != root)
        .cloned()
        .collect();
    missing.witness.state = state.into();
    let (ok, error) = verdict(&missing);
    assert!(!ok);
    assert!(
        matches!(error, Some(StandardError::Validation(ref e)) if e.verdict() == Verdict::Insufficient),
        "{error:?}"
    );
}

/// The parent header, read last: one byte of it changed (its gas limit), it is no longer the
/// header the payload's `parent_hash` names, whatever execution said.
#[test]
fn the_parent_header_is_checked_after_execution() {
    let data = mainnet_block(24171384);
    let input = input_of(&data, &ChainConfig::mainnet());
    let mut header = data.witness.headers.last().unwrap().to_vec();
    let mut parent: alloy_consensus::Header =
        alloy_rlp::Decodable::decode(&mut header.as_slice()).unwrap();
    parent.gas_limit += 1;
    header.clear();
    alloy_rlp::Encodable::encode(&parent, &mut header);
    let mut bad = input.clone();
    let mut headers = bad.witness.headers.to_vec();
    *headers.last_mut().unwrap() = header.try_into().unwrap();
    bad.witness.headers = headers.try_into().unwrap();
    let (ok, error) = verdict(&bad);
    assert!(!ok);
    assert!(
        matches!(
            error,
            Some(StandardError::Validation(ValidationError::ParentHash { expected, got }))
                if got == data.header.parent_hash && expected != got
        ),
        "{error:?}"
    );

    // A parent that is the parent, but whose state root is not the witness's first node:
    // the root taken from the first node is wrong, and the block is validated again.
    let mut bad = input.clone();
    let mut state: Vec<_> = bad.witness.state.iter().cloned().collect();
    state.rotate_left(1);
    bad.witness.state = state.into();
    assert_eq!(result(&bad), result(&input));
}

/// A fault after every witness item (in the keys, read last) makes a valid block's input no
/// input at all: 43 zero bytes, though execution had already said the block is valid.
#[test]
fn a_fault_in_the_tail_makes_a_valid_blocks_input_undecodable() {
    let data = mainnet_block(24171384);
    let input = input_of(&data, &ChainConfig::mainnet());
    let mut bytes = encode_input(&input);
    assert!(validate(&bytes, &Sha2Hasher).result.successful_validation);
    bytes.pop();
    let out = validate(&bytes, &Sha2Hasher);
    assert_eq!(out.result.to_bytes(), [0u8; 43]);
    assert!(
        matches!(out.error(), Some(StandardError::Decode(_))),
        "{:?}",
        out.error()
    );

    // The headers' list: its offset table's first entry off by one.
    let mut bytes = encode_input(&input);
    let word = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let witness = 2 + word(&bytes, 2 + 4) as usize;
    let headers = witness + word(&bytes, witness + 8) as usize;
    bytes[headers] ^= 1;
    let out = validate(&bytes, &Sha2Hasher);
    assert_eq!(out.result.to_bytes(), [0u8; 43]);
}

/// A header the block validator refuses before executing (gas limit over `i64::MAX`, gas used
/// over the limit), its payload's block hash made the rebuilt header's: refused for that rule,
/// and never executed before the parent is read.
#[test]
fn a_header_refused_on_its_own_is_never_executed() {
    let data = mainnet_block(24171384);
    let input = input_of(&data, &ChainConfig::mainnet());
    let with = |edit: &dyn Fn(&mut stateless_ssz::ExecutionPayloadV3)| {
        let mut bad = input.clone();
        let V4(r) = &mut bad.new_payload_request else {
            panic!("24171384 is Prague-shaped")
        };
        edit(&mut r.execution_payload);
        // The block hash the rebuilt header has.
        if let Err(PayloadError::BlockHash { computed, .. }) = block_of(&bad.new_payload_request) {
            let V4(r) = &mut bad.new_payload_request else {
                unreachable!()
            };
            r.execution_payload.block_hash = computed.0;
        }
        block_of(&bad.new_payload_request).expect("the payload is a block");
        verdict(&bad)
    };
    let (ok, error) = with(&|p| p.gas_limit = u64::MAX);
    assert!(!ok);
    assert!(
        matches!(
            error,
            Some(StandardError::Validation(ValidationError::HeaderField {
                field: "gas_limit",
                ..
            }))
        ),
        "{error:?}"
    );
    let (ok, error) = with(&|p| p.gas_used = p.gas_limit + 1);
    assert!(!ok);
    assert!(
        matches!(
            error,
            Some(StandardError::Validation(ValidationError::HeaderField {
                field: "gas_used",
                ..
            }))
        ),
        "{error:?}"
    );
}
