//! `mpt`: the keccak sponge and the Merkle-Patricia trie every hash and every state lookup of
//! the stateless verifier goes through. `no_std` (with `alloc`), built for the OpenVM guest and
//! the host alike.
//!
//! - [`keccak`]: Keccak-256 on OpenVM's `XORIN`/`KECCAKF`, with heap-free unaligned absorbs.
//! - [`trie`]: a sparse trie over RLP witness nodes: lookups, proven absence, updates and
//!   deletions, and a root that rehashes only what changed.
#![no_std]
#![warn(missing_docs)]

extern crate alloc;

pub mod keccak;

pub use keccak::{keccak256, Keccak256};
pub mod error;
pub mod trie;

pub use error::{NibblePath, NodeError, TrieError};
pub use trie::{StateTrie, Trie, WitnessStore};
