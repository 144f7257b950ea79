//! `host fetch --source proofs`: a block's witness from standard JSON-RPC methods only, as rsp
//! builds its own, for nodes without `debug_executionWitness`.
//!
//! 1. The block (by the fetcher's usual path) and its parent's header (`eth_getBlockByNumber`,
//!    checked against the block's parent hash).
//! 2. The block executed natively over the parent's state read through RPC ([`RpcState`]),
//!    recording every account, slot, code and BLOCKHASH read.
//! 3. `eth_getProof` at the parent for every account read, with the slots read from it; and at
//!    the block for every account and slot the block deleted: their post-state proofs hold the
//!    nodes a deletion's collapse folds into (`mpt::trie::orphan` derives the sibling from
//!    them). These go out concurrently, at most `concurrency` at a time.
//! 4. The ancestor headers from the oldest block BLOCKHASH read up to the parent.
//! 5. Any node validation still finds missing (a branch a collapse folds into), by the proof of
//!    a key through its path ([`super::siblings`]).
//!
//! The result has `debug_executionWitness`'s shape; the caller validates it before writing it.

use std::collections::BTreeSet;

use alloy_primitives::{Bytes, B256, U256};
use futures_util::stream::{self, StreamExt};
use program::{ChainConfig, ExecutionWitness};

use super::node::Node;
use super::requests::{fetch_proofs, ProofRequest};
use super::siblings::{resolve_missing, Parent};
use super::state::RpcState;
use super::FetchError;

/// What building a witness from proofs took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProofStats {
    /// Accounts read by execution.
    pub accounts: usize,
    /// Storage slots read.
    pub slots: usize,
    /// Accounts and slots the block deleted (proven in the post-state).
    pub deleted: usize,
    /// JSON-RPC requests made for the block and its witness: a batch's entries each, retries
    /// not counted.
    pub requests: usize,
    /// HTTP requests that carried a batch of `eth_getProof`s (0: the node takes no batches).
    pub batches: usize,
    /// Bytes of the nodes, codes and headers received (proofs overlap: more than the
    /// witness holds).
    pub bytes: usize,
}

/// The witness of `block_rlp` (block `number`) from `node`'s standard methods, with the
/// witness's `keys` (addresses and slots read) and what it took.
pub(super) fn witness_from_proofs(
    node: &Node,
    runtime: &tokio::runtime::Runtime,
    number: u64,
    block_rlp: &[u8],
    chain: &ChainConfig,
    concurrency: usize,
) -> Result<(ExecutionWitness, Vec<Bytes>, ProofStats), FetchError> {
    let bad_block = |reason: String| FetchError::WrongBlock {
        block: number,
        reason,
    };
    let block = program::validate::decode_block(block_rlp).map_err(|e| bad_block(e.to_string()))?;
    let senders = program::body::recover_senders(&block.body.transactions)
        .map_err(|e| bad_block(e.to_string()))?;
    let parent = number
        .checked_sub(1)
        .ok_or_else(|| bad_block("genesis has no parent to execute on".into()))?;
    let (parent_hash, parent_rlp) = runtime.block_on(node.header(parent))?;
    if parent_hash != block.header.parent_hash {
        return Err(bad_block(format!(
            "its parent hash is {}, block {parent} hashes to {parent_hash}",
            block.header.parent_hash
        )));
    }
    let mut stats = ProofStats {
        bytes: parent_rlp.len(),
        ..ProofStats::default()
    };

    // 2. Execute over the parent's state, recording what is read.
    let parent_root = alloy_rlp::decode_exact::<alloy_consensus::Header>(&parent_rlp)
        .map_err(|e| bad_block(format!("its parent header does not decode: {e}")))?
        .state_root;
    let mut state = RpcState::new(node, runtime, parent, parent_root);
    let executed = program::execute::execute(&block, &senders, chain, &mut state);
    if let Some(failure) = state.failure.take() {
        return Err(failure);
    }
    let program::execute::Executed { bundle, .. } =
        executed.map_err(|source| FetchError::Invalid {
            block: number,
            url: node.url.clone(),
            source: Box::new(source),
        })?;
    // The state root's node, which validation opens, comes with any account's proof: a block
    // that reads none gets its fee recipient's.
    if state.accounts.is_empty() {
        let _ = revm::Database::basic(&mut state, block.header.beneficiary);
        if let Some(failure) = state.failure.take() {
            return Err(failure);
        }
    }
    stats.accounts = state.accounts.len();
    stats.slots = state.slots.values().map(BTreeSet::len).sum();

    // 3. Proofs: at the parent for what was read, at the block for what was deleted.
    let key = |slot: &U256| B256::from(slot.to_be_bytes::<32>());
    let mut requests = Vec::new();
    let mut nodes: Vec<Bytes> = Vec::new();
    for (address, (answer, _)) in &state.accounts {
        match state.slots.get(address) {
            Some(slots) if !slots.is_empty() => requests.push(ProofRequest {
                address: *address,
                slots: slots.iter().map(key).collect(),
                block: parent,
                parent,
                values: slots
                    .iter()
                    .map(|slot| state.slot_values.get(&(*address, *slot)).copied())
                    .collect(),
            }),
            // Its proof without slots came with the read.
            _ => nodes.extend(answer.account_proof.iter().cloned()),
        }
    }
    for (address, account) in &bundle.state {
        let slots: Vec<B256> = if account.info.is_none() {
            Vec::new()
        } else if account.was_destroyed() {
            continue;
        } else {
            let deleted: Vec<B256> = account
                .storage
                .iter()
                .filter(|(_, v)| v.is_changed() && v.present_value.is_zero())
                .map(|(slot, _)| key(slot))
                .collect();
            if deleted.is_empty() {
                continue;
            }
            deleted
        };
        stats.deleted += slots.len().max(1);
        requests.push(ProofRequest {
            address: *address,
            values: vec![None; slots.len()],
            slots,
            block: number,
            parent,
        });
    }
    let roots = (parent_root, block.header.state_root);
    let (answers, batches) = runtime.block_on(fetch_proofs(node, requests, roots, concurrency))?;
    stats.batches = batches;
    for answer in answers {
        nodes.extend(answer.account_proof);
        for slot in answer.storage_proof {
            nodes.extend(slot.proof);
        }
    }

    // 4. Ancestors: every header from the oldest BLOCKHASH read to the parent, oldest first.
    let mut headers = state.headers.clone();
    headers.insert(parent, parent_rlp);
    let oldest = *headers.keys().next().expect("the parent is there");
    let missing: Vec<u64> = (oldest..parent)
        .filter(|n| !headers.contains_key(n))
        .collect();
    let fetched = runtime.block_on(
        stream::iter(missing)
            .map(|n| async move { node.header(n).await.map(|(_, rlp)| (n, rlp)) })
            .buffer_unordered(concurrency.max(1))
            .collect::<Vec<_>>(),
    );
    for header in fetched {
        let (n, rlp) = header?;
        headers.insert(n, rlp);
    }

    let mut seen = BTreeSet::new();
    nodes.retain(|n| seen.insert(n.clone()));
    let codes: Vec<Bytes> = state.codes.values().cloned().collect();
    let headers: Vec<Bytes> = headers.into_values().collect();
    let mut witness = ExecutionWitness {
        state: nodes,
        codes,
        headers,
    };

    // 5. What the proofs of the keys touched lack: a branch that a deletion's collapse needs.
    let parent_state = Parent {
        node,
        runtime,
        number: parent,
        state_root: parent_root,
        accounts: state.accounts.keys().copied().collect(),
    };
    resolve_missing(&parent_state, block_rlp, chain, &mut witness)?;
    stats.requests = node.requests();
    let ExecutionWitness {
        state: nodes,
        codes,
        headers,
    } = witness;
    stats.bytes += nodes
        .iter()
        .chain(&codes)
        .chain(&headers)
        .map(|b| b.len())
        .sum::<usize>();
    let mut keys: Vec<Bytes> = Vec::new();
    for address in state.accounts.keys() {
        keys.push(Bytes::copy_from_slice(address.as_slice()));
        for slot in state.slots.get(address).into_iter().flatten() {
            keys.push(Bytes::copy_from_slice(key(slot).as_slice()));
        }
    }
    let witness = ExecutionWitness {
        state: nodes,
        codes,
        headers,
    };
    Ok((witness, keys, stats))
}
