//! `host fetch` from nodes without the debug namespace: the witness built from `eth_getProof`,
//! `eth_getCode`, `eth_getStorageAt` and `eth_getBlockByNumber` (`fetch::proofs`), served
//! over real HTTP from a block's state (`tests::state_rpc`): the devnet (its whole genesis
//! state) and mainnet 21882667, whose deletions fold branches into siblings that only the
//! post-state proofs give. The result validates to what the debug witness gives; a node that
//! lies about a balance or sends a node that does not hash is caught, naming the account or
//! slot.
//!
//! The lying nodes in [`liars`].

mod liars;

use std::path::Path;
use std::time::Duration;

use fetch::{fetch, BlockSource, FetchOptions, WitnessSource};
use tests::state_rpc::{standard_node, standard_node_with};
use tests::{shared_blocks_dir, Scratch};

fn options(source: WitnessSource) -> FetchOptions {
    FetchOptions {
        timeout: Duration::from_secs(30),
        retries: 0,
        backoff: Duration::from_millis(10),
        source,
        concurrency: 4,
    }
}

/// Fetches `<dir>/<id>` from a standard node with `source`; checks the result against the
/// debug witness's verdict and that the written files validate again.
fn fetch_and_compare(
    dir: &Path,
    id: &str,
    source: WitnessSource,
    batches: bool,
) -> fetch::ProofStats {
    let run = host::native::run_native(dir, id, None).unwrap();
    let expected = run.verdict.clone().unwrap();
    let (server, number) = standard_node_with(dir, id, run.chain.clone(), |_, r| r, batches);
    let out = Scratch::absent(&format!("fetch-proofs-{id}"));
    let fetched = fetch(&server.url, number, &out, &run.chain, options(source))
        .unwrap_or_else(|e| panic!("{id}: {e}"));
    let report = &fetched.report;
    assert_eq!(report.output, expected, "{id}: same verdict and roots");
    assert_eq!(report.source, BlockSource::FullBlock);
    assert_eq!(report.witness.0, WitnessSource::Proofs);
    let methods = server.methods();
    assert!(methods.iter().any(|m| m == "eth_getProof"));
    assert!(methods.iter().any(|m| m == "eth_getCode"));
    // The files written load and validate again.
    let written = chaindata::blocks::load(&out, &number.to_string()).unwrap();
    let again = program::validate_block(&written.block_rlp, &written.witness, &run.chain);
    assert_eq!(again.unwrap(), expected);
    let _ = std::fs::remove_dir_all(&out);
    report.witness.1.expect("proof stats")
}

#[test]
fn auto_falls_back_to_proofs_and_resolves_deletions_on_a_mainnet_block() {
    let dir = shared_blocks_dir().join("mainnet");
    let stats = fetch_and_compare(&dir, "21882667", WitnessSource::Auto, true);
    assert!(stats.deleted > 0, "the block deletes slots: {stats:?}");
    assert!(stats.accounts > 100 && stats.slots > 100, "{stats:?}");
    // The proofs of the accounts with slots read, and of the deleted keys, 16 to a batch.
    assert!(stats.batches > 1, "{stats:?}");
}

#[test]
fn a_node_that_refuses_batches_gets_single_requests() {
    let dir = shared_blocks_dir().join("mainnet");
    let stats = fetch_and_compare(&dir, "24171384", WitnessSource::Proofs, false);
    assert_eq!(stats.batches, 0, "{stats:?}");
    assert!(stats.deleted > 0, "{stats:?}");
}

#[test]
fn the_devnet_from_its_whole_state_with_the_proofs_source() {
    let dir = tests::project_blocks_dir();
    let stats = fetch_and_compare(&dir, "devnet", WitnessSource::Proofs, true);
    assert!(
        stats.accounts > 0 && stats.requests > stats.accounts,
        "{stats:?}"
    );
}

/// The fetcher completes a witness that lacks a node a deletion's collapse needs by the
/// parent's proof of a key through that node's path (how it gets a branch sibling, which no
/// post-state proof gives). 21882667's complete witness without one of the siblings its
/// deletions fold into (a shallow one: the search costs ~16^depth hashes).
#[test]
fn a_missing_sibling_is_fetched_by_the_proof_of_a_key_through_its_path() {
    let dir = shared_blocks_dir().join("mainnet");
    let run = host::native::run_native(&dir, "21882667", None).unwrap();
    let expected = run.verdict.clone().unwrap();
    let data = &run.data;
    let shaped = tests::proofs::proof_witness(&data.block_rlp, &data.witness, &run.chain);
    // The complete witness's nodes no proof holds: the siblings. Drop one at a short path.
    let proven: std::collections::HashSet<_> = shaped.witness.state.iter().collect();
    let mut witness = data
        .witness
        .state
        .iter()
        .filter(|n| !proven.contains(n))
        .find_map(|sibling| {
            let mut witness = data.witness.clone();
            witness.state.retain(|n| n != sibling);
            match program::validate_block(&data.block_rlp, &witness, &run.chain) {
                Err(program::ValidationError::StateUpdate(mpt::TrieError::Storage {
                    source,
                    ..
                })) if matches!(*source, mpt::TrieError::MissingNode { path, .. } if path.0.len() <= 5) => {
                    Some(witness)
                }
                _ => None,
            }
        })
        .expect("a sibling at a path of at most 5 nibbles");

    let (server, number) = standard_node(&dir, "21882667", run.chain.clone(), |_, r| r);
    let requests = fetch::siblings::complete_witness(
        &server.url,
        options(WitnessSource::Proofs),
        number - 1,
        expected.pre_state_root,
        shaped.addresses.clone(),
        &data.block_rlp,
        &run.chain,
        &mut witness,
    )
    .unwrap();
    assert_eq!(requests, 1, "one proof for the missing sibling");
    let valid = program::validate_block(&data.block_rlp, &witness, &run.chain).unwrap();
    assert_eq!(valid, expected);
}

/// An EF state test's block that empties accounts (and clears storage), served from its whole
/// pre-state by a node with standard methods only: fetched with the proofs source, it gives the
/// runner's verdict and roots.
#[test]
fn a_block_that_deletes_accounts_is_fetched_from_proofs() {
    let root = shared_blocks_dir().join("../ef-tests/BlockchainTests/GeneralStateTests");
    let files = host::ef_tests::discover(&[root]).unwrap();
    let dir = Scratch::absent("fetch-proofs-ef-deletes");
    let mut found = None;
    for file in &files {
        host::ef_tests::run_file_cases(file, |_| true, &mut |v| {
            let Ok(output) = v.result else { return };
            if found.is_some() || v.witness.headers.len() != 1 {
                return;
            }
            let shaped = tests::proofs::proof_witness(v.block, v.witness, v.chain);
            if shaped.deleted_accounts == 0 {
                return;
            }
            // The block's files, as `host fetch` writes them.
            let hex = |items: &[alloy_primitives::Bytes]| -> Vec<String> {
                items.iter().map(|b| format!("{b}")).collect()
            };
            let witness = serde_json::json!({
                "state": hex(&v.witness.state),
                "codes": hex(&v.witness.codes),
                "keys": [],
                "headers": hex(&v.witness.headers),
            });
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("ef.block.rlp"), v.block).unwrap();
            std::fs::write(dir.join("ef.witness.json"), witness.to_string()).unwrap();
            found = Some((*output, v.chain.clone(), shaped.deleted_accounts));
        });
        if found.is_some() {
            break;
        }
    }
    let (expected, chain, deleted) = found.expect("a block that deletes accounts");
    let (server, number) = standard_node(&dir, "ef", chain.clone(), |_, r| r);
    let out = dir.join("fetched");
    let fetched = fetch(
        &server.url,
        number,
        &out,
        &chain,
        options(WitnessSource::Auto),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fetched.report.output, expected);
    let stats = fetched.report.witness.1.expect("from proofs");
    assert!(stats.deleted >= deleted, "{stats:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
