//! The `eth_getProof`s after execution: in JSON-RPC batches of [`BATCH`] where the node takes
//! them (one HTTP request each), else one by one; at most `concurrency` HTTP requests in flight,
//! each answer checked against its state root ([`verify_answer`]). A node that refuses the
//! first batch (one JSON-RPC error, an HTTP client error, or an answer that is not a batch)
//! gets single requests; one that is unreachable or times out fails the fetch as any request
//! would.

use std::future::IntoFuture;
use std::io::Write as _;

use alloy_eips::BlockNumberOrTag;
use alloy_primitives::{Address, B256, U256};
use alloy_provider::Provider;
use alloy_rpc_types_eth::EIP1186AccountProofResponse;
use alloy_transport::{RpcError, TransportErrorKind, TransportResult};
use futures_util::stream::{self, StreamExt};

use super::node::Node;
use super::state::verify_answer;
use super::FetchError;

/// `eth_getProof`s per batch.
pub const BATCH: usize = 16;

/// One `eth_getProof` to make after execution.
pub(super) struct ProofRequest {
    pub(super) address: Address,
    pub(super) slots: Vec<B256>,
    /// The block whose state is asked for.
    pub(super) block: u64,
    /// The parent of the block validated (the other block asked for is the block itself).
    pub(super) parent: u64,
    /// Per slot, the value execution was given for it (`eth_getStorageAt`), which its proof
    /// must prove; `None` for a post-state proof.
    pub(super) values: Vec<Option<U256>>,
}

/// Makes `requests`; returns the answers and how many batches carried them.
pub(super) async fn fetch_proofs(
    node: &Node,
    requests: Vec<ProofRequest>,
    roots: (B256, B256),
    concurrency: usize,
) -> Result<(Vec<EIP1186AccountProofResponse>, usize), FetchError> {
    let total = requests.len();
    let progress = Progress::new(total);
    let mut chunks = requests.chunks(BATCH);
    let mut answers = Vec::with_capacity(total);
    let mut batches = 0;
    // The first batch tells whether the node takes batches.
    if let Some(first) = chunks.next() {
        let taken = node
            .call("eth_getProof", first[0].block, || first_batch(node, first))
            .await?;
        if let Some(results) = taken {
            batches += 1;
            answers.extend(batch_answers(node, results, first, roots)?);
            progress.show(answers.len());
            let rest: Vec<&[ProofRequest]> = chunks.collect();
            let mut stream = stream::iter(rest)
                .map(|chunk| async move {
                    let results = node
                        .call("eth_getProof", chunk[0].block, || batch(node, chunk))
                        .await?;
                    batch_answers(node, results, chunk, roots)
                })
                .buffer_unordered(concurrency.max(1));
            while let Some(chunk) = stream.next().await {
                answers.extend(chunk?);
                batches += 1;
                progress.show(answers.len());
            }
            progress.done();
            return Ok((answers, batches));
        }
    }
    // No batches here: one by one.
    let mut stream = stream::iter(&requests)
        .map(|request| async move {
            node.count(1);
            let result = node
                .provider
                .get_proof(request.address, request.slots.clone())
                .number(request.block)
                .into_future()
                .await;
            answer(node, result, request, roots)
        })
        .buffer_unordered(concurrency.max(1));
    while let Some(answer) = stream.next().await {
        answers.push(answer?);
        progress.show(answers.len());
    }
    progress.done();
    Ok((answers, 0))
}

/// [`batch`], `None` when the node refuses batches: it answers with one JSON-RPC error, an
/// answer that is not a batch, or an HTTP client error.
async fn first_batch(
    node: &Node,
    chunk: &[ProofRequest],
) -> TransportResult<Option<Vec<TransportResult<EIP1186AccountProofResponse>>>> {
    let missing = |r: &TransportResult<_>| {
        matches!(
            r,
            Err(RpcError::Transport(
                TransportErrorKind::MissingBatchResponse(_)
            ))
        )
    };
    match batch(node, chunk).await {
        // An answer that is not a batch leaves every entry without its response.
        Ok(results) if results.iter().all(missing) => Ok(None),
        Ok(results) => Ok(Some(results)),
        Err(RpcError::Transport(TransportErrorKind::MissingBatchResponse(_)))
        | Err(RpcError::ErrorResp(_))
        | Err(RpcError::DeserError { .. }) => Ok(None),
        Err(RpcError::Transport(TransportErrorKind::HttpError(http)))
            if (400..500).contains(&http.status) && http.status != 429 =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// One HTTP request carrying `chunk`'s `eth_getProof`s; each entry's own result.
async fn batch(
    node: &Node,
    chunk: &[ProofRequest],
) -> TransportResult<Vec<TransportResult<EIP1186AccountProofResponse>>> {
    // `Node::call` counted the batch as one request.
    node.count(chunk.len().saturating_sub(1));
    let mut batch = alloy_rpc_client::BatchRequest::new(node.provider.client());
    let mut waiters = Vec::with_capacity(chunk.len());
    for r in chunk {
        let params = (
            r.address,
            r.slots.clone(),
            BlockNumberOrTag::Number(r.block),
        );
        waiters.push(batch.add_call::<_, EIP1186AccountProofResponse>("eth_getProof", &params)?);
    }
    batch.send().await?;
    let mut results = Vec::with_capacity(waiters.len());
    for waiter in waiters {
        results.push(waiter.await);
    }
    Ok(results)
}

/// A batch's answers, each [`answer`]ed against its request.
fn batch_answers(
    node: &Node,
    results: Vec<TransportResult<EIP1186AccountProofResponse>>,
    chunk: &[ProofRequest],
    roots: (B256, B256),
) -> Result<Vec<EIP1186AccountProofResponse>, FetchError> {
    results
        .into_iter()
        .zip(chunk)
        .map(|(result, request)| answer(node, result, request, roots))
        .collect()
}

/// An answer, classified if an error, then checked: for the account and slots asked for, and
/// against its state root (the parent's, or the one the block's header claims).
fn answer(
    node: &Node,
    result: TransportResult<EIP1186AccountProofResponse>,
    request: &ProofRequest,
    (parent_root, post_root): (B256, B256),
) -> Result<EIP1186AccountProofResponse, FetchError> {
    let mut answer = result.map_err(|e| node.classify("eth_getProof", request.block, 1, e))?;
    let bad = |reason: String| FetchError::BadResponse {
        method: "eth_getProof",
        reason,
    };
    if answer.address != request.address {
        return Err(bad(format!(
            "asked for {}, answered for {}",
            request.address, answer.address
        )));
    }
    if answer.storage_proof.len() != request.slots.len() {
        return Err(bad(format!(
            "{} storage proofs for the {} slots of {} asked for",
            answer.storage_proof.len(),
            request.slots.len(),
            request.address
        )));
    }
    let root = if request.block == request.parent {
        parent_root
    } else {
        post_root
    };
    verify_answer(&mut answer, request.block, root)?;
    // Each proof is of the slot asked for, in order, and proves the value execution was given.
    for ((proof, asked), value) in answer
        .storage_proof
        .iter()
        .zip(&request.slots)
        .zip(&request.values)
    {
        let key = proof.key.as_b256();
        if key != *asked {
            return Err(bad(format!(
                "asked for slot {asked} of {}, answered with a proof of slot {key}",
                request.address
            )));
        }
        if let Some(value) = value.filter(|v| *v != proof.value) {
            return Err(bad(format!(
                "slot {key} of {}: eth_getStorageAt gave {value}, its proof at block {} proves {}",
                request.address, request.block, proof.value
            )));
        }
    }
    Ok(answer)
}

/// `eth_getProof done/total` on a terminal.
struct Progress {
    total: usize,
    tty: bool,
}

impl Progress {
    fn new(total: usize) -> Self {
        Self {
            total,
            tty: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        }
    }

    fn show(&self, done: usize) {
        if self.tty {
            eprint!("\r  eth_getProof {done}/{}", self.total);
            let _ = std::io::stderr().flush();
        }
    }

    fn done(&self) {
        if self.tty && self.total > 0 {
            eprintln!();
        }
    }
}
