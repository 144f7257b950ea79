//! Block data as the host reads it, below everything that makes or uses it.
//!
//! - [`blocks`]: block files on disk (`<n>.block.rlp`, `<n>.witness.json`) and where they live;
//! - [`chain`]: chain configurations from JSON (genesis configs, test `network` names, the
//!   known chains), and the devnet's forks and configs;
//! - [`fixtures`]: a full pre-state (a blockchain test's, the devnet's genesis) as a witness.
//!
//! Its own crate because three crates read it and none of them needs the others: the node
//! fetcher (`fetch`) writes block files, the generator (`blockgen`) writes them with a chain
//! config and a full-state witness, and the host reads all three. None of it touches OpenVM.

pub mod blocks;
pub mod chain;
pub mod fixtures;
