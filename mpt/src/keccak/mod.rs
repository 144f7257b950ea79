//! Keccak-256 through OpenVM's keccak extension, with unaligned absorbs that never allocate.
//!
//! Every hash of the verifier (trie nodes, addresses, slots, headers, transactions, revm's
//! `KECCAK256`) goes through [`Keccak256`] / [`keccak256`]. In the guest they run on OpenVM's
//! `XORIN` and `KECCAKF` instructions through [`xorin()`], which replaces OpenVM's allocating
//! `native_xorin` (see the [`xorin`](mod@xorin) module for how and why). On the host the same
//! code runs over [`Soft`], a software model of the instructions that asserts their alignment
//! preconditions, so the guest's logic is tested natively.
//!
//! [`Keccak256`] implements [`bytes::BufMut`] (which is [`alloy_rlp::BufMut`]), so RLP
//! encoders stream straight into the sponge: no scratch buffer, and the sponge absorbs the real
//! shapes (20-byte addresses, 32-byte slots, RLP-shaped nodes).
//!
//! ## Variants
//! - default ("ours"): [`Sponge`] over [`Native`]; in the guest this crate also exports
//!   `native_keccak256`, the hook alloy-primitives' `native-keccak` feature calls, so
//!   `alloy_primitives::keccak256` (and through it revm) hashes here too.
//! - feature `stock-xorin` (the xorin baseline): the same sponge and streaming, with OpenVM's
//!   stock `native_xorin` for every absorb in the guest: only the absorb differs from ours.
//! - feature `stock-keccak` (the idiomatic baseline): OpenVM's stock keccak as a stock user
//!   calls it: [`Keccak256`] collects the encoded bytes (sized exactly where the caller knows
//!   the length, as `alloy_rlp::encode` does) and hashes them with one
//!   `openvm_keccak256::keccak256` call; [`keccak256`] is that call; `native_keccak256` is the one
//!   `openvm-keccak256` exports. (On the host, stock hashing is OpenVM's tiny-keccak fallback
//!   and `xorin` stays ours: the host has no `XORIN`.)

pub mod census;
mod machine;
pub mod memo;
mod sponge;
#[cfg(feature = "stock-keccak")]
mod stock;
pub mod xorin;

use alloy_primitives::B256;

#[cfg(target_os = "zkvm")]
pub use machine::OpenVm;
#[cfg(not(target_os = "zkvm"))]
pub use machine::Soft;
pub use sponge::Sponge;
pub use xorin::{Machine, State};

/// Keccak-256's rate: bytes absorbed per permutation.
pub const RATE: usize = 136;

/// The machine this build hashes on: OpenVM's instructions in the guest; on the host the
/// software model with OpenVM 2.0.2's word size (4), so host runs take the guest's exact
/// lead/bulk/tail splits.
#[cfg(target_os = "zkvm")]
pub type Native = OpenVm;
/// The machine this build hashes on: OpenVM's instructions in the guest; on the host the
/// software model with OpenVM 2.0.2's word size (4), so host runs take the guest's exact
/// lead/bulk/tail splits.
#[cfg(not(target_os = "zkvm"))]
pub type Native = Soft<4>;

/// The incremental Keccak-256 hasher of this build.
#[cfg(not(feature = "stock-keccak"))]
pub type Keccak256 = Sponge<Native>;
#[cfg(feature = "stock-keccak")]
pub use stock::Keccak256;

/// Keccak-256 of `data`.
#[inline]
pub fn keccak256(data: impl AsRef<[u8]>) -> B256 {
    #[cfg(not(feature = "stock-keccak"))]
    {
        let mut hasher = Keccak256::new();
        hasher.update(data.as_ref());
        hasher.squeeze()
    }
    #[cfg(feature = "stock-keccak")]
    {
        B256::new(openvm_keccak256::keccak256(data.as_ref()))
    }
}

/// Keccak-256 of `data`, looked up first among the guest's recent short inputs
/// ([`memo`]): for the hashes asked for again (mapping slots, bloom entries, storage keys,
/// addresses). The idiomatic stock build and the host hash without it.
#[inline]
pub fn keccak256_memo(data: &[u8]) -> B256 {
    #[cfg(all(target_os = "zkvm", not(feature = "stock-keccak")))]
    {
        static mut MEMO: memo::Memo = memo::Memo::new();
        // SAFETY: the guest runs one thread, and this is `MEMO`'s only use: no other
        // reference to it exists while this one lives.
        unsafe { (*core::ptr::addr_of_mut!(MEMO)).hash(data, |input| keccak256(input)) }
    }
    #[cfg(not(all(target_os = "zkvm", not(feature = "stock-keccak"))))]
    keccak256(data)
}

/// Keccak-256 of `value`'s RLP: streamed into the sponge, or, in the idiomatic stock build,
/// encoded into an exactly sized buffer and hashed in one call.
#[inline]
pub fn keccak256_rlp<T: alloy_rlp::Encodable + ?Sized>(value: &T) -> B256 {
    #[cfg(not(feature = "stock-keccak"))]
    {
        let mut hasher = Keccak256::new();
        value.encode(&mut hasher);
        hasher.finalize()
    }
    #[cfg(feature = "stock-keccak")]
    {
        keccak256(alloy_rlp::encode(value))
    }
}

/// Whether this build absorbs through OpenVM's stock `native_xorin` (both baselines).
pub const STOCK_XORIN: bool = cfg!(any(feature = "stock-keccak", feature = "stock-xorin"));

/// XOR `len` bytes of `input` into `state` as the `XORIN` instruction would, for any
/// alignment: ours, or OpenVM's stock `native_xorin` in the guest of either baseline.
///
/// # Safety
/// `state` valid for reads and writes of `len` bytes, `input` valid for reads of `len` bytes;
/// they may overlap.
///
/// # Panics
/// If `len` exceeds [`RATE`] on an unaligned call.
#[inline(always)]
pub unsafe fn xorin(state: *mut u8, input: *const u8, len: usize) {
    #[cfg(all(
        target_os = "zkvm",
        any(feature = "stock-keccak", feature = "stock-xorin")
    ))]
    // SAFETY: forwarded caller contract.
    unsafe {
        openvm_keccak256_guest::native_xorin(state, input, len)
    }
    #[cfg(not(all(
        target_os = "zkvm",
        any(feature = "stock-keccak", feature = "stock-xorin")
    )))]
    // SAFETY: forwarded caller contract.
    unsafe {
        xorin::xorin::<Native>(state, input, len)
    }
}

/// The `native-keccak` hook of alloy-primitives: `output = keccak256(bytes[..len])`.
///
/// # Safety
/// `bytes` valid for reads of `len` bytes, `output` valid for writes of 32 bytes.
#[cfg(all(target_os = "zkvm", not(feature = "stock-keccak")))]
#[no_mangle]
pub unsafe extern "C" fn native_keccak256(bytes: *const u8, len: usize, output: *mut u8) {
    // SAFETY: the caller guarantees `bytes` is valid for `len` bytes.
    let input = unsafe { core::slice::from_raw_parts(bytes, len) };
    let hash = keccak256_memo(input);
    // SAFETY: the caller guarantees `output` is valid for 32 bytes; `hash` is a local.
    unsafe { core::ptr::copy_nonoverlapping(hash.0.as_ptr(), output, 32) };
}

/// Implements [`bytes::BufMut`] for a hasher with `update(&[u8])` and `update_byte(u8)`.
///
/// `put_slice` / `put_u8` (all RLP encoders use) absorb directly. `chunk_mut` hands out the
/// hasher's small `spill` area and `advance_mut` absorbs what was written there.
macro_rules! impl_buf_mut {
    (impl$(<$g:ident: $b:path>)? for $ty:ty) => {
        // SAFETY: `chunk_mut` returns the `spill` field; `advance_mut(cnt)` checks
        // `cnt <= spill.len()` and absorbs exactly the bytes the caller initialised there.
        unsafe impl$(<$g: $b>)? bytes::BufMut for $ty {
            #[inline]
            fn remaining_mut(&self) -> usize {
                isize::MAX as usize
            }

            #[inline]
            unsafe fn advance_mut(&mut self, cnt: usize) {
                let spill = self.spill;
                assert!(
                    cnt <= spill.len(),
                    "advance_mut({cnt}) past the {}-byte chunk",
                    spill.len()
                );
                // SAFETY: the caller initialised the first `cnt` bytes of the chunk returned
                // by `chunk_mut`, which is `self.spill`, copied above.
                let written =
                    unsafe { core::slice::from_raw_parts(spill.as_ptr().cast::<u8>(), cnt) };
                self.update(written);
            }

            #[inline]
            fn chunk_mut(&mut self) -> &mut bytes::buf::UninitSlice {
                bytes::buf::UninitSlice::uninit(&mut self.spill)
            }

            #[inline]
            fn put_slice(&mut self, src: &[u8]) {
                self.update(src);
            }

            #[inline]
            fn put_u8(&mut self, n: u8) {
                self.update_byte(n);
            }

            #[inline]
            fn put_bytes(&mut self, val: u8, cnt: usize) {
                for _ in 0..cnt {
                    self.update_byte(val);
                }
            }
        }
    };
}
pub(crate) use impl_buf_mut;
