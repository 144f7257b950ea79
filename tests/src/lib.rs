//! Shared helpers of the integration tests: where the block data lives (the project's own and
//! the real blocks).
//!
//! Real blocks are read from `../shared/blocks/` beside the project root (never copied into
//! the project). `SHARED_BLOCKS_DIR` points elsewhere.

use std::path::PathBuf;

pub mod proofs;
pub mod rpc;
pub mod state_rpc;

/// A directory of one test under the system's temp dir (`sv-<name>-<pid>`), removed when
/// dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// The directory, made fresh and empty.
    pub fn empty(name: &str) -> Self {
        let scratch = Self::absent(name);
        std::fs::create_dir_all(&scratch.0).unwrap();
        scratch
    }

    /// The path, with nothing there (whatever an earlier run left is removed).
    pub fn absent(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sv-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Self(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = PathBuf;

    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The project's own `blocks/` (the generated devnet blocks and their manifest).
pub fn project_blocks_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../blocks")
}

/// `../shared/blocks` beside the workspace root, or `$SHARED_BLOCKS_DIR`.
pub fn shared_blocks_dir() -> PathBuf {
    let dir = std::env::var_os("SHARED_BLOCKS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/blocks"));
    assert!(
        dir.join("README.md").is_file(),
        "real block data not found at {} (set SHARED_BLOCKS_DIR)",
        dir.display()
    );
    dir
}

/// The real mainnet blocks: number, block hash (from `../shared/blocks/README.md`).
pub const MAINNET: [(u64, &str); 3] = [
    (
        24171384,
        "0x088f187b1a58bf6e611c37046ed948008af381d9a9eb1c29a2eae91cbcba0a09",
    ),
    (
        21882667,
        "0x71e7a6a427d2d43f3fe4164248d877885678243ccc5747f477604a7393aecf87",
    ),
    (
        23587691,
        "0x9947c2115bd723806b7e9ebe5d1787696b7e87f00de6528e30f9314ea4382182",
    ),
];

/// The pre-state root of 23587691, whose witness has no parent header (given by the data's
/// source, `../shared/blocks/README.md`).
pub const ROOT_23587691: &str =
    "0x44e6f38a566ff52b4d6acb3e6db2e827cabdf65195891057c5b698900104941a";

/// The first `n` cases of the EF blockchain test `InitCollisionParis` (Cancun, one block each:
/// EIP-7610 collisions), as the VM sample takes them.
pub fn init_collision_cases(n: usize) -> Vec<host::ef_tests::vm::SampledCase> {
    let file = shared_blocks_dir()
        .join("../ef-tests/BlockchainTests/GeneralStateTests/stSStoreTest/InitCollisionParis.json");
    (0..n)
        .map(|d| host::ef_tests::vm::SampledCase {
            file: file.clone(),
            source: file.clone(),
            network: "Cancun".into(),
            name: format!("InitCollisionParis_d{d}g0v0_Cancun"),
            blocks: 1,
        })
        .collect()
}

/// Loads a mainnet block.
pub fn mainnet_block(number: u64) -> chaindata::blocks::BlockData {
    chaindata::blocks::load(&shared_blocks_dir().join("mainnet"), &number.to_string())
        .unwrap_or_else(|e| panic!("loading block {number}: {e}"))
}

/// Hashes of the witness nodes on the path from `root` to `key`'s leaf (or to where the path
/// ends), root first. Panics on a missing or malformed node: for tests on complete witnesses.
pub fn path_to(
    store: &mpt::WitnessStore,
    root: alloy_primitives::B256,
    key: alloy_primitives::B256,
) -> Vec<alloy_primitives::B256> {
    use mpt::trie::{ChildRef, RawNode};
    let nibbles = alloy_trie::Nibbles::unpack(key);
    let (mut hashes, mut bytes, mut depth) = (vec![root], store.get(&root).expect("root node"), 0);
    loop {
        let next = match RawNode::decode(bytes).expect("valid node") {
            RawNode::Leaf { .. } => return hashes,
            RawNode::Extension { path, child } => {
                depth += path.len();
                child
            }
            RawNode::Branch(children) => {
                depth += 1;
                children[nibbles.get_unchecked(depth - 1) as usize]
            }
        };
        bytes = match next {
            ChildRef::Hash(h) => {
                hashes.push(*h);
                store.get(h).expect("node on the path")
            }
            ChildRef::Inline(inline) => inline,
            ChildRef::Empty => return hashes,
        };
    }
}
