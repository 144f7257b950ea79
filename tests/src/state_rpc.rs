//! A node's standard state methods (`eth_getProof`, `eth_getCode`, `eth_getStorageAt`, and
//! `eth_getBlockByNumber` for ancestors) over a block's witness: the parent's state, and the
//! block's post-state after executing it. For the devnet the witness is the whole genesis
//! state, so any key can be proven; for a mainnet block, every key the block touches.
//!
//! The tries are not `Sync`, so they live on one thread that answers requests sent to it.

use std::path::Path;
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;
use std::thread;

use alloy_consensus::Header;
use alloy_primitives::{Address, Bytes, B256, U256};
use alloy_rlp::Decodable;
use alloy_rpc_types_eth::{EIP1186AccountProofResponse, EIP1186StorageProof};
use alloy_trie::{EMPTY_ROOT_HASH, KECCAK_EMPTY};
use mpt::StateTrie;
use program::ChainConfig;
use serde_json::{json, Value};

use std::sync::Arc;

use crate::rpc::{block_param, MainnetNode, Reply, RpcServer};

type Request = (String, Value, Sender<Reply>);

/// The state methods of an archive node holding one block and its parent.
pub struct StateNode {
    requests: Mutex<Sender<Request>>,
}

impl StateNode {
    /// Serves `<dir>/<id>`'s state, validating the block under `chain` to get its post-state.
    pub fn load(dir: &Path, id: &str, chain: ChainConfig) -> Self {
        let data = chaindata::blocks::load(dir, id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let (tx, rx) = channel::<Request>();
        thread::spawn(move || {
            let store = data.witness.store();
            let valid = program::validate_block_over(
                &data.block_rlp,
                &data.witness.headers,
                &store,
                &chain,
            )
            .expect("the served block validates");
            let number = data.header.number;
            let mut pre = StateTrie::open(&store, valid.output.pre_state_root).expect("root");
            let mut post = valid.post_state;
            let headers: Vec<Header> = data
                .witness
                .headers
                .iter()
                .map(|h| Header::decode(&mut h.as_ref()).expect("header"))
                .collect();
            for (method, params, reply) in rx {
                let block = params.as_array().and_then(|p| p.last()).and_then(quantity);
                let state = match block {
                    Some(n) if n + 1 == number => Some(&mut pre),
                    Some(n) if n == number => Some(&mut post),
                    _ => None,
                };
                let answer = match (method.as_str(), state) {
                    ("eth_getBlockByNumber", _) => header_block(&headers, &params),
                    (_, None) => Reply::Error(-32000, format!("state at {params} not available")),
                    ("eth_getProof", Some(state)) => proof(state, &params),
                    ("eth_getStorageAt", Some(state)) => storage_at(state, &params),
                    ("eth_getCode", Some(state)) => code(state, &store, &params),
                    (other, _) => {
                        Reply::Error(-32601, format!("the method {other} does not exist"))
                    }
                };
                let _ = reply.send(answer);
            }
        });
        Self {
            requests: Mutex::new(tx),
        }
    }

    /// The answer to `method`.
    pub fn answer(&self, method: &str, params: &Value) -> Reply {
        let (tx, rx) = channel();
        let request = (method.to_owned(), params.clone(), tx);
        self.requests
            .lock()
            .expect("not poisoned")
            .send(request)
            .expect("state thread running");
        rx.recv().expect("state thread answers")
    }
}

/// A node with `<dir>/<id>` and its state, standard methods only (no `debug_*`); each
/// answer passes through `edit`.
pub fn standard_node(
    dir: &Path,
    id: &str,
    chain: ChainConfig,
    edit: impl Fn(&str, Reply) -> Reply + Send + Sync + 'static,
) -> (RpcServer, u64) {
    standard_node_with(dir, id, chain, edit, true)
}

/// [`standard_node`], taking JSON-RPC batches or not.
pub fn standard_node_with(
    dir: &Path,
    id: &str,
    chain: ChainConfig,
    edit: impl Fn(&str, Reply) -> Reply + Send + Sync + 'static,
    batches: bool,
) -> (RpcServer, u64) {
    let blocks = MainnetNode::load(dir, id);
    let number = blocks.number;
    let state = Arc::new(StateNode::load(dir, id, chain));
    let handler = move |method: &str, params: &Value| {
        let reply = match method {
            m if m.starts_with("debug_") => Reply::Error(
                -32601,
                format!("the method {m} does not exist/is not available"),
            ),
            "eth_getBlockByNumber" if block_param(params) == Some(number) => {
                blocks.answer(method, params)
            }
            _ => state.answer(method, params),
        };
        edit(method, reply)
    };
    let server = if batches {
        RpcServer::start(handler)
    } else {
        RpcServer::start_without_batches(handler)
    };
    (server, number)
}

/// A hex quantity (`"0x1a"`).
fn quantity(value: &Value) -> Option<u64> {
    u64::from_str_radix(value.as_str()?.strip_prefix("0x")?, 16).ok()
}

fn param<T: serde::de::DeserializeOwned>(params: &Value, i: usize) -> Option<T> {
    serde_json::from_value(params.get(i)?.clone()).ok()
}

fn failed(e: impl std::fmt::Display) -> Reply {
    Reply::Error(-32000, e.to_string())
}

fn proof(state: &mut StateTrie<'_>, params: &Value) -> Reply {
    let (Some(address), Some(keys)) = (param::<Address>(params, 0), param::<Vec<B256>>(params, 1))
    else {
        return Reply::Error(-32602, format!("bad eth_getProof params {params}"));
    };
    let answer = (|| {
        let account = state.account(address)?;
        let account_proof = state.account_proof(address)?;
        let mut storage_proof = Vec::new();
        for key in keys {
            let slot = U256::from_be_bytes(key.0);
            storage_proof.push(EIP1186StorageProof {
                key: key.into(),
                value: state.storage(address, slot)?,
                proof: state
                    .storage_proof(address, slot)?
                    .into_iter()
                    .map(Bytes::from)
                    .collect(),
            });
        }
        Ok::<_, mpt::TrieError>(EIP1186AccountProofResponse {
            address,
            balance: account.map_or(U256::ZERO, |a| a.balance),
            nonce: account.map_or(0, |a| a.nonce),
            code_hash: account.map_or(KECCAK_EMPTY, |a| a.code_hash),
            storage_hash: account.map_or(EMPTY_ROOT_HASH, |a| a.storage_root),
            account_proof: account_proof.into_iter().map(Bytes::from).collect(),
            storage_proof,
        })
    })();
    match answer {
        Ok(answer) => Reply::Result(serde_json::to_value(answer).expect("serializes")),
        Err(e) => failed(e),
    }
}

fn storage_at(state: &mut StateTrie<'_>, params: &Value) -> Reply {
    let (Some(address), Some(slot)) = (param::<Address>(params, 0), param::<U256>(params, 1))
    else {
        return Reply::Error(-32602, format!("bad eth_getStorageAt params {params}"));
    };
    match state.storage(address, slot) {
        Ok(value) => Reply::Result(json!(B256::from(value))),
        Err(e) => failed(e),
    }
}

fn code(state: &mut StateTrie<'_>, store: &mpt::WitnessStore, params: &Value) -> Reply {
    let Some(address) = param::<Address>(params, 0) else {
        return Reply::Error(-32602, format!("bad eth_getCode params {params}"));
    };
    match state.account(address) {
        Ok(account) => {
            let hash = account.map_or(KECCAK_EMPTY, |a| a.code_hash);
            let code = if hash == KECCAK_EMPTY {
                Bytes::new()
            } else {
                match store.get(&hash) {
                    Some(code) => Bytes::copy_from_slice(code),
                    None => return failed(format!("code {hash} not held")),
                }
            };
            Reply::Result(json!(code))
        }
        Err(e) => failed(e),
    }
}

/// `eth_getBlockByNumber` for an ancestor: its header, no transactions; `null` for others.
fn header_block(headers: &[Header], params: &Value) -> Reply {
    let Some(number) = params.get(0).and_then(quantity) else {
        return Reply::Result(Value::Null);
    };
    let Some(header) = headers.iter().find(|h| h.number == number) else {
        return Reply::Result(Value::Null);
    };
    let sealed = alloy_consensus::Sealed::new(header.clone());
    let block = alloy_rpc_types_eth::Block::<alloy_rpc_types_eth::Transaction> {
        header: alloy_rpc_types_eth::Header::from_consensus(sealed, None, None),
        uncles: Vec::new(),
        transactions: alloy_rpc_types_eth::BlockTransactions::Hashes(Vec::new()),
        withdrawals: None,
    };
    Reply::Result(serde_json::to_value(block).expect("serializes"))
}
