//! A sparse Merkle-Patricia trie over witness nodes.
//!
//! A [`Trie`] is opened at a root hash over a [`WitnessStore`]. Nodes are decoded from the store
//! only when an operation walks through them (a child not yet needed stays a hash reference),
//! and kept in an arena; values and child hashes borrow the witness bytes. Each node caches its
//! RLP reference (its hash, or its encoding when under 32 bytes); a write clears the cache along
//! its path only, so [`Trie::root`] rehashes exactly the dirty paths, streaming each node's RLP
//! into the keccak sponge.
//!
//! A node the witness lacks is an error ([`TrieError::MissingNode`]) naming its hash and
//! path, never an empty default: absence is only ever reported when proven by the nodes.
//!
//! Keys must all have the same length (Ethereum's secure tries use 32-byte hashes), so values
//! live in leaves only; branch values are rejected as malformed.

mod encode;
mod mutate;
pub mod node;
mod orphan;
mod proof;
mod slot;
mod state;
pub mod store;
mod walk;

use alloc::borrow::Cow;
use alloc::vec::Vec;
use alloy_primitives::B256;
use alloy_trie::nodes::RlpNode;
use alloy_trie::{Nibbles, EMPTY_ROOT_HASH};

use crate::error::{NibblePath, TrieError};
use node::Shape;
pub use node::{ChildRef, RawNode};
use slot::Slot;
pub use state::StateTrie;
pub use store::{Item, WitnessStore};
pub use walk::{walk_leaves, WalkStats};

type NodeId = u32;

/// A reference from a parent (or the root) to a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Child<'s> {
    Empty,
    /// Not decoded yet: the hash of a node in the store.
    Hash(&'s B256),
    /// Decoded, at this index of the arena.
    Node(NodeId),
}

#[derive(Debug, Clone)]
enum Kind<'s> {
    Leaf {
        path: Nibbles,
        value: Cow<'s, [u8]>,
    },
    Extension {
        path: Nibbles,
        child: Child<'s>,
    },
    Branch {
        children: [Slot<'s>; 16],
        /// The branch's witness RLP, which its unchanged child hashes are views of: rehashed,
        /// the branch starts from a copy of it and rewrites only what changed ([`encode`]).
        /// The idiomatic stock-keccak build encodes every branch afresh and never reads it.
        #[cfg_attr(feature = "stock-keccak", allow(dead_code))]
        raw: Option<&'s [u8]>,
        /// One bit per slot whose subtree was written since the branch was decoded: a decoded
        /// child whose bit is clear still hashes to the reference in `raw` at its slot, so a
        /// rehash need not read it. Never cleared (a rewritten child's new hash differs from
        /// `raw`'s for good).
        changed: u16,
    },
}

#[derive(Debug, Clone)]
struct Node<'s> {
    kind: Kind<'s>,
    /// The node's RLP reference while it is unchanged since last hashed or decoded.
    rlp: Option<Rlp<'s>>,
}

/// A node's RLP reference.
#[derive(Debug, Clone)]
enum Rlp<'s> {
    /// The hash its parent in the witness refers to it by: a view of the parent's bytes, where
    /// an `RlpNode` would copy it (for every node decoded through a hash).
    Hash(&'s B256),
    /// Computed, or the root's: a hash reference, or a node under 32 bytes as itself.
    Node(RlpNode),
}

impl Rlp<'_> {
    /// The reference's encoded length.
    fn len(&self) -> usize {
        match self {
            Rlp::Hash(_) => 33,
            Rlp::Node(rlp) => rlp.len(),
        }
    }

    /// The node's hash, if it is referenced by hash (not embedded).
    fn as_hash(&self) -> Option<B256> {
        match self {
            Rlp::Hash(hash) => Some(**hash),
            Rlp::Node(rlp) => rlp.as_hash(),
        }
    }

    /// The node's hash: its reference, or, for a node embedded as itself (a root under 32
    /// bytes), the keccak of its bytes.
    fn node_hash(&self) -> B256 {
        match self {
            Rlp::Hash(hash) => **hash,
            Rlp::Node(rlp) => rlp
                .as_hash()
                .unwrap_or_else(|| crate::keccak256(rlp.as_slice())),
        }
    }

    /// Whether the node is referenced by hash (not embedded).
    fn is_hash(&self) -> bool {
        match self {
            Rlp::Hash(_) => true,
            Rlp::Node(rlp) => rlp.is_hash(),
        }
    }
}

/// A sparse Merkle-Patricia trie opened at a root over witness nodes.
#[derive(Debug, Clone)]
pub struct Trie<'s> {
    store: Option<&'s WitnessStore>,
    nodes: Vec<Node<'s>>,
    root: Child<'s>,
    /// Collapse children derived from the witness ([`orphan`]).
    derived: usize,
}

impl<'s> Trie<'s> {
    /// An empty trie with no witness behind it.
    pub const fn empty() -> Self {
        Self {
            store: None,
            nodes: Vec::new(),
            root: Child::Empty,
            derived: 0,
        }
    }

    /// Opens the trie whose root hash is `root`. The root node must be in `store` (unless
    /// `root` is the empty trie's root) and is decoded now; its children when first reached.
    pub fn open(store: &'s WitnessStore, root: B256) -> Result<Self, TrieError> {
        Self::open_with_capacity(store, root, 0)
    }

    /// [`Trie::open`] with room for `capacity` nodes before the arena grows. Growing copies
    /// the whole arena (the guest's bump allocator cannot extend in place) and touches its
    /// pages again, which a prover pays for; room reserved but never used costs nothing.
    pub fn open_with_capacity(
        store: &'s WitnessStore,
        root: B256,
        capacity: usize,
    ) -> Result<Self, TrieError> {
        let mut trie = Self {
            store: Some(store),
            nodes: Vec::with_capacity(capacity),
            root: Child::Empty,
            derived: 0,
        };
        if root != EMPTY_ROOT_HASH {
            // Decoded now: the store hands out nodes, not references to its hashes.
            let path = || NibblePath(Nibbles::new());
            let bytes = store.get(&root).ok_or(TrieError::MissingNode {
                hash: root,
                path: path(),
            })?;
            let malformed = |source| TrieError::MalformedNode {
                hash: root,
                path: path(),
                source,
            };
            let id = trie
                .push_encoded(bytes, Rlp::Node(RlpNode::word_rlp(&root)))
                .map_err(malformed)?;
            trie.root = Child::Node(id);
        }
        Ok(trie)
    }

    /// Number of nodes decoded or created so far.
    pub fn decoded_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// The value stored at `key`, or `None` when the nodes prove there is none.
    pub fn get(&mut self, key: &[u8]) -> Result<Option<&[u8]>, TrieError> {
        let key = unpack(key)?;
        let mut depth = 0;
        let root = self.root;
        let Some(mut id) = self.resolve(root, &key, 0)? else {
            return Ok(None);
        };
        self.root = Child::Node(id);
        loop {
            let next = match &self.nodes[id as usize].kind {
                Kind::Leaf { path, .. } => {
                    if depth + path.len() != key.len() {
                        return Err(key_length(&key, depth));
                    }
                    if key.slice(depth..) != *path {
                        return Ok(None);
                    }
                    break;
                }
                Kind::Extension { path, child } => {
                    let rest = key.slice(depth..);
                    if !rest.starts_with(path) {
                        return if path.starts_with(&rest) {
                            Err(key_length(&key, key.len()))
                        } else {
                            Ok(None)
                        };
                    }
                    depth += path.len();
                    (*child, None)
                }
                Kind::Branch { children, .. } => {
                    let Some(nibble) = key.get(depth) else {
                        return Err(key_length(&key, depth));
                    };
                    depth += 1;
                    (children[nibble as usize].get(), Some(nibble))
                }
            };
            let (child, slot) = next;
            let Some(child_id) = self.resolve(child, &key, depth)? else {
                return Ok(None);
            };
            self.set_child(id, slot, Child::Node(child_id));
            id = child_id;
        }
        match &self.nodes[id as usize].kind {
            Kind::Leaf { value, .. } => Ok(Some(value)),
            _ => unreachable!("the walk stops at leaves only"),
        }
    }

    /// The root hash, rehashing the nodes changed since the last call.
    pub fn root(&mut self) -> B256 {
        match self.root {
            Child::Empty => EMPTY_ROOT_HASH,
            Child::Hash(hash) => *hash,
            Child::Node(id) => self.rlp_ref(id).node_hash(),
        }
    }

    /// The parent's reference to a child: an extension's (`slot == None`) or a branch's.
    fn child_at(&self, id: NodeId, slot: Option<u8>) -> Child<'s> {
        match (&self.nodes[id as usize].kind, slot) {
            (Kind::Extension { child, .. }, None) => *child,
            (Kind::Branch { children, .. }, Some(nibble)) => children[nibble as usize].get(),
            _ => unreachable!("child slot of a leaf"),
        }
    }

    /// Sets the parent's reference to a child ([`Trie::child_at`]).
    fn set_child(&mut self, id: NodeId, slot: Option<u8>, new: Child<'s>) {
        match (&mut self.nodes[id as usize].kind, slot) {
            (Kind::Extension { child, .. }, None) => *child = new,
            (Kind::Branch { children, .. }, Some(nibble)) => {
                // Planted bug (test-only mutant): a slot holding a decoded node keeps it, as if
                // a node were only ever edited in place.
                #[cfg(feature = "plant-stale-slot")]
                if let (Child::Node(_), Child::Node(_)) = (children[nibble as usize].get(), new) {
                    return;
                }
                children[nibble as usize] = Slot::new(new)
            }
            _ => unreachable!("child slot of a leaf"),
        }
    }

    /// Decodes `child` (found at `key[..depth]`) into the arena if it is a hash reference.
    fn resolve(
        &mut self,
        child: Child<'s>,
        key: &Nibbles,
        depth: usize,
    ) -> Result<Option<NodeId>, TrieError> {
        match child {
            Child::Empty => Ok(None),
            Child::Node(id) => Ok(Some(id)),
            Child::Hash(hash) => {
                let path = || NibblePath(key.slice(..depth));
                let bytes =
                    self.store
                        .and_then(|s| s.get(hash))
                        .ok_or_else(|| TrieError::MissingNode {
                            hash: *hash,
                            path: path(),
                        })?;
                let malformed = |source| TrieError::MalformedNode {
                    hash: *hash,
                    path: path(),
                    source,
                };
                self.push_encoded(bytes, Rlp::Hash(hash))
                    .map(Some)
                    .map_err(malformed)
            }
        }
    }

    /// Decodes the node `bytes` (and the nodes embedded in it) into the arena. A branch is
    /// pushed first and its children written into it in place, so no node value is moved.
    fn push_encoded(
        &mut self,
        bytes: &'s [u8],
        rlp: Rlp<'s>,
    ) -> Result<NodeId, crate::error::NodeError> {
        let mut refs = [ChildRef::Empty; 16];
        let kind = match node::decode_into(bytes, &mut refs)? {
            Shape::Leaf { path, value } => Kind::Leaf {
                path,
                value: Cow::Borrowed(value),
            },
            Shape::Extension { path, child } => Kind::Extension {
                path,
                child: self.push_ref(child)?,
            },
            Shape::Branch => {
                // Hashes and empty slots go into the node as it is pushed; only an inline
                // child (rare: a node under 32 bytes) is decoded after its parent, as before.
                let mut children = [Slot::EMPTY; 16];
                let mut inline = false;
                for (slot, r) in children.iter_mut().zip(&refs) {
                    match *r {
                        ChildRef::Empty => {}
                        ChildRef::Hash(hash) => *slot = Slot::new(Child::Hash(hash)),
                        ChildRef::Inline(_) => inline = true,
                    }
                }
                let branch = Kind::Branch {
                    children,
                    raw: Some(bytes),
                    changed: 0,
                };
                let id = self.push(branch, Some(rlp));
                if inline {
                    // By reference: `into_iter` would move the 192-byte array first (a `memcpy`).
                    for (nibble, &r) in refs.iter().enumerate() {
                        if !matches!(r, ChildRef::Inline(_)) {
                            continue;
                        }
                        let child = self.push_ref(r)?;
                        self.set_child(id, Some(nibble as u8), child);
                    }
                }
                return Ok(id);
            }
        };
        Ok(self.push(kind, Some(rlp)))
    }

    fn push_ref(&mut self, r: ChildRef<'s>) -> Result<Child<'s>, crate::error::NodeError> {
        Ok(match r {
            ChildRef::Empty => Child::Empty,
            ChildRef::Hash(hash) => Child::Hash(hash),
            ChildRef::Inline(bytes) => {
                let rlp = RlpNode::from_raw(bytes).expect("inline nodes are under 32 bytes");
                Child::Node(self.push_encoded(bytes, Rlp::Node(rlp))?)
            }
        })
    }

    fn push(&mut self, kind: Kind<'s>, rlp: Option<Rlp<'s>>) -> NodeId {
        let id = NodeId::try_from(self.nodes.len()).expect("trie arena exceeds u32::MAX nodes");
        self.nodes.push(Node { kind, rlp });
        id
    }
}

/// A key as nibbles; a key over 32 bytes does not fit a trie path.
pub(crate) fn unpack(key: &[u8]) -> Result<Nibbles, TrieError> {
    if key.len() > 32 {
        return Err(TrieError::KeyTooLong(key.len()));
    }
    Ok(Nibbles::unpack(key))
}

/// `prefix` followed by `rest`; a [`TrieError::PathTooDeep`] instead of `Nibbles`' assertion when
/// a crafted node makes the two pass 64 nibbles.
pub(crate) fn join_path(prefix: &Nibbles, rest: &Nibbles) -> Result<Nibbles, TrieError> {
    if prefix.len() + rest.len() > 64 {
        return Err(TrieError::PathTooDeep {
            path: NibblePath(*prefix),
            extra: rest.len(),
        });
    }
    Ok(prefix.join(rest))
}

fn key_length(key: &Nibbles, depth: usize) -> TrieError {
    TrieError::KeyLength {
        key: NibblePath(*key),
        path: NibblePath(key.slice(..depth.min(key.len()))),
    }
}
