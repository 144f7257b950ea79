//! Merkle proofs of keys, shaped as `eth_getProof` returns them: the nodes on a key's path,
//! root first, each node that its parent references by hash (nodes under 32 bytes are inside
//! their parent's encoding). A proof of an absent key ends where the path leaves the trie.
//!
//! The host builds witnesses from such proofs (and tests that the validator accepts them); on
//! a changed trie the proof is of the current state, so the same walk gives the parent-block
//! and the post-block proofs of a key.

use alloc::vec::Vec;

use super::{unpack, Child, Kind, NodeId, Trie};
use crate::error::TrieError;

impl Trie<'_> {
    /// The RLP of the nodes on `key`'s path, root first (the root even when under 32 bytes).
    /// Empty for an empty trie.
    pub fn proof(&mut self, key: &[u8]) -> Result<Vec<Vec<u8>>, TrieError> {
        // Values read before the walk would be stale after it: make every reference current.
        self.root();
        let key = unpack(key)?;
        let mut ids: Vec<NodeId> = Vec::new();
        let mut depth = 0;
        // The reference to follow, and where it sits: the root, or a slot of the last node.
        let (mut next, mut slot) = (self.root, None);
        while let Some(id) = self.resolve(next, &key, depth)? {
            match ids.last() {
                Some(&parent) => self.set_child(parent, slot, Child::Node(id)),
                None => self.root = Child::Node(id),
            }
            ids.push(id);
            (next, slot) = match &self.nodes[id as usize].kind {
                Kind::Leaf { .. } => break,
                Kind::Extension { path, child } => {
                    if !key.slice(depth..).starts_with(path) {
                        break;
                    }
                    depth += path.len();
                    (*child, None)
                }
                Kind::Branch { children, .. } => match key.get(depth) {
                    Some(nibble) => {
                        depth += 1;
                        (children[nibble as usize].get(), Some(nibble))
                    }
                    None => break,
                },
            };
        }
        // A node decoded here carries its hash already; `root` above hashed the rest.
        let mut out = Vec::with_capacity(ids.len());
        for (i, &id) in ids.iter().enumerate() {
            let hashed = self.rlp_ref(id).is_hash();
            if i == 0 || hashed {
                let mut rlp = Vec::new();
                self.encode_node(id, &mut rlp);
                out.push(rlp);
            }
        }
        Ok(out)
    }
}
