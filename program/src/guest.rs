//! The guest's side of the VM, so that `src/bin/guest.rs` is the pipeline and nothing else:
//! reading the [`GuestInput`], revealing the [`PublicValues`], and the hooks of the
//! instrumented builds around them.
//!
//! - Plain build (what is proved): with feature `openvm-crypto`, sender recovery and the
//!   precompiles' cryptography (ECRECOVER, SHA256, MODEXP, BN254 and BLS12-381 arithmetic and
//!   pairings, KZG, P256VERIFY) are installed on OpenVM's chips and BLAKE2F's rounds on this
//!   project's BLAKE2b chip (crate `crypto`; RIPEMD160 stays software); the input is read; 128 bytes of public values are revealed. A block
//!   that is not valid ends the guest with its verdict's exit code ([`refuse`]) and no public
//!   values: the host tells "invalid", "insufficient" and "unusable" apart from a crash.
//! - Feature `census` (the keccak census): after the public values (word 32 on), 20 words: 10
//!   little-endian u64, the census counters, then the guest's total heap use in bytes.
//! - Feature `crypto-census` (the precompile census): a second input follows the block (one
//!   byte: the `crypto::census::Op` to compute twice, or 255 for none), counting providers are
//!   installed (on the chips or in software, as `openvm-crypto` says), and the calls per
//!   operation follow the public values (word 32 on) as 12 little-endian u32.
//!
//! Every hook is `#[inline(always)]`: the plain build's code is what it would be written
//! inline in `main`.

use mpt::trie::Item;

use crate::{GuestInput, PublicValues};

/// The first public-value word after [`PublicValues`], where a census build reveals its counts.
#[cfg(any(feature = "census", feature = "crypto-census"))]
pub const CENSUS_WORD: usize = PublicValues::LEN / 4;

#[cfg(all(feature = "census", feature = "crypto-census"))]
compile_error!("the keccak census and the precompile census reveal into the same words");

/// One run of the guest, from its first instruction to its last reveal.
pub struct Session {
    /// Where the heap stood when the guest started (the keccak census reports its growth).
    #[cfg(feature = "census")]
    heap_start: usize,
}

impl Session {
    /// Installs the cryptography providers (feature `openvm-crypto`) and, in a keccak-census
    /// build, notes where the heap starts.
    #[inline(always)]
    pub fn start() -> Self {
        #[cfg(all(feature = "openvm-crypto", not(feature = "crypto-census")))]
        crypto::install();
        Self {
            #[cfg(feature = "census")]
            heap_start: mpt::keccak::census::heap_position(),
        }
    }

    /// Reads the input's head; the witness's items are read when validation first needs each
    /// one. A head that does not decode (or has bytes after it) ends the guest as unusable
    /// input ([`refuse`]), with no public values. A precompile-census build then reads the
    /// operation to compute twice and installs its counting providers.
    #[inline(always)]
    pub fn read_input(&self) -> &'static GuestInput {
        // Kept as one buffer: the block and the headers are views into it.
        // Leaked, as every buffer the guest reads: the bump allocator never frees, and a static
        // `Bytes` needs no shared header (an allocation) nor a drop that walks it again.
        let head = alloy_primitives::Bytes::from_static(openvm::io::read_vec().leak());
        let input = GuestInput::new(head, read_item)
            .unwrap_or_else(|e| refuse(crate::Verdict::Unusable, &e));
        // Every item is read as an input item of its own (`read_item`), which a hint in between
        // cannot clear: recovery may take the VM's hinted square roots.
        #[cfg(any(feature = "openvm-crypto", feature = "crypto-census"))]
        crypto::secp256k1::allow_hints();
        // The input lives to the end of the run: nothing drops its store at the end.
        let input: &'static GuestInput = alloc::boxed::Box::leak(alloc::boxed::Box::new(input));
        #[cfg(feature = "crypto-census")]
        {
            use crypto::census::{install, set_twice, Op};
            let twice = openvm::io::read_vec();
            set_twice(
                twice
                    .first()
                    .and_then(|&k| Op::ALL.get(k as usize).copied()),
            );
            assert!(
                install(cfg!(feature = "openvm-crypto")),
                "crypto providers already set"
            );
        }
        input
    }

    /// Reveals the public values (words 0 to 31), then a census build's counts.
    #[inline(always)]
    pub fn reveal(self, public: &PublicValues) {
        reveal_bytes(0, &public.to_bytes());

        #[cfg(feature = "crypto-census")]
        for (k, calls) in crypto::census::calls().iter().enumerate() {
            openvm::io::reveal_u32(*calls, CENSUS_WORD + k);
        }

        #[cfg(feature = "census")]
        {
            let heap = (mpt::keccak::census::heap_position() - self.heap_start) as u64;
            let census = mpt::keccak::census::snapshot().to_words();
            for (k, word) in census.iter().chain([heap].iter()).enumerate() {
                reveal_bytes(CENSUS_WORD + 2 * k, &word.to_le_bytes());
            }
        }
    }
}

/// The longest input item the guest reads: far above any trie node (at most 532 bytes) or
/// contract code (EIP-170: 24,576 bytes), far below the guest's memory. A longer declared
/// length is the prover's lie, refused before anything is reserved for it.
pub const MAX_ITEM_LEN: u32 = 1 << 24;

/// The bytes to reserve for an item of `len` bytes read as whole words, with `padding` zero
/// bytes after it, in the guest's 32-bit arithmetic; `None` for a length over
/// [`MAX_ITEM_LEN`] or a sum that would wrap (`4 * words + padding` did, for a declared length
/// near 2^32, and the hint then wrote past a tiny buffer).
pub fn item_capacity(len: u32, padding: u32) -> Option<u32> {
    if len > MAX_ITEM_LEN {
        return None;
    }
    len.div_ceil(4).checked_mul(4)?.checked_add(padding)
}

/// Ends the guest without public values, exiting with `verdict`'s code
/// ([`crate::Verdict::guest_exit_code`]) after printing why: how the guest says "invalid",
/// "insufficient" or "unusable", distinct from a panic (exit code 1, a bug) and from success.
pub fn refuse(verdict: crate::Verdict, reason: &dyn core::fmt::Display) -> ! {
    use core::fmt::Write;
    // Printing is best effort: the exit code is the verdict.
    let _ = writeln!(openvm::io::Writer, "{}: {reason}", verdict.name());
    match verdict {
        crate::Verdict::Invalid => {
            openvm::platform::rust_rt::terminate::<{ crate::Verdict::Invalid.guest_exit_code() }>()
        }
        crate::Verdict::Insufficient => openvm::platform::rust_rt::terminate::<
            { crate::Verdict::Insufficient.guest_exit_code() },
        >(),
        crate::Verdict::Unusable | crate::Verdict::Valid => {
            openvm::platform::rust_rt::terminate::<{ crate::Verdict::Unusable.guest_exit_code() }>()
        }
    }
    unreachable!("terminated")
}

/// Reads the next input item with `padding` zero bytes after it, in one allocation: the hint
/// writes the item's words straight into a buffer with room for the padding (`read_vec` would
/// size it exactly, and padding it after would copy it). A length no item can have ends the
/// guest as unusable input.
fn read_item(padding: usize) -> Item {
    #[cfg(target_os = "zkvm")]
    {
        openvm_rv32im_guest::hint_input();
        let len = openvm::io::read_u32();
        let Some(capacity) = item_capacity(len, padding as u32) else {
            refuse(
                crate::Verdict::Unusable,
                &alloc::format!("malformed input: an item of {len} bytes"),
            )
        };
        let (len, words) = (len as usize, len.div_ceil(4) as usize);
        let buffer = crate::region::take(capacity as usize);
        openvm_rv32im_guest::hint_buffer_chunked(buffer.as_mut_ptr().cast::<u8>(), words);
        // The hint wrote whole words: the last one's bytes after `len` are the prover's, and
        // the padding must be zeros.
        for byte in &mut buffer[len..len + padding] {
            byte.write(0);
        }
        // SAFETY: the hint wrote `words` whole words from the buffer's start, and the loop the
        // padding: the first `len + padding <= 4 * words + padding == capacity` bytes are
        // initialised (`item_capacity`).
        let bytes: &'static [u8] =
            unsafe { core::slice::from_raw_parts(buffer.as_ptr().cast::<u8>(), len + padding) };
        Item {
            buffer: alloy_primitives::Bytes::from_static(bytes),
            len,
        }
    }
    #[cfg(not(target_os = "zkvm"))]
    {
        Item::padded(openvm::io::read_vec(), padding)
    }
}

/// The standard input as the guest reads it ([`stateless_ssz::InputStream`]): its one input
/// item, word by word from the hint stream ([`crate::region::Words`]), each read written where
/// its reader puts it. Natively, the item read whole, from memory.
pub struct Hinted {
    #[cfg(target_os = "zkvm")]
    words: crate::region::Words<VmHint>,
    #[cfg(not(target_os = "zkvm"))]
    bytes: stateless_ssz::InMemory<alloc::vec::Vec<u8>>,
}

/// The VM's hint stream, whole words to word addresses.
#[cfg(target_os = "zkvm")]
struct VmHint;

#[cfg(target_os = "zkvm")]
impl crate::region::Hint for VmHint {
    fn words(&mut self, dst: *mut u32, count: usize) {
        openvm_rv32im_guest::hint_buffer_chunked(dst.cast::<u8>(), count);
    }
}

impl Hinted {
    /// Starts reading the next input item: its source, and its length in bytes.
    pub fn open() -> (Self, usize) {
        #[cfg(target_os = "zkvm")]
        {
            openvm_rv32im_guest::hint_input();
            let len = openvm::io::read_u32() as usize;
            let words = crate::region::Words::new(VmHint);
            (Self { words }, len)
        }
        #[cfg(not(target_os = "zkvm"))]
        {
            let bytes = stateless_ssz::InMemory::new(openvm::io::read_vec());
            let len = bytes.len();
            (Self { bytes }, len)
        }
    }
}

impl stateless_ssz::Source for Hinted {
    fn read(&mut self, dst: &mut [core::mem::MaybeUninit<u8>]) {
        #[cfg(target_os = "zkvm")]
        self.words.read(dst);
        #[cfg(not(target_os = "zkvm"))]
        self.bytes.read(dst);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::items_after_test_module)] // the reveals stay put: the ELF's lines are pinned
    use super::*;
    #[test]
    fn item_lengths_are_bounded_and_never_wrap() {
        assert_eq!(item_capacity(0, 0), Some(0));
        assert_eq!(item_capacity(5, 0), Some(8));
        assert_eq!(item_capacity(5, 32), Some(40));
        assert_eq!(item_capacity(MAX_ITEM_LEN, 32), Some(MAX_ITEM_LEN + 32));
        assert_eq!(item_capacity(MAX_ITEM_LEN + 1, 0), None);
        // The lengths that wrapped `4 * words + padding` on the 32-bit guest.
        for len in [u32::MAX, u32::MAX - 3, 1 << 30, (1 << 30) + 1] {
            assert_eq!(item_capacity(len, 32), None, "{len}");
        }
    }
}

/// The standard guest's reveal: the 43-byte result, then zero bytes to the public-value width
/// (the words it does not reveal are zero).
#[inline(always)]
pub fn reveal_result(result: &stateless_ssz::StatelessValidationResult) {
    let mut bytes = [0u8; stateless_ssz::RESULT_BYTES.next_multiple_of(4)];
    bytes[..stateless_ssz::RESULT_BYTES].copy_from_slice(&result.to_bytes());
    reveal_bytes(0, &bytes);
}

/// Reveals `bytes` (a multiple of 4 long) as little-endian words from word `first_word` on.
#[inline(always)]
fn reveal_bytes(first_word: usize, bytes: &[u8]) {
    for (k, word) in bytes.chunks_exact(4).enumerate() {
        openvm::io::reveal_u32(
            u32::from_le_bytes(word.try_into().expect("4 bytes")),
            first_word + k,
        );
    }
}
