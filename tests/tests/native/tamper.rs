//! Tampered inputs: each is rejected with its own typed error, and none panics.
//!
//! Based on mainnet block 24171384 (Osaka), which validates untouched.

use alloy_consensus::{Block, Header, TxEnvelope};
use alloy_primitives::{Bloom, Bytes, B256};
use alloy_rlp::{Decodable, Encodable};
use mpt::TrieError;
use program::{ChainConfig, DbError, ValidationError, Verdict, WitnessError};
use tests::mainnet_block;

struct Case {
    block: Vec<u8>,
    witness: program::ExecutionWitness,
}

fn base() -> Case {
    let data = mainnet_block(24171384);
    Case {
        block: data.block_rlp,
        witness: data.witness,
    }
}

fn validate(case: &Case) -> Result<program::BlockOutput, ValidationError> {
    program::validate_block(&case.block, &case.witness, &ChainConfig::mainnet())
}

fn encode<T: Encodable>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    value.encode(&mut out);
    out
}

/// Rewrites the block's header.
fn with_header(case: &mut Case, edit: impl FnOnce(&mut Header)) {
    let mut block = Block::<TxEnvelope>::decode(&mut case.block.as_slice()).unwrap();
    edit(&mut block.header);
    case.block = encode(&block);
}

/// Rewrites the parent header; with `relink`, the block's `parent_hash` follows it.
fn with_parent(case: &mut Case, relink: bool, edit: impl FnOnce(&mut Header)) {
    let last = case.witness.headers.len() - 1;
    let mut parent = Header::decode(&mut case.witness.headers[last].as_ref()).unwrap();
    edit(&mut parent);
    let rlp = encode(&parent);
    let hash = mpt::keccak256(&rlp);
    case.witness.headers[last] = rlp.into();
    if relink {
        with_header(case, |h| h.parent_hash = hash);
    }
}

#[test]
fn untouched_block_is_valid() {
    validate(&base()).unwrap();
}

#[test]
fn parent_header_changes_break_the_parent_link() {
    let mut case = base();
    with_parent(&mut case, false, |p| p.state_root = B256::repeat_byte(1));
    assert!(matches!(
        validate(&case),
        Err(ValidationError::ParentHash { .. })
    ));
}

#[test]
fn relinked_parent_with_another_state_root_has_no_pre_state() {
    let mut case = base();
    let root = B256::repeat_byte(1);
    with_parent(&mut case, true, |p| p.state_root = root);
    assert_eq!(
        validate(&case),
        Err(ValidationError::Witness(
            WitnessError::PreStateRootNotInWitness(root)
        ))
    );
}

#[test]
fn relinked_parent_with_another_base_fee_gives_a_base_fee_error() {
    let mut case = base();
    with_parent(&mut case, true, |p| {
        p.base_fee_per_gas = p.base_fee_per_gas.map(|f| f * 2)
    });
    assert!(matches!(
        validate(&case),
        Err(ValidationError::HeaderField {
            field: "base_fee_per_gas",
            ..
        })
    ));
}

#[test]
fn relinked_parent_with_another_gas_limit_gives_a_gas_limit_error() {
    let mut case = base();
    with_parent(&mut case, true, |p| p.gas_limit /= 2);
    assert!(matches!(
        validate(&case),
        Err(ValidationError::GasLimit { .. })
    ));
}

#[test]
fn relinked_parent_from_the_future_gives_a_timestamp_error() {
    let mut case = base();
    with_parent(&mut case, true, |p| p.timestamp += 3600);
    assert!(matches!(
        validate(&case),
        Err(ValidationError::HeaderField {
            field: "timestamp",
            ..
        })
    ));
}

#[test]
fn altered_transaction_breaks_the_transactions_root() {
    let mut case = base();
    let mut block = Block::<TxEnvelope>::decode(&mut case.block.as_slice()).unwrap();
    let tx = block.body.transactions.swap_remove(3);
    block.body.transactions.insert(0, tx);
    case.block = encode(&block);
    assert!(matches!(
        validate(&case),
        Err(ValidationError::BodyRoot {
            field: "transactions_root",
            ..
        })
    ));
}

#[test]
fn header_result_fields_are_checked() {
    let mut case = base();
    with_header(&mut case, |h| h.state_root = B256::repeat_byte(2));
    assert!(matches!(
        validate(&case),
        Err(ValidationError::StateRoot { .. })
    ));

    let mut case = base();
    with_header(&mut case, |h| h.receipts_root = B256::repeat_byte(3));
    assert!(matches!(
        validate(&case),
        Err(ValidationError::ReceiptsRoot { .. })
    ));

    let mut case = base();
    with_header(&mut case, |h| h.logs_bloom = Bloom::repeat_byte(4));
    assert!(matches!(
        validate(&case),
        Err(ValidationError::LogsBloom { .. })
    ));

    let mut case = base();
    with_header(&mut case, |h| h.gas_used -= 1);
    assert!(matches!(
        validate(&case),
        Err(ValidationError::GasUsed { .. })
    ));
}

fn beneficiary_leaf_node(case: &Case) -> B256 {
    let block = Block::<TxEnvelope>::decode(&mut case.block.as_slice()).unwrap();
    let store = case.witness.store();
    let root = case.witness.parent_state_root().unwrap();
    *tests::path_to(&store, root, mpt::keccak256(block.header.beneficiary))
        .last()
        .unwrap()
}

fn expect_missing_node(case: &Case, hash: B256) {
    let result = validate(case);
    // A missing node says nothing about the block: the verdict is "insufficient".
    assert_eq!(Verdict::of(&result), Verdict::Insufficient);
    match result {
        Err(ValidationError::MissingWitnessData(DbError::Trie(TrieError::MissingNode {
            hash: h,
            path,
        }))) => {
            assert_eq!(h, hash);
            println!("missing node {h} at {path}");
        }
        other => panic!("expected the missing node {hash}, got {other:?}"),
    }
}

#[test]
fn a_flipped_byte_in_a_needed_node_is_a_missing_node() {
    let mut case = base();
    let target = beneficiary_leaf_node(&case);
    let at = case
        .witness
        .state
        .iter()
        .position(|n| mpt::keccak256(n) == target)
        .unwrap();
    let mut node = case.witness.state[at].to_vec();
    let last = node.len() - 1;
    node[last] ^= 0x01;
    case.witness.state[at] = node.into();
    expect_missing_node(&case, target);
}

#[test]
fn a_dropped_needed_node_is_named() {
    let mut case = base();
    let target = beneficiary_leaf_node(&case);
    case.witness.state.retain(|n| mpt::keccak256(n) != target);
    expect_missing_node(&case, target);
}

#[test]
fn swapped_codes_are_missing_codes() {
    let mut case = base();
    let originals: Vec<B256> = case.witness.codes.iter().map(mpt::keccak256).collect();
    for code in case.witness.codes.iter_mut() {
        let mut swapped = code.to_vec();
        swapped.push(0x00);
        *code = swapped.into();
    }
    match validate(&case) {
        Err(ValidationError::MissingWitnessData(DbError::MissingCode(hash))) => {
            assert!(originals.contains(&hash))
        }
        other => panic!("expected a missing code, got {other:?}"),
    }
}

#[test]
fn a_broken_ancestor_link_is_named() {
    let mut case = base();
    let parent = Header::decode(&mut case.witness.headers[0].as_ref()).unwrap();
    // An older header that is not the parent's parent.
    let fake = Header {
        number: parent.number - 1,
        ..Default::default()
    };
    case.witness.headers.insert(0, encode(&fake).into());
    match validate(&case) {
        Err(ValidationError::AncestorLink {
            index: 1,
            expected,
            got,
        }) => {
            assert_eq!(expected, mpt::keccak256(encode(&fake)));
            assert_eq!(got, parent.parent_hash);
        }
        other => panic!("expected AncestorLink, got {other:?}"),
    }
    // Non-consecutive numbers.
    let mut case = base();
    let fake = Header {
        number: parent.number - 2,
        ..Default::default()
    };
    case.witness.headers.insert(0, encode(&fake).into());
    assert!(matches!(
        validate(&case),
        Err(ValidationError::AncestorNumber { index: 1, .. })
    ));
}

/// A seeded xorshift64 generator: the corruption tests are the same on every run.
fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

#[test]
fn random_corruption_never_panics() {
    let base = base();
    let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
    let original = validate(&base).unwrap().block_hash;
    // Verdicts of the corrupted blocks and of the corrupted witnesses.
    let mut block_verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let mut witness_verdicts = std::collections::BTreeMap::<&str, usize>::new();
    for round in 0..300 {
        let mut case = Case {
            block: base.block.clone(),
            witness: base.witness.clone(),
        };
        if round % 2 == 0 {
            let at = next() as usize % case.block.len();
            case.block[at] ^= 1 << (next() % 8);
        } else {
            let n = next() as usize % case.witness.state.len();
            let mut node = case.witness.state[n].to_vec();
            let at = next() as usize % node.len();
            node[at] ^= 1 << (next() % 8);
            case.witness.state[n] = Bytes::from(node);
        }
        let result = std::panic::catch_unwind(|| validate(&case));
        let verdict = result.unwrap_or_else(|_| panic!("round {round}: validation panicked"));
        // A flipped header bit nothing depends on (mix_hash, extra_data) is another valid
        // block: the verdict must then commit to that other block's hash. A corrupted but
        // unneeded witness node leaves the original block valid.
        if let (0, Ok(out)) = (round % 2, &verdict) {
            assert_ne!(
                out.block_hash, original,
                "round {round}: corrupted block kept the original hash"
            );
        }
        let tally = if round % 2 == 0 {
            &mut block_verdicts
        } else {
            &mut witness_verdicts
        };
        *tally.entry(Verdict::of(&verdict).name()).or_default() += 1;
    }
    println!("random corruption: blocks {block_verdicts:?}, witnesses {witness_verdicts:?}");
    // Every corrupted block byte is inside the hashed header or body: each is rejected.
    assert_eq!(block_verdicts.get("valid"), None, "{block_verdicts:?}");
    // Every node of this witness is needed, and a corrupted node no longer hashes to its
    // reference: the witness is insufficient, and the block is never blamed for it.
    assert_eq!(
        witness_verdicts.get("insufficient"),
        Some(&150),
        "{witness_verdicts:?}"
    );
}

/// The guest's whole input (block, witness, chain config), corrupted at random bytes, never
/// panics the decoder or the validator, and a corrupted input is never valid for another
/// block under the original block's hash.
#[test]
fn corrupted_guest_inputs_never_panic() {
    let blocks = tests::project_blocks_dir();
    let run = host::native::run_native(&blocks, "devnet-small", None).unwrap();
    let original = *run.verdict.as_ref().unwrap();
    let items = run.guest_input();
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
    let (mut undecodable, mut rejected, mut valid) = (0, 0, 0);
    let mut trailing_refused = 0;
    for round in 0..400 {
        // Bit flips in the head or in witness items; every tenth round, a byte after the head.
        let mut input = items.clone();
        for _ in 0..1 + next() % 3 {
            let item = &mut input[next() as usize % items.len()];
            if !item.is_empty() {
                let at = next() as usize % item.len();
                item[at] ^= 1 << (next() % 8);
            }
        }
        if round % 10 == 0 {
            input[0].push(next() as u8);
        }
        let result = std::panic::catch_unwind(|| {
            program::GuestInput::from_items(&input).map(|i| (i.validate(), i.block.clone()))
        })
        .unwrap_or_else(|_| panic!("round {round}: panicked"));
        // A byte after the head is refused by the decoder, whatever else was flipped.
        if round % 10 == 0 && result.is_err() {
            trailing_refused += 1;
        }
        match result {
            Err(_) => undecodable += 1,
            Ok((Err(_), _)) => rejected += 1,
            Ok((Ok(out), block)) => {
                valid += 1;
                // Still valid: the same block bytes give the same block and post-state (a
                // corrupted witness cannot move them); other block bytes are another block.
                if block.as_ref() == run.data.block_rlp.as_slice() {
                    assert_eq!(out, original, "round {round}");
                } else {
                    assert_ne!(out.block_hash, original.block_hash, "round {round}");
                }
            }
        }
    }
    println!("corrupted inputs: {undecodable} undecodable, {rejected} rejected, {valid} valid");
    assert_eq!(
        trailing_refused, 40,
        "every input with a byte after its head is refused"
    );
    // Flips land in the head (block, headers, config) and in witness items alike: some inputs
    // no longer decode, and some decode into a block that validation rejects.
    assert!(undecodable > 40 && rejected > 0, "{undecodable} {rejected}");
}
