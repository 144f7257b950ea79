//! `host fetch`: a block and its execution witness from an archive node's JSON-RPC.
//!
//! Through alloy's provider: the raw block from `debug_getRawBlock` (or, where a node lacks
//! it, `eth_getBlockByNumber` with full transactions, re-encoded and checked against the
//! header's hash), the witness from `debug_executionWitness`. The pair is validated natively
//! before anything is written, so a bad witness is caught at once and never lands in the cache.
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

use crate::blocks::{self, BlockData};

mod error;
mod node;

pub use error::FetchError;
use node::Node;

/// How patient to be with the node.
#[derive(Debug, Clone, Copy)]
pub struct FetchOptions {
    /// Per request.
    pub timeout: Duration,
    /// Attempts after the first, for failures worth retrying.
    pub retries: u32,
    /// Wait before the first retry; doubled for each further one.
    pub backoff: Duration,
}

impl Default for FetchOptions {
    fn default() -> Self {
        Self {
            // A mainnet witness takes a node seconds to build and is megabytes of JSON.
            timeout: Duration::from_secs(120),
            retries: 3,
            backoff: Duration::from_millis(500),
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
    /// The native verdict (valid).
    pub output: BlockOutput,
    /// Where the raw block came from.
    pub source: BlockSource,
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
    let node = Node::new(url, options)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(FetchError::Runtime)?;
    let ((block_rlp, source), witness) = runtime.block_on(async {
        let block = node.block(number).await?;
        let witness = node
            .call("debug_executionWitness", number, || {
                node.provider.debug_execution_witness(number.into())
            })
            .await?;
        Ok::<_, FetchError>((block, witness))
    })?;

    let id = number.to_string();
    let data = BlockData::new(
        id,
        block_rlp,
        ExecutionWitness {
            state: witness.state,
            codes: witness.codes,
            headers: witness.headers,
        },
        witness.keys,
    )
    .map_err(|e| FetchError::BadResponse {
        method: "debug_getRawBlock",
        reason: e.to_string(),
    })?;
    let header_number =
        <alloy_consensus::Header as alloy_rlp::Decodable>::decode(&mut data.header_rlp())
            .ok()
            .map(|h| h.number);
    if header_number != Some(number) {
        return Err(FetchError::WrongBlock {
            block: number,
            reason: format!("the node returned block {header_number:?}"),
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
        output,
        source,
        paths,
    })
}

/// Why a block's files could neither be found nor fetched.
#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    /// Not on disk, and no URL to fetch from.
    #[error(transparent)]
    Missing(#[from] blocks::MissingBlock),
    /// Not on disk, and not a block number a node could serve.
    #[error("{0}; only numbered blocks can be fetched")]
    NotANumber(blocks::MissingBlock),
    /// Fetching failed.
    #[error(transparent)]
    Fetch(#[from] FetchError),
}

/// The directory among `dirs` holding block `id`'s files; when there is none and `rpc_url` is
/// given, fetches the block into `fetch_dir` (validating it under `chain`) and returns that.
pub fn locate_or_fetch(
    dirs: &[PathBuf],
    id: &str,
    rpc_url: Option<&str>,
    fetch_dir: &Path,
    chain: &ChainConfig,
    options: FetchOptions,
) -> Result<(PathBuf, Option<Fetched>), LocateError> {
    let missing = match blocks::locate(dirs, id) {
        Ok(dir) => return Ok((dir, None)),
        Err(missing) => missing,
    };
    let Some(url) = rpc_url else {
        return Err(missing.into());
    };
    let number = id.parse().map_err(|_| LocateError::NotANumber(missing))?;
    let fetched = fetch(url, number, fetch_dir, chain, options)?;
    Ok((fetch_dir.to_owned(), Some(fetched)))
}
