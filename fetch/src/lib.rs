//! `host fetch`: a block and its execution witness from an archive node's JSON-RPC.
//!
//! Through alloy's provider: the raw block from `debug_getRawBlock` (or, where a node lacks
//! it, `eth_getBlockByNumber` with full transactions, re-encoded and checked against the
//! header's hash). The witness comes from one of two sources ([`WitnessSource`]):
//! `debug_executionWitness` (reth, geth with the debug namespace), or, from any archive node,
//! standard methods only: the block executed over the parent's state read with `eth_getProof`,
//! `eth_getCode`, `eth_getStorageAt` and `eth_getBlockByNumber`, then the proofs of what it
//! read and deleted ([`proofs`]). `auto` asks for the first and falls back to the second when
//! the node says the method does not exist. The pair is validated natively before anything
//! is written, so a bad witness is caught at once and never lands in the cache.
//!
//! Each request has a timeout; failures of the connection, timeouts and HTTP 429 / 5xx are
//! retried with exponential backoff. A JSON-RPC error is an answer, not a failure, and is not
//! retried: it becomes a typed error (method not supported, block not found, other).

use std::path::{Path, PathBuf};
use std::time::Duration;

use alloy_primitives::Bytes;
use alloy_provider::ext::DebugApi;
use program::{BlockOutput, ChainConfig, ExecutionWitness};
use serde::Serialize;

use chaindata::blocks::{self, BlockData};

mod error;
mod node;
mod proofs;
mod requests;
pub mod siblings;
mod state;

pub use error::FetchError;
use node::Node;
pub use proofs::ProofStats;

/// Where the witness comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum WitnessSource {
    /// `debug_executionWitness` where the node has it, else `proofs`.
    #[default]
    Auto,
    /// `debug_executionWitness` only.
    Debug,
    /// Standard methods only: `eth_getProof`, `eth_getCode`, `eth_getStorageAt`,
    /// `eth_getBlockByNumber`.
    Proofs,
}

/// How patient to be with the node.
#[derive(Debug, Clone, Copy)]
pub struct FetchOptions {
    /// Per request.
    pub timeout: Duration,
    /// Attempts after the first, for failures worth retrying.
    pub retries: u32,
    /// Wait before the first retry; doubled for each further one.
    pub backoff: Duration,
    /// Where the witness comes from.
    pub source: WitnessSource,
    /// Requests in flight at once (the proofs after execution, the ancestor headers).
    pub concurrency: usize,
}

impl Default for FetchOptions {
    fn default() -> Self {
        Self {
            // A mainnet witness takes a node seconds to build and is megabytes of JSON.
            timeout: Duration::from_secs(120),
            retries: 3,
            backoff: Duration::from_millis(500),
            source: WitnessSource::Auto,
            concurrency: 16,
        }
    }
}

/// Where the raw block came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockSource {
    /// `debug_getRawBlock`.
    RawBlock,
    /// `eth_getBlockByNumber` with full transactions, re-encoded.
    FullBlock,
}

/// A fetched, validated block, written to disk.
#[derive(Debug)]
pub struct Fetched {
    /// The block and witness.
    pub data: BlockData,
    /// How it was fetched.
    pub report: FetchReport,
}

/// How a block was fetched, and what it was found to be.
#[derive(Debug)]
pub struct FetchReport {
    /// The native verdict (valid).
    pub output: BlockOutput,
    /// Where the raw block came from.
    pub source: BlockSource,
    /// Where the witness came from: `Debug`, or `Proofs` with what it took.
    pub witness: (WitnessSource, Option<ProofStats>),
    /// The two files written.
    pub paths: (PathBuf, PathBuf),
}

/// The witness file, in `debug_executionWitness`'s shape.
#[derive(Serialize)]
struct WitnessFile<'a> {
    state: &'a [Bytes],
    codes: &'a [Bytes],
    keys: &'a [Bytes],
    headers: &'a [Bytes],
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FetchError> {
    let write = |path: &Path, source| FetchError::Write {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| write(dir, e))?;
    }
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, bytes).map_err(|e| write(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| write(path, e))
}

/// Fetches block `number` from `url`, validates it natively under `chain`, and writes
/// `<number>.block.rlp` and `<number>.witness.json` into `dir`.
pub fn fetch(
    url: &str,
    number: u64,
    dir: &Path,
    chain: &ChainConfig,
    options: FetchOptions,
) -> Result<Fetched, FetchError> {
    let (node, runtime) = Node::with_runtime(url, options)?;
    let ((block_rlp, source), debug) = runtime.block_on(async {
        let block = node.block(number).await?;
        let debug = match options.source {
            WitnessSource::Proofs => None,
            WitnessSource::Debug | WitnessSource::Auto => {
                let answer = node
                    .call("debug_executionWitness", number, || {
                        node.provider.debug_execution_witness(number.into())
                    })
                    .await;
                match answer {
                    Err(FetchError::MethodNotSupported { .. })
                        if options.source == WitnessSource::Auto =>
                    {
                        None
                    }
                    other => Some(other?),
                }
            }
        };
        Ok::<_, FetchError>((block, debug))
    })?;
    let (witness, keys, stats) = match debug {
        Some(w) => {
            let witness = ExecutionWitness {
                state: w.state,
                codes: w.codes,
                headers: w.headers,
            };
            (witness, w.keys, None)
        }
        None => {
            let (witness, keys, stats) = proofs::witness_from_proofs(
                &node,
                &runtime,
                number,
                &block_rlp,
                chain,
                options.concurrency,
            )?;
            (witness, keys, Some(stats))
        }
    };
    let witness_source = if stats.is_some() {
        WitnessSource::Proofs
    } else {
        WitnessSource::Debug
    };

    let id = number.to_string();
    let data =
        BlockData::new(id, block_rlp, witness, keys).map_err(|e| FetchError::BadResponse {
            method: "debug_getRawBlock",
            reason: e.to_string(),
        })?;
    if data.header.number != number {
        return Err(FetchError::WrongBlock {
            block: number,
            reason: format!("the node returned block {}", data.header.number),
        });
    }
    let output =
        program::validate_block(&data.block_rlp, &data.witness, chain).map_err(|source| {
            FetchError::Invalid {
                block: number,
                url: url.to_owned(),
                source: Box::new(source),
            }
        })?;

    let paths = blocks::block_paths(dir, &data.id);
    let witness_json = serde_json::to_vec(&WitnessFile {
        state: &data.witness.state,
        codes: &data.witness.codes,
        keys: &data.keys,
        headers: &data.witness.headers,
    })
    .expect("byte vectors serialize");
    write_atomic(&paths.0, &data.block_rlp)?;
    write_atomic(&paths.1, &witness_json)?;
    Ok(Fetched {
        data,
        report: FetchReport {
            output,
            source,
            witness: (witness_source, stats),
            paths,
        },
    })
}
