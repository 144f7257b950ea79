//! Walking every leaf a witness can reach from a root.
//!
//! Witnesses are partial: a walk follows each child present in the store and counts the ones
//! that are not (subtrees the block never touched), so a tool can report what a witness covers
//! without running a block.

use alloc::vec::Vec;
use alloy_primitives::B256;
use alloy_trie::{Nibbles, EMPTY_ROOT_HASH};

use super::{join_path, ChildRef, RawNode, WitnessStore};
use crate::error::{NibblePath, TrieError};

/// What [`walk_leaves`] saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkStats {
    /// Nodes decoded (hashed and embedded).
    pub nodes: usize,
    /// Leaves visited.
    pub leaves: usize,
    /// Child hashes not in the store (unvisited subtrees).
    pub unresolved: usize,
}

/// Calls `visit(full_key_path, value)` for every leaf reachable from `root` through nodes in
/// `store`. The root itself must be present; a node that does not decode is an error.
pub fn walk_leaves<'a>(
    store: &'a WitnessStore,
    root: B256,
    mut visit: impl FnMut(&Nibbles, &'a [u8]),
) -> Result<WalkStats, TrieError> {
    let mut stats = WalkStats::default();
    if root == EMPTY_ROOT_HASH {
        return Ok(stats);
    }
    let bytes = store.get(&root).ok_or(TrieError::MissingNode {
        hash: root,
        path: NibblePath(Nibbles::new()),
    })?;
    // (node bytes, hash of the witness node holding them, path to the node)
    let mut stack: Vec<(&'a [u8], B256, Nibbles)> = alloc::vec![(bytes, root, Nibbles::new())];
    while let Some((bytes, hash, path)) = stack.pop() {
        stats.nodes += 1;
        let node = RawNode::decode(bytes).map_err(|source| TrieError::MalformedNode {
            hash,
            path: NibblePath(path),
            source,
        })?;
        let mut follow = |child: ChildRef<'a>, path: Nibbles, stats: &mut WalkStats| match child {
            ChildRef::Empty => {}
            ChildRef::Inline(inline) => stack.push((inline, hash, path)),
            ChildRef::Hash(h) => match store.get(h) {
                Some(bytes) => stack.push((bytes, *h, path)),
                None => stats.unresolved += 1,
            },
        };
        match node {
            RawNode::Leaf { path: rest, value } => {
                stats.leaves += 1;
                visit(&join_path(&path, &rest)?, value);
            }
            RawNode::Extension { path: rest, child } => {
                follow(child, join_path(&path, &rest)?, &mut stats)
            }
            RawNode::Branch(children) => {
                for (nibble, child) in children.into_iter().enumerate() {
                    let at = join_path(&path, &Nibbles::from_nibbles([nibble as u8]))?;
                    follow(child, at, &mut stats);
                }
            }
        }
    }
    Ok(stats)
}
