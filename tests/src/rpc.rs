//! A JSON-RPC server on 127.0.0.1 for the fetch tests: real TCP, real HTTP/1.1, answers built
//! by a handler per request. It serves real mainnet blocks from `../shared/blocks/mainnet/`
//! ([`MainnetNode`]) and can misbehave on purpose (errors, HTTP statuses, delays).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use alloy_consensus::transaction::SignerRecoverable;
use alloy_consensus::{Block, TxEnvelope};
use alloy_primitives::hex;
use alloy_rlp::Decodable;
use serde_json::{json, Value};

/// What the server answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// `{"result": value}`.
    Result(Value),
    /// `{"error": {"code", "message"}}`.
    Error(i64, String),
    /// An HTTP error status with a text body.
    Http(u16),
    /// The reply, after a pause.
    Delayed(Duration, Box<Reply>),
}

type Handler = dyn Fn(&str, &Value) -> Reply + Send + Sync;

/// A running server; stops accepting when dropped.
pub struct RpcServer {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    seen: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl RpcServer {
    /// Starts a server calling `handler(method, params)` for each request, and for each entry
    /// of a JSON-RPC batch.
    pub fn start(handler: impl Fn(&str, &Value) -> Reply + Send + Sync + 'static) -> Self {
        Self::start_with(handler, true)
    }

    /// [`RpcServer::start`] for a node that answers a batch with one error (as some hosted
    /// endpoints do).
    pub fn start_without_batches(
        handler: impl Fn(&str, &Value) -> Reply + Send + Sync + 'static,
    ) -> Self {
        Self::start_with(handler, false)
    }

    fn start_with(
        handler: impl Fn(&str, &Value) -> Reply + Send + Sync + 'static,
        batches: bool,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("local address").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let (seen2, stop2) = (seen.clone(), stop.clone());
        thread::spawn(move || {
            for stream in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (handler, seen) = (handler.clone(), seen2.clone());
                thread::spawn(move || serve(stream, &*handler, &seen, batches));
            }
        });
        Self {
            url: format!("http://127.0.0.1:{port}"),
            seen,
            stop,
            port,
        }
    }

    /// The methods called so far, in order.
    pub fn methods(&self) -> Vec<String> {
        self.seen.lock().expect("not poisoned").clone()
    }
}

impl Drop for RpcServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Reads one HTTP request's body; `None` when the peer closed or sent no request.
fn read_request(stream: &TcpStream) -> Option<Vec<u8>> {
    let mut reader = BufReader::new(stream);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok()?;
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}

fn serve(mut stream: TcpStream, handler: &Handler, seen: &Mutex<Vec<String>>, batches: bool) {
    let Some(body) = read_request(&stream) else {
        return;
    };
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (status, body) = match request.as_array() {
        Some(_) if !batches => {
            seen.lock()
                .expect("not poisoned")
                .push("(batch)".to_owned());
            let refused = json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": -32600, "message": "batch requests are not supported"}});
            (200, refused.to_string())
        }
        Some(entries) => {
            let answers: Vec<Value> = entries
                .iter()
                .map(|entry| match answer(entry, handler, seen) {
                    (200, body) => serde_json::from_str(&body).expect("JSON answer"),
                    (status, _) => json!({"jsonrpc": "2.0", "id": entry["id"],
                        "error": {"code": -32000, "message": format!("status {status}")}}),
                })
                .collect();
            (200, Value::Array(answers).to_string())
        }
        None => answer(&request, handler, seen),
    };
    let content_type = if status == 200 {
        "application/json"
    } else {
        "text/plain"
    };
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}

/// The HTTP status and body answering one JSON-RPC request.
fn answer(request: &Value, handler: &Handler, seen: &Mutex<Vec<String>>) -> (u16, String) {
    let method = request["method"].as_str().unwrap_or_default().to_owned();
    seen.lock().expect("not poisoned").push(method.clone());
    let mut reply = handler(&method, &request["params"]);
    while let Reply::Delayed(pause, inner) = reply {
        thread::sleep(pause);
        reply = *inner;
    }
    match reply {
        Reply::Result(result) => (200, json!({"jsonrpc": "2.0", "id": request["id"], "result": result}).to_string()),
        Reply::Error(code, message) => (
            200,
            json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": code, "message": message}})
                .to_string(),
        ),
        Reply::Http(status) => (status, format!("status {status}")),
        Reply::Delayed(..) => unreachable!("unwrapped above"),
    }
}

/// The block number in `params[0]` (a hex quantity).
pub fn block_param(params: &Value) -> Option<u64> {
    let hex = params.get(0)?.as_str()?.strip_prefix("0x")?;
    u64::from_str_radix(hex, 16).ok()
}

/// The JSON-RPC answers of an archive node that has one real mainnet block.
pub struct MainnetNode {
    /// The block number.
    pub number: u64,
    /// `debug_getRawBlock`'s result.
    pub raw_block: Value,
    /// `debug_executionWitness`'s result.
    pub witness: Value,
    /// `eth_getBlockByNumber(n, true)`'s result.
    pub full_block: Value,
}

impl MainnetNode {
    /// Builds the answers from `../shared/blocks/mainnet/<number>.*`.
    pub fn new(number: u64) -> Self {
        Self::load(
            &crate::shared_blocks_dir().join("mainnet"),
            &number.to_string(),
        )
    }

    /// Builds the answers from `<dir>/<id>.block.rlp` and `<dir>/<id>.witness.json`.
    pub fn load(dir: &std::path::Path, id: &str) -> Self {
        let raw = std::fs::read(dir.join(format!("{id}.block.rlp"))).expect("block file");
        let witness: Value = serde_json::from_slice(
            &std::fs::read(dir.join(format!("{id}.witness.json"))).expect("witness file"),
        )
        .expect("witness JSON");
        let block = Block::<TxEnvelope>::decode(&mut raw.as_slice()).expect("block RLP");
        let number = block.header.number;
        let hash = block.header.hash_slow();
        let full = alloy_rpc_types_eth::Block::from_consensus(block, None).map_transactions(|tx| {
            let sender = tx.recover_signer().expect("mainnet senders recover");
            alloy_rpc_types_eth::Transaction {
                inner: alloy_consensus::transaction::Recovered::new_unchecked(tx, sender),
                block_hash: Some(hash),
                block_number: Some(number),
                transaction_index: None,
                effective_gas_price: None,
                block_timestamp: None,
            }
        });
        Self {
            number,
            raw_block: json!(format!("0x{}", hex::encode(&raw))),
            witness,
            full_block: serde_json::to_value(full).expect("block serializes"),
        }
    }

    /// The honest answer to `method` (block-not-found for any other block).
    pub fn answer(&self, method: &str, params: &Value) -> Reply {
        if block_param(params) != Some(self.number) {
            return match method {
                "eth_getBlockByNumber" => Reply::Result(Value::Null),
                _ => Reply::Error(-32000, format!("block {params} not found")),
            };
        }
        match method {
            "debug_getRawBlock" => Reply::Result(self.raw_block.clone()),
            "debug_executionWitness" => Reply::Result(self.witness.clone()),
            "eth_getBlockByNumber" => Reply::Result(self.full_block.clone()),
            _ => Reply::Error(
                -32601,
                format!("the method {method} does not exist/is not available"),
            ),
        }
    }
}
