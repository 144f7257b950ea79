//! OpenVM's stock Keccak-256 (`openvm_keccak256::Keccak256`), behind this crate's hasher API.
//!
//! Only the calling convention is adapted (`finalize` returning a [`B256`], byte absorbs, and
//! [`bytes::BufMut`]); every absorb goes through OpenVM's own sponge and its `native_xorin`, so
//! a `stock-keccak` build measures OpenVM's keccak path as shipped.

use alloy_primitives::B256;
use core::mem::MaybeUninit;

/// OpenVM's stock incremental Keccak-256 hasher.
#[derive(Clone)]
pub struct Keccak256 {
    inner: openvm_keccak256::Keccak256,
    spill: [MaybeUninit<u8>; 8],
    /// The stock sponge's absorb offset, replayed for the census.
    #[cfg(feature = "census")]
    idx: usize,
}

impl core::fmt::Debug for Keccak256 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Keccak256").finish_non_exhaustive()
    }
}

impl Default for Keccak256 {
    fn default() -> Self {
        Self::new()
    }
}

impl Keccak256 {
    /// A fresh hasher.
    pub fn new() -> Self {
        Self {
            inner: openvm_keccak256::Keccak256::new(),
            spill: [MaybeUninit::uninit(); 8],
            #[cfg(feature = "census")]
            idx: 0,
        }
    }

    /// Absorb `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        #[cfg(feature = "census")]
        {
            self.idx = super::census::replay_stock_update(self.idx, data.as_ptr(), data.len());
        }
        self.inner.update(data);
    }

    /// Absorb one byte.
    #[inline]
    pub fn update_byte(&mut self, byte: u8) {
        self.update(&[byte]);
    }

    /// Pad, permute and squeeze.
    #[inline]
    pub fn finalize(self) -> B256 {
        #[cfg(feature = "census")]
        super::census::with(|c| c.keccakf += 1);
        let mut out = B256::ZERO;
        self.inner.finalize(&mut out.0);
        out
    }
}

super::impl_buf_mut!(impl for Keccak256);
