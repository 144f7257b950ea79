//! `host fetch` from nodes without the debug namespace: the witness built from `eth_getProof`,
//! `eth_getCode`, `eth_getStorageAt` and `eth_getBlockByNumber` (`fetch::proofs`), served
//! over real HTTP from a block's state (`tests::state_rpc`): the devnet (its whole genesis
//! state) and mainnet 21882667, whose deletions fold branches into siblings that only the
//! post-state proofs give. The result validates to what the debug witness gives; a node that
//! lies about a balance or sends a node that does not hash is caught, naming the account or
//! slot.

use std::path::Path;
use std::time::Duration;

use fetch::{fetch, BlockSource, FetchError, FetchOptions, WitnessSource};
use program::ChainConfig;
use serde_json::Value;
use tests::rpc::Reply;
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

/// 21882667's fee recipient: an account every block reads.
fn coinbase() -> String {
    let data = tests::mainnet_block(21882667);
    format!("{:#x}", data.header.beneficiary)
}

fn fetch_from_liar(edit: impl Fn(&str, Reply) -> Reply + Send + Sync + 'static) -> FetchError {
    let dir = shared_blocks_dir().join("mainnet");
    fetch_from_liar_at(&dir, "21882667", ChainConfig::mainnet(), edit)
}

/// Fetches block `id` of `dir` with the proofs source from a node whose answers `edit` changes;
/// the fetch must fail, writing nothing. Returns its error.
fn fetch_from_liar_at(
    dir: &Path,
    id: &str,
    chain: ChainConfig,
    edit: impl Fn(&str, Reply) -> Reply + Send + Sync + 'static,
) -> FetchError {
    let (server, number) = standard_node(dir, id, chain.clone(), edit);
    let out = Scratch::absent(&format!("fetch-proofs-liar-{id}"));
    let result = fetch(
        &server.url,
        number,
        &out,
        &chain,
        options(WitnessSource::Proofs),
    );
    assert!(!out.exists(), "nothing is written");
    match result {
        Ok(_) => panic!("a lying node's witness was accepted"),
        Err(e) => e,
    }
}

#[test]
fn a_node_that_lies_about_a_balance_is_caught_naming_the_account() {
    let target = coinbase();
    let liar = target.clone();
    let err = fetch_from_liar(move |method, reply| match reply {
        Reply::Result(mut v)
            if method == "eth_getProof"
                && v["address"].as_str().map(str::to_lowercase) == Some(liar.clone()) =>
        {
            v["balance"] = Value::from("0x1");
            Reply::Result(v)
        }
        other => other,
    });
    match &err {
        FetchError::BadProof { what, .. } => {
            assert!(what.to_lowercase().contains(&target), "{err}")
        }
        other => panic!("expected a bad proof, got {other}"),
    }
}

/// A node whose `eth_getStorageAt` answers differ from what its own storage proofs prove: the
/// value execution ran on is held to the verified proof, and the error names the slot. (The
/// devnet, served from its whole state, so that execution on the lies reads only what the node
/// can prove.)
#[test]
fn a_node_that_lies_about_a_slot_value_is_caught_naming_the_slot() {
    let dir = tests::project_blocks_dir();
    let chain = host::native::run_native(&dir, "devnet", None)
        .unwrap()
        .chain;
    let err = fetch_from_liar_at(&dir, "devnet", chain, |method, reply| match reply {
        Reply::Result(Value::String(value)) if method == "eth_getStorageAt" => {
            let lie = if value.ends_with('7') { "0x8" } else { "0x7" };
            Reply::Result(Value::from(lie))
        }
        other => other,
    });
    match &err {
        FetchError::BadResponse { method, reason } => {
            assert_eq!(*method, "eth_getProof");
            assert!(
                reason.starts_with("slot 0x") && reason.contains("eth_getStorageAt gave"),
                "{err}"
            );
        }
        other => panic!("expected a bad response, got {other}"),
    }
}

/// A node that answers the proof of another slot than the one asked for is refused.
#[test]
fn a_proof_of_another_slot_is_refused() {
    let err = fetch_from_liar(|method, reply| match reply {
        Reply::Result(mut v) if method == "eth_getProof" => {
            let proofs = v["storageProof"].as_array_mut();
            if let Some(proofs) = proofs.filter(|p| p.len() >= 2) {
                proofs.swap(0, 1);
            }
            Reply::Result(v)
        }
        other => other,
    });
    match &err {
        FetchError::BadResponse { reason, .. } => {
            assert!(reason.contains("answered with a proof of slot"), "{err}")
        }
        other => panic!("expected a bad response, got {other}"),
    }
}

/// Appends `0x` to every exclusion proof of `v` (an `eth_getProof` answer), as some real archive
/// nodes answer; returns how many it changed.
fn end_exclusions_with_an_empty_element(v: &mut Value) -> usize {
    let mut changed = 0;
    for slot in v["storageProof"].as_array_mut().into_iter().flatten() {
        let zero = slot["value"].as_str().is_some_and(|s| {
            s.trim_start_matches("0x")
                .trim_start_matches('0')
                .is_empty()
        });
        if zero {
            slot["proof"]
                .as_array_mut()
                .unwrap()
                .push(Value::from("0x"));
            changed += 1;
        }
    }
    changed
}

/// Real nodes' proofs hold empty elements, which prove nothing: at the end of an exclusion
/// proof, and between two nodes (`[branch, 0x, leaf]`). Both are accepted and the witness
/// validates as the debug one does; the hash links decide what a proof proves, so a node
/// missing where the empty element stands is refused.
#[test]
fn empty_elements_are_dropped_and_the_hash_links_decide() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let dir = shared_blocks_dir().join("mainnet");
    let run = host::native::run_native(&dir, "21882667", None).unwrap();
    let expected = run.verdict.clone().unwrap();
    let (tails, middles) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (tail_count, middle_count) = (tails.clone(), middles.clone());
    let (server, number) =
        standard_node(&dir, "21882667", run.chain.clone(), move |m, r| match r {
            Reply::Result(mut v) if m == "eth_getProof" => {
                tail_count.fetch_add(
                    end_exclusions_with_an_empty_element(&mut v),
                    Ordering::Relaxed,
                );
                middle_count.fetch_add(empty_elements_between_nodes(&mut v), Ordering::Relaxed);
                Reply::Result(v)
            }
            other => other,
        });
    let out = Scratch::absent("fetch-proofs-empty-elements");
    let fetched = fetch(
        &server.url,
        number,
        &out,
        &run.chain,
        options(WitnessSource::Proofs),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fetched.report.output, expected);
    assert!(
        tails.load(Ordering::Relaxed) > 0,
        "no exclusion proof served"
    );
    assert!(
        middles.load(Ordering::Relaxed) > 0,
        "no proof of two nodes or more served"
    );
    // No empty node reaches the witness.
    let written = chaindata::blocks::load(&out, &number.to_string()).unwrap();
    assert!(written.witness.state.iter().all(|n| !n.is_empty()));
    let _ = std::fs::remove_dir_all(&out);

    // The node after a storage proof's first one replaced by an empty element: the chain of
    // hashes breaks there, and the proof is refused.
    let err = fetch_from_liar(|method, reply| match reply {
        Reply::Result(mut v) if method == "eth_getProof" => {
            for slot in v["storageProof"].as_array_mut().into_iter().flatten() {
                let proof = slot["proof"].as_array_mut().unwrap();
                if proof.len() >= 2 {
                    proof[1] = Value::from("0x");
                }
            }
            Reply::Result(v)
        }
        other => other,
    });
    match &err {
        FetchError::BadProof { what, .. } => assert!(what.starts_with("slot "), "{err}"),
        other => panic!("expected a bad proof, got {other}"),
    }
}

/// Puts an empty element before a proof's first node and between every two of its nodes (the
/// `[branch, 0x, leaf]` shape real nodes answer); returns how many went between two nodes.
fn empty_elements_between_nodes(v: &mut Value) -> usize {
    let mut between = 0;
    let mut spread = |proof: &mut Value| {
        let nodes = proof.as_array_mut().unwrap();
        let mut spread = vec![Value::from("0x")];
        for (k, node) in nodes.drain(..).enumerate() {
            if k > 0 {
                spread.push(Value::from("0x"));
                between += 1;
            }
            spread.push(node);
        }
        *nodes = spread;
    };
    spread(&mut v["accountProof"]);
    for slot in v["storageProof"].as_array_mut().into_iter().flatten() {
        spread(&mut slot["proof"]);
    }
    between
}

#[test]
fn a_proof_node_that_does_not_hash_is_rejected_naming_the_slot() {
    let err = fetch_from_liar(|method, reply| match reply {
        Reply::Result(mut v) if method == "eth_getProof" => {
            if let Some(node) = v["storageProof"][0]["proof"][0].as_str() {
                // Flip the last hex digit of the storage root node.
                let mut node = node.to_owned();
                let last = node.pop().unwrap();
                node.push(if last == '0' { '1' } else { '0' });
                v["storageProof"][0]["proof"][0] = Value::from(node);
            }
            Reply::Result(v)
        }
        other => other,
    });
    match &err {
        FetchError::BadProof { what, .. } => assert!(what.starts_with("slot "), "{err}"),
        other => panic!("expected a bad proof, got {other}"),
    }
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
