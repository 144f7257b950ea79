//! What a witness holds, and what of the pre-state it reaches.
//!
//! Checks that the pre-state root (the parent header's `state_root`, or one given by the user
//! for a block whose witness lacks the parent header) is a witness node, then walks every
//! account and storage slot reachable from it through the witness's nodes. A fetched witness
//! can thus be checked before any block runs.

use std::time::{Duration, Instant};

use alloy_primitives::B256;
use alloy_rlp::Decodable;
use alloy_trie::{TrieAccount, EMPTY_ROOT_HASH};
use mpt::trie::walk_leaves;
use mpt::TrieError;
use program::WitnessError;

use chaindata::blocks::BlockData;

/// Where the pre-state root came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootSource {
    /// The parent header's `state_root` (the last of the witness's headers).
    ParentHeader,
    /// Given by the user (`--pre-state-root`).
    Given,
}

/// What [`inspect`] found.
#[derive(Debug, Clone)]
pub struct WitnessReport {
    /// The block's id.
    pub block: String,
    /// keccak256 of the block header.
    pub block_hash: B256,
    /// Trie nodes in the witness (with duplicates).
    pub nodes: usize,
    /// Distinct trie nodes.
    pub distinct_nodes: usize,
    /// Bytecodes.
    pub codes: usize,
    /// Ancestor headers.
    pub headers: usize,
    /// Bytes of node RLP.
    pub node_bytes: usize,
    /// The pre-state root and where it came from.
    pub pre_state_root: (B256, RootSource),
    /// Accounts reachable from the root.
    pub accounts: usize,
    /// Storage tries whose root node is in the witness.
    pub storage_tries: usize,
    /// Storage slots reachable.
    pub slots: usize,
    /// Nodes reached (account trie and storage tries).
    pub reached_nodes: usize,
    /// Child references the witness does not resolve (subtrees the block does not touch).
    pub unresolved: usize,
    /// Time to hash every node into the store.
    pub hash_time: Duration,
    /// Time to walk the reachable tries.
    pub walk_time: Duration,
}

/// Why a witness cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// The witness does not give a usable pre-state.
    #[error(transparent)]
    Witness(#[from] WitnessError),
    /// A trie node on the way is malformed.
    #[error(transparent)]
    Trie(#[from] TrieError),
}

/// Checks the witness of `data` against its pre-state root and walks what it reaches.
pub fn inspect(data: &BlockData, given_root: Option<B256>) -> Result<WitnessReport, InspectError> {
    let witness = &data.witness;
    let started = Instant::now();
    let store = witness.store();
    let hash_time = started.elapsed();

    let (root, source) = match given_root {
        Some(root) => (root, RootSource::Given),
        None => (witness.parent_state_root()?, RootSource::ParentHeader),
    };
    if root != EMPTY_ROOT_HASH && !store.contains(&root) {
        return Err(WitnessError::PreStateRootNotInWitness(root).into());
    }

    let started = Instant::now();
    let mut accounts = Vec::new();
    let stats = walk_leaves(&store, root, |path, mut leaf| {
        accounts.push((
            B256::from_slice(&path.pack()),
            TrieAccount::decode(&mut leaf),
        ));
    })?;
    let (mut storage_tries, mut slots, mut reached, mut unresolved) =
        (0, 0, stats.nodes, stats.unresolved);
    for (hashed_address, account) in accounts.iter() {
        let account = account
            .as_ref()
            .map_err(|&source| TrieError::MalformedAccount {
                hashed_address: *hashed_address,
                source,
            })?;
        if account.storage_root == EMPTY_ROOT_HASH || !store.contains(&account.storage_root) {
            continue;
        }
        storage_tries += 1;
        let s = walk_leaves(&store, account.storage_root, |_, _| {})?;
        slots += s.leaves;
        reached += s.nodes;
        unresolved += s.unresolved;
    }
    Ok(WitnessReport {
        block: data.id.clone(),
        block_hash: data.block_hash(),
        nodes: witness.state.len(),
        distinct_nodes: store.distinct(),
        codes: witness.codes.len(),
        headers: witness.headers.len(),
        node_bytes: witness.state.iter().map(|n| n.len()).sum(),
        pre_state_root: (root, source),
        accounts: accounts.len(),
        storage_tries,
        slots,
        reached_nodes: reached,
        unresolved,
        hash_time,
        walk_time: started.elapsed(),
    })
}
