//! `host fetch` of real-sized blocks served locally over HTTP (`cargo bench -p tests --bench
//! fetch`): from a node with `debug_executionWitness`, and from one with standard methods only
//! (`--source proofs`). Prints requests, bytes and time per block; asserts nothing about time.
//! A local node answers in microseconds: against a remote one, the proofs source pays a round
//! trip per request of the execution pass (sequential) and per `--concurrency` proofs after it.

use std::time::{Duration, Instant};

use fetch::{fetch, FetchOptions, WitnessSource};
use program::ChainConfig;
use tests::rpc::{MainnetNode, RpcServer};
use tests::shared_blocks_dir;
use tests::state_rpc::standard_node;

fn main() {
    let dir = shared_blocks_dir().join("mainnet");
    let out = std::env::temp_dir().join(format!("sv-fetch-bench-{}", std::process::id()));
    let options = |source| FetchOptions {
        source,
        timeout: Duration::from_secs(60),
        ..FetchOptions::default()
    };
    for id in ["24171384", "21882667"] {
        let (server, number) = standard_node(&dir, id, ChainConfig::mainnet(), |_, reply| reply);
        let started = Instant::now();
        let fetched = fetch(
            &server.url,
            number,
            &out,
            &ChainConfig::mainnet(),
            options(WitnessSource::Proofs),
        )
        .expect("fetch from proofs");
        let elapsed = started.elapsed();
        let stats = fetched.report.witness.1.expect("proof stats");
        let w = &fetched.data.witness;
        println!(
            "{id} from proofs: {:.2} s, {} requests (the proofs after execution in {} batches), {} bytes of nodes, codes and headers; {} accounts, {} slots, {} deleted; witness {} nodes, {} codes, {} headers",
            elapsed.as_secs_f64(),
            stats.requests,
            stats.batches,
            stats.bytes,
            stats.accounts,
            stats.slots,
            stats.deleted,
            w.state.len(),
            w.codes.len(),
            w.headers.len()
        );

        let node = MainnetNode::load(&dir, id);
        let server = RpcServer::start(move |method, params| node.answer(method, params));
        let started = Instant::now();
        let fetched = fetch(
            &server.url,
            number,
            &out,
            &ChainConfig::mainnet(),
            options(WitnessSource::Debug),
        )
        .expect("fetch from debug_executionWitness");
        let w = &fetched.data.witness;
        let bytes: usize = w
            .state
            .iter()
            .chain(&w.codes)
            .chain(&w.headers)
            .map(|b| b.len())
            .sum();
        println!(
            "{id} from debug_executionWitness: {:.2} s, {} requests, {bytes} bytes of nodes, codes and headers; witness {} nodes, {} codes, {} headers",
            started.elapsed().as_secs_f64(),
            server.methods().len(),
            w.state.len(),
            w.codes.len(),
            w.headers.len()
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
