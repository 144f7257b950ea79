//! The child a deletion's collapse needs, derived from the witness when it is not there.
//!
//! Deleting a key can leave a branch with one child, which the branch then folds into
//! ([`super::mutate`]): that needs the child's node. A `debug_executionWitness` witness carries
//! it; a witness made of `eth_getProof` answers does not, because no proven key passes through
//! that child (had one, its node would be on that key's proof). What such a witness does have,
//! when it holds the proof of the deleted key *in the post-state*, is the node that replaced
//! the branch: the child's leaf or extension with the branch's nibble (and any path an
//! extension above merged in) in front of its path. Dropping those nibbles gives back the
//! child, and the child's hash, which the branch holds, proves it.
//!
//! So when the child's hash is missing, every leaf and extension of the witness whose path
//! could end in the child's (its first nibbles are the last nibbles of the child's path, and a
//! leaf's length adds up to the key's) is shortened, re-encoded and hashed; one whose hash is
//! the branch's reference is the child. A node is still only ever used as the preimage of the
//! hash asked for, so this is exactly as sound as a witness that carried the child.
//!
//! Lazily, at the miss, rather than through an index built up front: a miss is rare (one per
//! collapse whose sibling no key of the block touched), only such witnesses have it, and it
//! already pulled and hashed every witness item; an index would shorten and hash every leaf
//! and extension of every witness for every suffix of its path, whether or not a block ever
//! deletes a key. A child that is a branch cannot be derived this way (no post-state proof
//! holds it): it stays [`TrieError::MissingNode`], which names its hash and path.

use alloc::borrow::Cow;
use alloy_primitives::B256;
use alloy_trie::nodes::RlpNode;
use alloy_trie::Nibbles;

use super::node::{decode_into, Shape};
use super::{Child, ChildRef, Kind, NodeId, Rlp, Trie};
use crate::error::TrieError;

impl<'s> Trie<'s> {
    /// Resolves the one child `remaining` left at `at` by a deletion of a `key_len`-nibble key,
    /// deriving it from the witness's leaves and extensions when the witness lacks it.
    pub(super) fn resolve_orphan(
        &mut self,
        remaining: Child<'s>,
        at: &Nibbles,
        key_len: usize,
    ) -> Result<NodeId, TrieError> {
        let missing = match self.resolve(remaining, at, at.len()) {
            Ok(id) => return Ok(id.expect("the remaining child is not empty")),
            Err(TrieError::MissingNode { hash, path }) => TrieError::MissingNode { hash, path },
            Err(other) => return Err(other),
        };
        let Child::Hash(hash) = remaining else {
            return Err(missing);
        };
        self.derive(hash, at, key_len).ok_or(missing)
    }

    /// Number of nodes derived so far ([`Trie::resolve_orphan`]).
    pub fn derived_nodes(&self) -> usize {
        self.derived
    }

    /// The node at `at` hashing to `hash`, made from a witness leaf or extension whose path
    /// ends with the node's; pushed into the arena. `None` when no witness node gives it.
    fn derive(&mut self, hash: &B256, at: &Nibbles, key_len: usize) -> Option<NodeId> {
        let store = self.store?;
        for bytes in store.items() {
            let mut children = [ChildRef::Empty; 16];
            let Ok(shape) = decode_into(bytes, &mut children) else {
                continue;
            };
            let (path, leaf) = match &shape {
                Shape::Leaf { path, .. } => (*path, true),
                Shape::Extension { path, .. } => (*path, false),
                Shape::Branch => continue,
            };
            // How many leading nibbles to drop: a leaf must end at the key's length; an
            // extension keeps at least one nibble.
            let drops = if leaf {
                match path.len().checked_sub(key_len.saturating_sub(at.len())) {
                    Some(drop) if drop > 0 => drop..drop + 1,
                    _ => continue,
                }
            } else {
                1..path.len()
            };
            for drop in drops {
                if drop > at.len() || path.slice(..drop) != at.slice(at.len() - drop..) {
                    continue;
                }
                if let Some(id) = self.try_derived(&shape, drop, hash) {
                    self.derived += 1;
                    return Some(id);
                }
            }
        }
        None
    }

    /// Pushes `shape` with its first `drop` nibbles dropped; keeps it if it hashes to `hash`.
    fn try_derived(&mut self, shape: &Shape<'s>, drop: usize, hash: &B256) -> Option<NodeId> {
        let mark = self.nodes.len();
        let kind = match *shape {
            Shape::Leaf { path, value } => Kind::Leaf {
                path: path.slice(drop..),
                value: Cow::Borrowed(value),
            },
            Shape::Extension { path, child } => Kind::Extension {
                path: path.slice(drop..),
                child: self.push_ref(child).ok()?,
            },
            Shape::Branch => return None,
        };
        let id = self.push(kind, None);
        if self.rlp_ref(id).as_hash() == Some(*hash) {
            self.nodes[id as usize].rlp = Some(Rlp::Node(RlpNode::word_rlp(hash)));
            return Some(id);
        }
        // Not it: nothing refers to the nodes pushed since `mark`.
        self.nodes.truncate(mark);
        None
    }
}
