//! Witness nodes by hash.

use alloy_primitives::{map::B256Map, B256};

use crate::keccak256;

/// The witness's trie nodes (RLP byte strings), each hashed once through the sponge and kept
/// by its hash. Borrows the input bytes: nothing is copied.
///
/// The same shape serves bytecodes keyed by code hash.
#[derive(Debug, Clone, Default)]
pub struct NodeStore<'a> {
    nodes: B256Map<&'a [u8]>,
}

impl<'a> NodeStore<'a> {
    /// Hashes every node and keeps it by its hash. Duplicates collapse into one entry.
    pub fn new<I>(nodes: I) -> Self
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        let nodes = nodes.into_iter();
        let mut map = B256Map::with_capacity_and_hasher(nodes.size_hint().0, Default::default());
        for node in nodes {
            map.insert(keccak256(node), node);
        }
        Self { nodes: map }
    }

    /// The node whose RLP hashes to `hash`.
    #[inline]
    pub fn get(&self, hash: &B256) -> Option<&'a [u8]> {
        self.nodes.get(hash).copied()
    }

    /// The stored key equal to `hash` (a reference that lives as long as the store).
    #[inline]
    pub fn key(&self, hash: &B256) -> Option<&B256> {
        self.nodes.get_key_value(hash).map(|(k, _)| k)
    }

    /// Whether a node hashes to `hash`.
    #[inline]
    pub fn contains(&self, hash: &B256) -> bool {
        self.nodes.contains_key(hash)
    }

    /// Number of distinct nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the store holds no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}
