//! `host fetch` through alloy's real client against a JSON-RPC server on 127.0.0.1 serving
//! mainnet block 24171384 from `../shared/blocks/mainnet/`, honestly and not.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use fetch::{fetch, BlockSource, FetchError, FetchOptions, Fetched, WitnessSource};
use program::ChainConfig;
use serde_json::Value;
use tests::rpc::{MainnetNode, Reply, RpcServer};
use tests::{shared_blocks_dir, Scratch, MAINNET};

const BLOCK: u64 = 24171384;

fn fast() -> FetchOptions {
    FetchOptions {
        timeout: Duration::from_secs(30),
        retries: 2,
        backoff: Duration::from_millis(20),
        ..FetchOptions::default()
    }
}

/// Fetches `block` from `url` into `dir` under mainnet rules, with [`fast`] options.
fn get(url: &str, block: u64, dir: &Path) -> Result<Fetched, FetchError> {
    fetch(url, block, dir, &ChainConfig::mainnet(), fast())
}

fn files_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

fn honest() -> RpcServer {
    let node = MainnetNode::new(BLOCK);
    RpcServer::start(move |method, params| node.answer(method, params))
}

#[test]
fn fetches_validates_and_writes_the_raw_block() {
    let server = honest();
    let dir = Scratch::empty("fetch-raw");
    let fetched = get(&server.url, BLOCK, &dir).unwrap();
    assert_eq!(fetched.report.source, BlockSource::RawBlock);
    assert_eq!(fetched.report.output.block_hash.to_string(), MAINNET[0].1);
    assert_eq!(
        server.methods(),
        ["debug_getRawBlock", "debug_executionWitness"]
    );
    // The files are the node's bytes, and load back into the same valid block.
    let shared = shared_blocks_dir().join("mainnet");
    assert_eq!(
        std::fs::read(&fetched.report.paths.0).unwrap(),
        std::fs::read(shared.join(format!("{BLOCK}.block.rlp"))).unwrap()
    );
    let run = host::native::run_native(&dir, &BLOCK.to_string(), None).unwrap();
    assert_eq!(run.verdict.unwrap(), fetched.report.output);
    let original = chaindata::blocks::load(&shared, &BLOCK.to_string()).unwrap();
    assert_eq!(run.data.witness, original.witness);
    assert_eq!(run.data.keys, original.keys);
}

#[test]
fn falls_back_to_the_full_block_when_raw_blocks_are_not_served() {
    let node = MainnetNode::new(BLOCK);
    let server = RpcServer::start(move |method, params| match method {
        "debug_getRawBlock" => Reply::Error(
            -32601,
            "the method debug_getRawBlock does not exist/is not available".into(),
        ),
        _ => node.answer(method, params),
    });
    let dir = Scratch::empty("fetch-full");
    let fetched = get(&server.url, BLOCK, &dir).unwrap();
    assert_eq!(fetched.report.source, BlockSource::FullBlock);
    assert_eq!(
        server.methods(),
        [
            "debug_getRawBlock",
            "eth_getBlockByNumber",
            "debug_executionWitness"
        ]
    );
    // Re-encoding the JSON block gives back the exact mainnet bytes.
    let shared = shared_blocks_dir().join(format!("mainnet/{BLOCK}.block.rlp"));
    assert_eq!(
        std::fs::read(&fetched.report.paths.0).unwrap(),
        std::fs::read(shared).unwrap()
    );
}

#[test]
fn a_node_without_the_witness_method_is_named() {
    let node = MainnetNode::new(BLOCK);
    let server = RpcServer::start(move |method, params| match method {
        "debug_executionWitness" => Reply::Error(-32601, "method not found".into()),
        _ => node.answer(method, params),
    });
    let dir = Scratch::empty("fetch-nowitness");
    let options = FetchOptions {
        source: WitnessSource::Debug,
        ..fast()
    };
    let err = fetch(&server.url, BLOCK, &dir, &ChainConfig::mainnet(), options).unwrap_err();
    assert!(
        matches!(
            err,
            FetchError::MethodNotSupported {
                method: "debug_executionWitness",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("archive node"), "{err}");
    assert_eq!(files_in(&dir), 0);
}

#[test]
fn an_unknown_block_is_not_found() {
    let server = honest();
    let dir = Scratch::empty("fetch-notfound");
    let err = get(&server.url, BLOCK + 1, &dir).unwrap_err();
    assert!(
        matches!(err, FetchError::BlockNotFound { block, method: "debug_getRawBlock", .. } if block == BLOCK + 1),
        "{err}"
    );
    // The full-block fallback's `null` is "not found" too.
    let node = MainnetNode::new(BLOCK);
    let server = RpcServer::start(move |method, params| match method {
        "debug_getRawBlock" => Reply::Error(-32601, "not supported".into()),
        _ => node.answer(method, params),
    });
    let err = get(&server.url, BLOCK + 1, &dir).unwrap_err();
    assert!(
        matches!(
            err,
            FetchError::BlockNotFound {
                method: "eth_getBlockByNumber",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_corrupt_witness_is_rejected_and_nothing_is_written() {
    let node = MainnetNode::new(BLOCK);
    let mut witness = node.witness.clone();
    // Drop the first state node that the block needs: the pre-state root.
    let root = {
        let data = tests::mainnet_block(BLOCK);
        let parent = data.witness.headers.last().unwrap().clone();
        program::witness::header_state_root(&parent).unwrap()
    };
    let state = witness["state"].as_array_mut().unwrap();
    let before = state.len();
    state.retain(|node| {
        let bytes = alloy_primitives::hex::decode(node.as_str().unwrap()).unwrap();
        alloy_primitives::keccak256(bytes) != root
    });
    assert_eq!(state.len(), before - 1);
    let server = RpcServer::start(move |method, params| match method {
        "debug_executionWitness" => Reply::Result(witness.clone()),
        _ => node.answer(method, params),
    });
    let dir = Scratch::empty("fetch-corrupt");
    let err = get(&server.url, BLOCK, &dir).unwrap_err();
    let FetchError::Invalid { block, source, .. } = &err else {
        panic!("expected Invalid, got {err}");
    };
    assert_eq!(*block, BLOCK);
    assert!(source.to_string().contains(&root.to_string()), "{source}");
    assert_eq!(files_in(&dir), 0);

    // A witness that is not even the method's shape is a bad response.
    let node = MainnetNode::new(BLOCK);
    let server = RpcServer::start(move |method, params| match method {
        "debug_executionWitness" => Reply::Result(Value::String("0xdead".into())),
        _ => node.answer(method, params),
    });
    let err = get(&server.url, BLOCK, &dir).unwrap_err();
    assert!(
        matches!(
            err,
            FetchError::BadResponse {
                method: "debug_executionWitness",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_node_that_answers_the_wrong_block_is_caught() {
    let other = MainnetNode::new(21882667);
    let server = RpcServer::start(move |method, _| match method {
        "debug_getRawBlock" => Reply::Result(other.raw_block.clone()),
        "debug_executionWitness" => Reply::Result(other.witness.clone()),
        _ => Reply::Error(-32601, "no".into()),
    });
    let err = get(&server.url, BLOCK, &Scratch::empty("fetch-wrong")).unwrap_err();
    assert!(
        matches!(err, FetchError::WrongBlock { block: BLOCK, .. }),
        "{err}"
    );
}

#[test]
fn a_slow_node_times_out_after_the_retries() {
    let server = RpcServer::start(|_, _| {
        Reply::Delayed(Duration::from_secs(3), Box::new(Reply::Result(Value::Null)))
    });
    let options = FetchOptions {
        timeout: Duration::from_millis(300),
        retries: 1,
        backoff: Duration::from_millis(10),
        ..FetchOptions::default()
    };
    let err = fetch(
        &server.url,
        BLOCK,
        &Scratch::empty("fetch-slow"),
        &ChainConfig::mainnet(),
        options,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            FetchError::Timeout {
                attempts: 2,
                method: "debug_getRawBlock",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(server.methods().len(), 2);
}

#[test]
fn server_errors_are_retried_until_the_node_answers() {
    let node = MainnetNode::new(BLOCK);
    let failures = AtomicUsize::new(0);
    let server = RpcServer::start(move |method, params| {
        if method == "debug_getRawBlock" && failures.fetch_add(1, Ordering::SeqCst) < 2 {
            return Reply::Http(503);
        }
        node.answer(method, params)
    });
    let fetched = get(&server.url, BLOCK, &Scratch::empty("fetch-retry")).unwrap();
    assert_eq!(fetched.report.output.block_hash.to_string(), MAINNET[0].1);
    assert_eq!(
        server.methods(),
        [
            "debug_getRawBlock",
            "debug_getRawBlock",
            "debug_getRawBlock",
            "debug_executionWitness"
        ]
    );

    // A node that keeps failing: the HTTP status, after every retry.
    let server = RpcServer::start(|_, _| Reply::Http(502));
    let err = get(&server.url, BLOCK, &Scratch::empty("fetch-retry2")).unwrap_err();
    assert!(matches!(err, FetchError::Http { status: 502, .. }), "{err}");
    assert_eq!(server.methods().len(), 3);

    // Other JSON-RPC errors are answers: not retried, reported with their code.
    let server = RpcServer::start(|_, _| Reply::Error(-32000, "internal failure".into()));
    let err = get(&server.url, BLOCK, &Scratch::empty("fetch-retry3")).unwrap_err();
    assert!(matches!(err, FetchError::Rpc { code: -32000, .. }), "{err}");
    assert_eq!(server.methods().len(), 1);
}

#[test]
fn an_unreachable_node_and_a_bad_url_are_named() {
    // A port nothing listens on: bind, note it, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let err = get(&url, BLOCK, &Scratch::empty("fetch-down")).unwrap_err();
    assert!(
        matches!(&err, FetchError::Unreachable { attempts: 3, url: u, .. } if *u == url),
        "{err}"
    );
    let err = get("not a url", BLOCK, &Scratch::empty("fetch-badurl")).unwrap_err();
    assert!(matches!(err, FetchError::BadUrl { .. }), "{err}");
}

#[test]
fn missing_block_files_name_the_files_and_the_fetch_command() {
    let dir = Scratch::empty("fetch-missing");
    let err = chaindata::blocks::locate(std::slice::from_ref(&*dir), "24001988").unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(&dir.join("24001988.block.rlp").display().to_string()),
        "{text}"
    );
    assert!(
        text.contains(&dir.join("24001988.witness.json").display().to_string()),
        "{text}"
    );
    assert!(
        text.contains("host fetch --block 24001988 --rpc-url"),
        "{text}"
    );
    // Only the witness missing: only the witness is named.
    std::fs::write(dir.join("24001988.block.rlp"), b"").unwrap();
    let err = chaindata::blocks::locate(std::slice::from_ref(&*dir), "24001988").unwrap_err();
    assert_eq!(err.missing, [dir.join("24001988.witness.json")]);
}

#[test]
fn run_fetches_only_what_is_missing() {
    use host::target::{ResolveError, Target};
    let server = honest();
    let (cache, id) = (Scratch::empty("fetch-locate"), BLOCK.to_string());
    let mut target = Target::on_disk(&cache, &id, None);
    // Missing, no URL: the missing files, no request.
    let err = target.resolve(fast()).unwrap_err();
    assert!(matches!(err, ResolveError::Missing(_)), "{err}");
    assert!(server.methods().is_empty());
    // Missing, with a URL: fetched into the blocks directory, and loaded from the fetch.
    target.rpc_url = Some(server.url.clone());
    let resolved = target.resolve(fast()).unwrap();
    assert_eq!(resolved.dir, *cache);
    let fetched = resolved.fetched.expect("fetched");
    assert_eq!(fetched.output.block_hash.to_string(), MAINNET[0].1);
    assert_eq!(resolved.data.block_hash(), fetched.output.block_hash);
    assert_eq!(server.methods().len(), 2);
    // Present: found, nothing fetched.
    let resolved = target.resolve(fast()).unwrap();
    assert_eq!(
        (resolved.dir, resolved.fetched.is_none()),
        (cache.clone(), true)
    );
    assert_eq!(server.methods().len(), 2);
    // A name, not a number: nothing a node could serve.
    target.block = "devnet-x".into();
    let err = target.resolve(fast()).unwrap_err();
    assert!(matches!(err, ResolveError::NotANumber(_)), "{err}");
}
