//! Real blocks over witnesses shaped like `eth_getProof` answers (`tests::proofs`): the proofs
//! of every key the block reads, in the parent's state, and of every key it deletes, in the
//! post-state. They validate to the same verdict and post-state root as the complete
//! `debug_executionWitness` witness, deriving the siblings that deletions fold into
//! (`mpt::trie::orphan`); without the post-state proofs those siblings are missing, and the
//! verdict says the witness is insufficient, never invalid.

use std::path::Path;

use program::{ExecutionWitness, ValidationError, Verdict};
use tests::proofs::proof_witness;
use tests::shared_blocks_dir;

/// Validates `id` from `dir` over its proof-shaped witness; returns the siblings derived.
fn check(dir: &Path, id: &str) -> usize {
    let run = host::native::run_native(dir, id, None).unwrap();
    let expected = run.verdict.clone().expect("the complete witness validates");
    let data = &run.data;
    let shaped = proof_witness(&data.block_rlp, &data.witness, &run.chain);
    assert!(shaped.accounts > 0, "{id}: accounts proven");
    let store = shaped.witness.store();
    let valid =
        program::validate_block_over(&data.block_rlp, &shaped.witness.headers, &store, &run.chain)
            .unwrap_or_else(|e| panic!("{id}: the proof-shaped witness must validate: {e}"));
    assert_eq!(valid.output, expected, "{id}: same verdict and roots");
    let derived = valid.post_state.derived_nodes();
    println!(
        "{id}: {} accounts, {} slots, {} deletions ({} post-state nodes); {} of {} nodes; {derived} siblings derived",
        shaped.accounts,
        shaped.slots,
        shaped.deleted,
        shaped.post_nodes,
        shaped.witness.state.len(),
        data.witness.state.len(),
    );
    if derived > 0 {
        // The siblings come from the post-state proofs alone: without them, insufficient.
        let pre_only = pre_state_only(&shaped.witness, &data.witness);
        match program::validate_block(&data.block_rlp, &pre_only, &run.chain) {
            Err(e @ ValidationError::StateUpdate(_)) => {
                assert_eq!(e.verdict(), Verdict::Insufficient);
                assert!(e.to_string().contains("missing trie node"), "{id}: {e}");
            }
            other => panic!("{id}: expected a missing sibling, got {other:?}"),
        }
    }
    derived
}

/// `shaped` without the nodes that are not in the complete witness (the post-state proofs'
/// new nodes); the complete witness's nodes the proofs hold stay.
fn pre_state_only(shaped: &ExecutionWitness, complete: &ExecutionWitness) -> ExecutionWitness {
    let complete: std::collections::HashSet<_> = complete.state.iter().collect();
    ExecutionWitness {
        state: shaped
            .state
            .iter()
            .filter(|n| complete.contains(n))
            .cloned()
            .collect(),
        ..shaped.clone()
    }
}

#[test]
fn mainnet_blocks_validate_over_proof_shaped_witnesses() {
    let dir = shared_blocks_dir().join("mainnet");
    let derived: usize = ["24171384", "21882667"]
        .iter()
        .map(|id| check(&dir, id))
        .sum();
    assert!(
        derived > 0,
        "real deletions fold into siblings only the post-state proves"
    );
}

#[test]
fn devnet_blocks_validate_over_proof_shaped_witnesses() {
    let dir = tests::project_blocks_dir();
    for id in ["devnet", "devnet-small"] {
        check(&dir, id);
    }
}

/// Every valid block of the EF blockchain tests (6,613 blocks of valid and invalid chains, state
/// tests, fork transitions: self-destructs, accounts emptied, storage cleared) over its
/// proof-shaped witness: the same verdict and roots, or, where a deletion folds a branch into a
/// sibling that is itself a branch, that sibling named missing (no post-state proof proves it;
/// `host fetch` gets it by the proof of a key through its path). Measured: 118 accounts
/// deleted, 13 siblings derived, no branch sibling.
#[test]
fn ef_blocks_validate_over_proof_shaped_witnesses() {
    let root = shared_blocks_dir().join("../ef-tests/BlockchainTests");
    let files = host::ef_tests::discover(&[root]).unwrap();
    let (mut blocks, mut accounts, mut derived, mut branches) = (0, 0, 0, 0);
    for file in &files {
        host::ef_tests::run_file_cases(file, |_| true, &mut |v| {
            let Ok(expected) = v.result else {
                return;
            };
            let shaped = proof_witness(v.block, v.witness, v.chain);
            let store = shaped.witness.store();
            blocks += 1;
            accounts += shaped.deleted_accounts;
            match program::validate_block_over(v.block, &shaped.witness.headers, &store, v.chain) {
                Ok(valid) => {
                    assert_eq!(&valid.output, expected, "{}", file.display());
                    derived += valid.post_state.derived_nodes();
                }
                Err(ValidationError::StateUpdate(e)) => {
                    let hash = missing_hash(&e).unwrap_or_else(|| panic!("{e}"));
                    let node = v
                        .witness
                        .state
                        .iter()
                        .find(|n| alloy_primitives::keccak256(n) == hash);
                    let node = node.expect("the complete witness has it");
                    assert!(
                        matches!(
                            mpt::trie::RawNode::decode(node),
                            Ok(mpt::trie::RawNode::Branch(_))
                        ),
                        "{}: only a branch sibling may be missing: {e}",
                        file.display()
                    );
                    branches += 1;
                }
                Err(e) => panic!("{}: {e}", file.display()),
            }
        });
    }
    println!(
        "EF blockchain tests: {blocks} valid blocks over proof-shaped witnesses; {accounts} accounts deleted; {derived} siblings derived; {branches} branch siblings missing"
    );
    // Every valid block of the corpus, and the figures measured on it: a block that dropped
    // out, or a deletion that no longer folds, changes them.
    assert_eq!((blocks, accounts, derived, branches), (6613, 118, 13, 0));
}

fn missing_hash(e: &mpt::TrieError) -> Option<alloy_primitives::B256> {
    match e {
        mpt::TrieError::MissingNode { hash, .. } => Some(*hash),
        mpt::TrieError::Storage { source, .. } => missing_hash(source),
        _ => None,
    }
}
