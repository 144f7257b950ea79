//! Nodes that lie: a balance, a slot value, a proof of another slot, proofs padded with empty
//! elements, a node that does not hash. Each fetch fails naming the account or slot, and writes
//! nothing; empty elements alone are dropped and the hash links decide.

use std::path::Path;

use fetch::{fetch, FetchError, WitnessSource};
use program::ChainConfig;
use serde_json::Value;
use tests::rpc::Reply;
use tests::state_rpc::standard_node;
use tests::{shared_blocks_dir, Scratch};

use super::options;

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
