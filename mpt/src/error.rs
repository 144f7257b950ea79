//! Typed errors: each names what is wrong and where (which node, which path, which root).

use alloc::boxed::Box;
use alloy_primitives::B256;
use alloy_trie::Nibbles;
use core::fmt;

/// A nibble path from a trie's root, shown as hex nibbles (`0x3a7` is three nibbles deep).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct NibblePath(pub Nibbles);

impl fmt::Display for NibblePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("<root>");
        }
        f.write_str("0x")?;
        for nibble in self.0.iter() {
            write!(f, "{nibble:x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for NibblePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why the bytes of a trie node are not a valid node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NodeError {
    /// Not decodable as RLP.
    #[error("invalid RLP: {0}")]
    Rlp(alloy_rlp::Error),
    /// A node is an RLP list.
    #[error("not an RLP list")]
    NotAList,
    /// Bytes after the node's list.
    #[error("{0} trailing bytes after the node")]
    TrailingBytes(usize),
    /// A node has 2 (leaf, extension) or 17 (branch) items.
    #[error("list of {0} items (a node has 2 or 17)")]
    ItemCount(usize),
    /// A child reference that is not empty, a 32-byte hash or an embedded node.
    #[error("child {0} is neither empty, a 32-byte hash nor an embedded node")]
    BadChild(u8),
    /// An embedded node must encode to less than 32 bytes.
    #[error("embedded node of {0} bytes (must be under 32)")]
    InlineTooLong(usize),
    /// Branch values do not occur in tries whose keys all have one length.
    #[error("branch with a value (keys of one length never end at a branch)")]
    BranchValue,
    /// The hex-prefix path is a list, empty, or has an unknown flag.
    #[error("invalid hex-prefix path (first byte {0:#04x})")]
    BadPath(u8),
    /// A path longer than a 32-byte key.
    #[error("path of more than 64 nibbles")]
    PathTooLong,
    /// An extension with no nibbles or no child.
    #[error("extension with an empty path or no child")]
    BadExtension,
    /// A leaf whose value is a list or empty.
    #[error("leaf value is empty or not a byte string")]
    BadLeafValue,
}

impl From<alloy_rlp::Error> for NodeError {
    fn from(e: alloy_rlp::Error) -> Self {
        Self::Rlp(e)
    }
}

/// A failed trie operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrieError {
    /// The witness lacks a node the operation must read.
    #[error("missing trie node {hash} at path {path}")]
    MissingNode {
        /// The node's hash, as referenced by its parent (or the root).
        hash: B256,
        /// Where the reference sits.
        path: NibblePath,
    },
    /// A witness node (or a node embedded in it) is not a valid trie node.
    #[error("malformed trie node {hash} at path {path}: {source}")]
    MalformedNode {
        /// The hash of the witness node holding the bad bytes.
        hash: B256,
        /// Where the bad node sits.
        path: NibblePath,
        /// What is wrong with it.
        source: NodeError,
    },
    /// A key ends at a branch or runs past a leaf: the trie's keys differ in length.
    #[error("key {key} ends inside the trie at path {path} (keys must all have one length)")]
    KeyLength {
        /// The key, as nibbles.
        key: NibblePath,
        /// Where it ended.
        path: NibblePath,
    },
    /// A key longer than 32 bytes (a trie path holds at most 64 nibbles).
    #[error("key of {0} bytes (at most 32)")]
    KeyTooLong(usize),
    /// A node's path continues past a 32-byte key (64 nibbles): the node cannot be part of a
    /// trie whose keys are 32 bytes, so the witness is corrupt.
    #[error("the trie path at {path} continues {extra} nibbles past a 64-nibble key")]
    PathTooDeep {
        /// Where the node sits.
        path: NibblePath,
        /// How many nibbles its own path adds.
        extra: usize,
    },
    /// A computed root differs from the one expected.
    #[error("root mismatch: expected {expected}, got {got}")]
    RootMismatch {
        /// The root the caller expected (e.g. a header's `state_root`).
        expected: B256,
        /// The root computed.
        got: B256,
    },
    /// An account leaf does not decode as `[nonce, balance, storage_root, code_hash]`.
    #[error("malformed account leaf at key {hashed_address}: {source}")]
    MalformedAccount {
        /// `keccak256(address)`.
        hashed_address: B256,
        /// The RLP error.
        source: alloy_rlp::Error,
    },
    /// A storage leaf does not decode as an RLP integer.
    #[error("malformed storage value of account {hashed_address} at key {hashed_slot}: {source}")]
    MalformedStorage {
        /// `keccak256(address)`.
        hashed_address: B256,
        /// `keccak256(slot)`.
        hashed_slot: B256,
        /// The RLP error.
        source: alloy_rlp::Error,
    },
    /// Storage was written for an account that does not exist when the root is computed.
    #[error("storage of account {0} changed, but the account does not exist")]
    StorageWithoutAccount(B256),
    /// An error inside the storage trie of an account.
    #[error("in the storage trie of account {hashed_address}: {source}")]
    Storage {
        /// `keccak256(address)`.
        hashed_address: B256,
        /// The storage trie's error.
        source: Box<TrieError>,
    },
}
