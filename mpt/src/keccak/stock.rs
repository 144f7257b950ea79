//! The idiomatic stock baseline (feature `stock-keccak`): OpenVM's stock Keccak-256 called the
//! way a user of stock OpenVM calls it.
//!
//! Such a user does not stream RLP into a sponge: they encode into a `Vec` (`alloy_rlp::encode`,
//! which allocates exactly the encoded length) and hash it with one
//! `openvm_keccak256::keccak256` call. This hasher keeps this crate's hasher API, so the trie,
//! headers and the chain digest hash through it unchanged, but it only collects bytes: callers
//! that know the encoded length say so ([`Keccak256::with_capacity`], as `alloy_rlp::encode`
//! does), and [`Keccak256::finalize`] makes the one call. Everything after that is OpenVM's:
//! its sponge, its `native_xorin` and the heap buffers it allocates.

use alloc::vec::Vec;
use alloy_primitives::B256;
use core::mem::MaybeUninit;

/// Collects the bytes to hash, then hashes them in one `openvm_keccak256::keccak256` call.
#[derive(Clone)]
pub struct Keccak256 {
    bytes: Vec<u8>,
    spill: [MaybeUninit<u8>; 8],
}

impl core::fmt::Debug for Keccak256 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Keccak256")
            .field("len", &self.bytes.len())
            .finish_non_exhaustive()
    }
}

impl Default for Keccak256 {
    fn default() -> Self {
        Self::new()
    }
}

impl Keccak256 {
    /// A fresh hasher.
    pub const fn new() -> Self {
        Self {
            bytes: Vec::new(),
            spill: [MaybeUninit::uninit(); 8],
        }
    }

    /// A fresh hasher for an input of `len` bytes: one allocation of exactly that size.
    pub fn with_capacity(len: usize) -> Self {
        Self {
            bytes: Vec::with_capacity(len),
            spill: [MaybeUninit::uninit(); 8],
        }
    }

    /// Append `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.bytes.extend_from_slice(data);
    }

    /// Append one byte.
    #[inline]
    pub fn update_byte(&mut self, byte: u8) {
        self.bytes.push(byte);
    }

    /// Hash everything appended, in one call.
    #[inline]
    pub fn finalize(self) -> B256 {
        B256::new(openvm_keccak256::keccak256(&self.bytes))
    }
}

super::impl_buf_mut!(impl for Keccak256);
