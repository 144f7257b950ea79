//! The Keccak-256 sponge over a [`Machine`].
//!
//! The state is 8-byte aligned and a full block is always absorbed at offset 0, so hashing an
//! aligned buffer in rate-sized blocks is pure fast path. Partial absorbs (a 20-byte address,
//! an RLP header byte, a 33-byte child reference) move the absorb offset off the word grid;
//! [`xorin`] keeps each of those heap-free, and the next full block is back on the fast path.

use alloy_primitives::B256;
use core::mem::MaybeUninit;

use super::xorin::{Machine, State};
use super::RATE;

/// Keccak-256 (the original padding, as Ethereum uses) on machine `M`.
#[derive(Clone)]
pub struct Sponge<M: Machine> {
    state: State,
    /// Bytes of the current block already absorbed (`0..RATE`).
    idx: usize,
    /// Landing area for writers that use `BufMut::chunk_mut` instead of `put_slice`.
    /// RLP encoders never do; it only keeps the `BufMut` contract.
    spill: [MaybeUninit<u8>; SPILL],
    _machine: core::marker::PhantomData<M>,
}

const SPILL: usize = 8;

impl<M: Machine> core::fmt::Debug for Sponge<M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sponge")
            .field("word", &M::WORD)
            .field("idx", &self.idx)
            .finish_non_exhaustive()
    }
}

impl<M: Machine> Default for Sponge<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: Machine> Sponge<M> {
    /// A fresh hasher.
    pub const fn new() -> Self {
        Self {
            state: State::new(),
            idx: 0,
            spill: [MaybeUninit::uninit(); SPILL],
            _machine: core::marker::PhantomData,
        }
    }

    /// A fresh hasher for an input of `len` bytes (the sponge needs no buffer: the same as
    /// [`Sponge::new`]; the idiomatic stock hasher allocates it).
    #[inline(always)]
    pub const fn with_capacity(len: usize) -> Self {
        let _ = len;
        Self::new()
    }

    /// Absorb `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        let mut data = data;
        if self.idx != 0 {
            let take = data.len().min(RATE - self.idx);
            self.absorb_at(data, take);
            data = &data[take..];
            if self.idx != 0 {
                return;
            }
        }
        while data.len() >= RATE {
            self.absorb_at(data, RATE);
            data = &data[RATE..];
        }
        if !data.is_empty() {
            self.absorb_at(data, data.len());
        }
    }

    /// Absorb one byte: a software XOR (a 1-byte `XORIN` cannot exist).
    #[inline]
    pub fn update_byte(&mut self, byte: u8) {
        #[cfg(feature = "census")]
        super::census::with(|c| c.software_bytes += 1);
        self.state.0[self.idx] ^= byte;
        self.idx += 1;
        if self.idx == RATE {
            self.permute();
        }
    }

    /// XOR `data[..len]` at the current offset (`idx + len <= RATE`) and permute on a full block.
    #[inline(always)]
    fn absorb_at(&mut self, data: &[u8], len: usize) {
        debug_assert!(len <= data.len() && self.idx + len <= RATE);
        // SAFETY: `idx + len <= RATE < 200`, so the state range is in bounds; `data` holds at
        // least `len` bytes. A `&mut self` and a `&[u8]` cannot overlap.
        unsafe {
            let state = self.state.0.as_mut_ptr().add(self.idx);
            // The xorin baseline: the same sponge over OpenVM's stock, allocating absorb.
            #[cfg(all(target_os = "zkvm", feature = "stock-xorin"))]
            openvm_keccak256_guest::native_xorin(state, data.as_ptr(), len);
            #[cfg(not(all(target_os = "zkvm", feature = "stock-xorin")))]
            super::xorin::xorin::<M>(state, data.as_ptr(), len);
        }
        self.idx += len;
        if self.idx == RATE {
            self.permute();
        }
    }

    #[inline(always)]
    fn permute(&mut self) {
        #[cfg(feature = "census")]
        super::census::with(|c| c.keccakf += 1);
        M::keccakf(&mut self.state);
        self.idx = 0;
    }

    /// Pad (pad10*1 with the keccak domain byte 0x01), permute and squeeze 32 bytes.
    #[inline(always)]
    pub fn finalize(mut self) -> B256 {
        self.squeeze()
    }

    /// [`Sponge::finalize`] in place (no move of the 200-byte state). The sponge must not be
    /// used afterwards.
    #[inline]
    pub(crate) fn squeeze(&mut self) -> B256 {
        self.state.0[self.idx] ^= 0x01;
        self.state.0[RATE - 1] ^= 0x80;
        #[cfg(feature = "census")]
        super::census::with(|c| c.keccakf += 1);
        M::keccakf(&mut self.state);
        let mut out = B256::ZERO;
        out.0.copy_from_slice(&self.state.0[..32]);
        out
    }
}

super::impl_buf_mut!(impl<M: Machine> for Sponge<M>);
