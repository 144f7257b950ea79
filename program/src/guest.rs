//! The guest's side of the VM, so that `src/bin/guest.rs` is the pipeline and nothing else:
//! reading the [`GuestInput`], revealing the [`PublicValues`], and the hooks of the
//! instrumented builds around them.
//!
//! - Plain build (what is proved): with feature `openvm-crypto`, sender recovery and the
//!   precompiles' cryptography (ECRECOVER, SHA256, MODEXP, BN254 and BLS12-381 arithmetic and
//!   pairings, KZG, P256VERIFY) are installed on OpenVM's chips (crate `crypto`; RIPEMD160 and
//!   BLAKE2F stay software); the input is read; 128 bytes of public values are revealed.
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
    /// one. A head that does not decode (or has bytes after it) panics,
    /// which ends the VM with the error text and no proof. A precompile-census build then reads
    /// the operation to compute twice and installs its counting providers.
    #[inline(always)]
    pub fn read_input(&self) -> &'static GuestInput {
        // Kept as one buffer: the block and the headers are views into it.
        // Leaked, as every buffer the guest reads: the bump allocator never frees, and a static
        // `Bytes` needs no shared header (an allocation) nor a drop that walks it again.
        let head = alloy_primitives::Bytes::from_static(openvm::io::read_vec().leak());
        let input = GuestInput::new(head, read_item).unwrap_or_else(|e| panic!("{e}"));
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

/// Reads the next input item with `padding` zero bytes after it, in one allocation: the hint
/// writes the item's words straight into a buffer with room for the padding (`read_vec` would
/// size it exactly, and padding it after would copy it).
fn read_item(padding: usize) -> Item {
    #[cfg(target_os = "zkvm")]
    {
        openvm_rv32im_guest::hint_input();
        let len = openvm::io::read_u32() as usize;
        let words = len.div_ceil(4);
        let mut buffer: alloc::vec::Vec<u8> = alloc::vec::Vec::with_capacity(4 * words + padding);
        openvm_rv32im_guest::hint_buffer_chunked(buffer.as_mut_ptr(), words);
        // SAFETY: the hint wrote `words` whole words from the buffer's start, and
        // `len <= 4 * words <= capacity`.
        unsafe { buffer.set_len(len) };
        buffer.resize(len + padding, 0);
        Item {
            buffer: alloy_primitives::Bytes::from_static(buffer.leak()),
            len,
        }
    }
    #[cfg(not(target_os = "zkvm"))]
    {
        Item::padded(openvm::io::read_vec(), padding)
    }
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
