//! One JSON-RPC node through alloy's provider, with timeouts and retries with backoff, and
//! the classification of its failures into [`FetchError`]s.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};

use alloy_consensus::{Header, TxEnvelope};
use alloy_primitives::{Bytes, B256};
use alloy_provider::ext::DebugApi;
use alloy_provider::{Provider, RootProvider};
use alloy_rpc_client::RpcClient;
use alloy_rpc_types_eth::Block;
use alloy_transport::{RpcError, TransportError, TransportErrorKind};
use alloy_transport_http::Http;

use super::{BlockSource, FetchError, FetchOptions};

/// One node, with its retry policy.
pub(super) struct Node {
    pub(super) url: String,
    pub(super) provider: RootProvider,
    options: FetchOptions,
    /// JSON-RPC requests made (a batch's entries each; retries not counted).
    requests: AtomicUsize,
}

const METHOD_NOT_FOUND: i64 = -32601;

impl Node {
    pub(super) fn new(url: &str, options: FetchOptions) -> Result<Self, FetchError> {
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
            requests: AtomicUsize::new(0),
        })
    }

    /// The node at `url` and the single-threaded runtime its requests run on.
    pub(super) fn with_runtime(
        url: &str,
        options: FetchOptions,
    ) -> Result<(Self, tokio::runtime::Runtime), FetchError> {
        let node = Self::new(url, options)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(FetchError::Runtime)?;
        Ok((node, runtime))
    }

    /// JSON-RPC requests made so far.
    pub(super) fn requests(&self) -> usize {
        self.requests.load(Ordering::Relaxed)
    }

    /// Counts `n` requests made without [`Node::call`] (or beyond its one: a batch's entries).
    pub(super) fn count(&self, n: usize) {
        self.requests.fetch_add(n, Ordering::Relaxed);
    }

    /// Runs `call` with retries (one request, however many attempts); classifies the final
    /// error.
    pub(super) async fn call<T, F, Fut>(
        &self,
        method: &'static str,
        block: u64,
        call: F,
    ) -> Result<T, FetchError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, TransportError>>,
    {
        self.count(1);
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

    pub(super) fn classify(
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
    pub(super) async fn block(&self, number: u64) -> Result<(Vec<u8>, BlockSource), FetchError> {
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

    /// The header of block `number` with `eth_getBlockByNumber`: its hash (checked against the
    /// re-encoded header) and RLP.
    pub(super) async fn header(&self, number: u64) -> Result<(B256, Bytes), FetchError> {
        let block = self.block_by_number(number, false).await?;
        let hash = checked_hash(number, &block.header.inner, block.header.hash)?;
        Ok((hash, alloy_rlp::encode(&block.header.inner).into()))
    }

    async fn full_block(&self, number: u64) -> Result<Vec<u8>, FetchError> {
        let block = self.block_by_number(number, true).await?;
        if !block.transactions.is_full() {
            return Err(FetchError::BadResponse {
                method: BLOCK_BY_NUMBER,
                reason: "transactions were not returned in full".into(),
            });
        }
        checked_hash(number, &block.header.inner, block.header.hash)?;
        let block = block
            .into_consensus()
            .map_transactions(|tx| -> TxEnvelope { tx.into_inner() });
        Ok(alloy_rlp::encode(&block))
    }

    /// `eth_getBlockByNumber`, with full transactions or their hashes; not found is an error.
    async fn block_by_number(&self, number: u64, full: bool) -> Result<Block, FetchError> {
        self.call(BLOCK_BY_NUMBER, number, || async {
            let request = self.provider.get_block_by_number(number.into());
            if full {
                request.full().await
            } else {
                request.await
            }
        })
        .await?
        .ok_or_else(|| FetchError::BlockNotFound {
            block: number,
            url: self.url.clone(),
            method: BLOCK_BY_NUMBER,
        })
    }
}

const BLOCK_BY_NUMBER: &str = "eth_getBlockByNumber";

/// The hash of `header` re-encoded, which must be the one the node claims for it.
fn checked_hash(number: u64, header: &Header, claimed: B256) -> Result<B256, FetchError> {
    let got = program::validate::header_hash(header);
    if got != claimed {
        return Err(FetchError::WrongBlock {
            block: number,
            reason: format!(
                "the re-encoded header hashes to {got}, the node says {claimed} (a header field this build does not know?)"
            ),
        });
    }
    Ok(got)
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
