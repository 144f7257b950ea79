//! The execution witness: what a stateless verifier is given besides the block.
//!
//! Same content as `debug_executionWitness` (minus `keys`, which validation does not need):
//! `state` (RLP trie nodes of the account and storage tries), `codes` (bytecodes) and `headers`
//! (RLP ancestor headers, oldest first, parent last). The guest receives it in the input's
//! frames ([`crate::input`]): byte strings are views of the input, nothing is parsed twice.
//!
//! Nodes and codes may come in any order: each is accepted only as the preimage of a hash
//! the validation trusts, and is hashed only when first needed ([`mpt::WitnessStore`]). The order
//! decides the cost alone; the host writes them in the order its native run first needed
//! them, so the guest hashes each one once, when it uses it.

use alloc::vec::Vec;
use alloy_primitives::{Bytes, B256};
use alloy_rlp::{Decodable, Header, RlpDecodable, RlpEncodable};
use mpt::{StateTrie, TrieError, WitnessStore};

/// The execution witness of one block.
#[derive(Debug, Clone, Default, PartialEq, Eq, RlpEncodable, RlpDecodable)]
pub struct ExecutionWitness {
    /// RLP-encoded trie nodes (account trie and storage tries), in any order.
    pub state: Vec<Bytes>,
    /// Contract bytecodes, in any order.
    pub codes: Vec<Bytes>,
    /// RLP-encoded ancestor headers, oldest first; the last is the block's parent.
    pub headers: Vec<Bytes>,
}

/// Why a witness cannot serve as the block's pre-state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WitnessError {
    /// `headers` is empty: without the parent header there is no trusted pre-state root.
    #[error(
        "the witness has no parent header (`headers` is empty), so the pre-state root is unknown"
    )]
    NoParentHeader,
    /// An ancestor header is not RLP of a header list.
    #[error("ancestor header {index} (of {count}) is malformed: {source}")]
    MalformedHeader {
        /// Its index in `headers`.
        index: usize,
        /// How many headers the witness has.
        count: usize,
        /// The RLP error.
        source: alloy_rlp::Error,
    },
    /// No witness node hashes to the parent's state root.
    #[error("no witness node hashes to the parent's state root {0}")]
    PreStateRootNotInWitness(B256),
    /// Any other trie error while opening the pre-state.
    #[error(transparent)]
    Trie(#[from] TrieError),
}

/// The `state_root` field of an RLP header: the fourth item of the header's list
/// (`[parent_hash, ommers_hash, beneficiary, state_root, ...]`).
pub fn header_state_root(mut rlp: &[u8]) -> Result<B256, alloy_rlp::Error> {
    let header = Header::decode(&mut rlp)?;
    if !header.list {
        return Err(alloy_rlp::Error::UnexpectedString);
    }
    let _parent_hash = B256::decode(&mut rlp)?;
    let _ommers_hash = B256::decode(&mut rlp)?;
    let _beneficiary = alloy_primitives::Address::decode(&mut rlp)?;
    B256::decode(&mut rlp)
}

impl ExecutionWitness {
    /// The state nodes and codes by hash, in this order (each hashed once, through the
    /// sponge, when first asked for). They share the input's bytes.
    pub fn store(&self) -> WitnessStore {
        WitnessStore::new(self.state.iter().chain(&self.codes).cloned())
    }

    /// The pre-state root: the parent header's `state_root`.
    pub fn parent_state_root(&self) -> Result<B256, WitnessError> {
        let count = self.headers.len();
        let parent = self.headers.last().ok_or(WitnessError::NoParentHeader)?;
        header_state_root(parent).map_err(|source| WitnessError::MalformedHeader {
            index: count - 1,
            count,
            source,
        })
    }

    /// Opens the pre-state over `store` (built by [`ExecutionWitness::node_store`]): the root
    /// node must be among the witness's nodes.
    pub fn pre_state<'s>(&self, store: &'s WitnessStore) -> Result<StateTrie<'s>, WitnessError> {
        open_pre_state(store, self.parent_state_root()?)
    }
}

/// Opens the state at `root` (the parent's `state_root`) over the witness's nodes; a root that
/// no node hashes to is [`WitnessError::PreStateRootNotInWitness`].
pub fn open_pre_state<'s>(
    store: &'s WitnessStore,
    root: B256,
) -> Result<StateTrie<'s>, WitnessError> {
    StateTrie::open(store, root).map_err(|e| match e {
        TrieError::MissingNode { hash, .. } if hash == root => {
            WitnessError::PreStateRootNotInWitness(root)
        }
        other => other.into(),
    })
}
