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

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use alloy_consensus::TxEnvelope;
use alloy_primitives::{Bytes, B256};
use alloy_provider::ext::DebugApi;
use alloy_provider::{Provider, RootProvider};
use alloy_rpc_client::RpcClient;
use alloy_transport::{RpcError, TransportError, TransportErrorKind};
use alloy_transport_http::Http;
use program::{BlockOutput, ChainConfig, ExecutionWitness, ValidationError};
use serde::Serialize;

use crate::blocks::{self, BlockData};

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

/// Why a block could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The URL does not parse.
    #[error("invalid RPC URL `{url}`: {reason}")]
    BadUrl {
        /// The URL given.
        url: String,
        /// Why.
        reason: String,
    },
    /// No connection could be made, after every retry.
    #[error("cannot reach {url} ({method}, {attempts} attempts): {reason}")]
    Unreachable {
        /// The node.
        url: String,
        /// The call that failed.
        method: &'static str,
        /// Attempts made.
        attempts: u32,
        /// The last error.
        reason: String,
    },
    /// The node did not answer in time, after every retry.
    #[error("{url} did not answer {method} within {timeout:?} ({attempts} attempts)")]
    Timeout {
        /// The node.
        url: String,
        /// The call.
        method: &'static str,
        /// The per-request timeout.
        timeout: Duration,
        /// Attempts made.
        attempts: u32,
    },
    /// The node does not serve this method (not an archive node, or `debug` not enabled).
    #[error(
        "{url} does not support {method}: {message} (an archive node with the debug API is needed)"
    )]
    MethodNotSupported {
        /// The node.
        url: String,
        /// The method.
        method: &'static str,
        /// The node's message.
        message: String,
    },
    /// The node does not have the block.
    #[error("block {block} not found at {url} ({method})")]
    BlockNotFound {
        /// The block number.
        block: u64,
        /// The node.
        url: String,
        /// The call that said so.
        method: &'static str,
    },
    /// Any other JSON-RPC error.
    #[error("{method} failed: error {code}: {message}")]
    Rpc {
        /// The call.
        method: &'static str,
        /// JSON-RPC error code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// An HTTP error status (after retries where it is worth retrying).
    #[error("{method}: HTTP {status} from {url}: {body}")]
    Http {
        /// The node.
        url: String,
        /// The call.
        method: &'static str,
        /// HTTP status.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// The answer is not what the method returns.
    #[error("{method} returned an unusable answer: {reason}")]
    BadResponse {
        /// The call.
        method: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The block returned is not the block asked for, or does not hash to its own header hash.
    #[error("block {block}: {reason}")]
    WrongBlock {
        /// The block number asked for.
        block: u64,
        /// What is wrong.
        reason: String,
    },
    /// The witness (or the block) fails native validation: nothing was written.
    #[error("block {block} fetched from {url} does not validate against its witness: {source}")]
    Invalid {
        /// The block number.
        block: u64,
        /// The node.
        url: String,
        /// The validation error.
        source: Box<ValidationError>,
    },
    /// Writing the files failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The async runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
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

/// One node, with its retry policy.
struct Node {
    url: String,
    provider: RootProvider,
    options: FetchOptions,
}

const METHOD_NOT_FOUND: i64 = -32601;

impl Node {
    fn new(url: &str, options: FetchOptions) -> Result<Self, FetchError> {
        let bad = |reason: String| FetchError::BadUrl {
            url: url.to_owned(),
            reason,
        };
        let parsed: reqwest::Url = url.parse().map_err(|e| bad(format!("{e}")))?;
        let client = reqwest::Client::builder()
            .timeout(options.timeout)
            .connect_timeout(options.timeout)
            .build()
            .map_err(|e| bad(e.to_string()))?;
        let transport = Http::with_client(client, parsed);
        Ok(Self {
            url: url.to_owned(),
            provider: RootProvider::new(RpcClient::new(transport, false)),
            options,
        })
    }

    /// Runs `call` with retries; classifies the final error.
    async fn call<T, F, Fut>(
        &self,
        method: &'static str,
        block: u64,
        call: F,
    ) -> Result<T, FetchError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, TransportError>>,
    {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let error = match call().await {
                Ok(value) => return Ok(value),
                Err(e) => e,
            };
            if attempt > self.options.retries || !retryable(&error) {
                return Err(self.classify(method, block, attempt, error));
            }
            let wait = self.options.backoff * 2u32.saturating_pow(attempt - 1);
            eprintln!(
                "{method}: {error}; retrying in {wait:?} ({attempt}/{})",
                self.options.retries
            );
            tokio::time::sleep(wait).await;
        }
    }

    fn classify(
        &self,
        method: &'static str,
        block: u64,
        attempts: u32,
        error: TransportError,
    ) -> FetchError {
        let url = self.url.clone();
        match error {
            RpcError::ErrorResp(payload) => {
                let message = payload.message.to_string();
                let lower = message.to_lowercase();
                if payload.code == METHOD_NOT_FOUND
                    || lower.contains("method not found")
                    || lower.contains("does not exist")
                    || lower.contains("not available")
                    || lower.contains("not supported")
                {
                    FetchError::MethodNotSupported {
                        url,
                        method,
                        message,
                    }
                } else if lower.contains("not found") || lower.contains("unknown block") {
                    FetchError::BlockNotFound { block, url, method }
                } else {
                    FetchError::Rpc {
                        method,
                        code: payload.code,
                        message,
                    }
                }
            }
            RpcError::NullResp => FetchError::BlockNotFound { block, url, method },
            RpcError::Transport(TransportErrorKind::HttpError(http)) => FetchError::Http {
                url,
                method,
                status: http.status,
                body: http.body.chars().take(200).collect(),
            },
            RpcError::Transport(kind) => {
                let reason = error_chain(&kind);
                if reason.to_lowercase().contains("timed out") {
                    FetchError::Timeout {
                        url,
                        method,
                        timeout: self.options.timeout,
                        attempts,
                    }
                } else {
                    FetchError::Unreachable {
                        url,
                        method,
                        attempts,
                        reason,
                    }
                }
            }
            other => FetchError::BadResponse {
                method,
                reason: other.to_string(),
            },
        }
    }

    /// The raw block: `debug_getRawBlock`, or the full block re-encoded where that is missing.
    async fn block(&self, number: u64) -> Result<(Vec<u8>, BlockSource), FetchError> {
        let id = number.into();
        match self
            .call("debug_getRawBlock", number, || {
                self.provider.debug_get_raw_block(id)
            })
            .await
        {
            Ok(raw) if raw.is_empty() => Err(FetchError::BlockNotFound {
                block: number,
                url: self.url.clone(),
                method: "debug_getRawBlock",
            }),
            Ok(raw) => Ok((raw.to_vec(), BlockSource::RawBlock)),
            Err(FetchError::MethodNotSupported { .. }) => {
                Ok((self.full_block(number).await?, BlockSource::FullBlock))
            }
            Err(e) => Err(e),
        }
    }

    async fn full_block(&self, number: u64) -> Result<Vec<u8>, FetchError> {
        const METHOD: &str = "eth_getBlockByNumber";
        let block = self
            .call(METHOD, number, || async {
                self.provider
                    .get_block_by_number(number.into())
                    .full()
                    .await
            })
            .await?
            .ok_or_else(|| FetchError::BlockNotFound {
                block: number,
                url: self.url.clone(),
                method: METHOD,
            })?;
        let claimed: B256 = block.header.hash;
        if !block.transactions.is_full() {
            return Err(FetchError::BadResponse {
                method: METHOD,
                reason: "transactions were not returned in full".into(),
            });
        }
        let block = block
            .into_consensus()
            .map_transactions(|tx| -> TxEnvelope { tx.into_inner() });
        let got = program::validate::header_hash(&block.header);
        if got != claimed {
            return Err(FetchError::WrongBlock {
                block: number,
                reason: format!(
                    "the re-encoded header hashes to {got}, the node says {claimed} (a header field this build does not know?)"
                ),
            });
        }
        Ok(alloy_rlp::encode(&block))
    }
}

/// Worth another attempt: the connection, a timeout, rate limiting, a server error.
fn retryable(error: &TransportError) -> bool {
    match error {
        RpcError::Transport(TransportErrorKind::HttpError(http)) => {
            http.status == 429 || http.status >= 500
        }
        RpcError::Transport(kind) => !matches!(kind, TransportErrorKind::MissingBatchResponse(_)),
        _ => false,
    }
}

/// An error with its causes, `a: b: c` (reqwest's own message hides the OS error).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut out = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let text = e.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = e.source();
    }
    out
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
