//! Keccak census (feature `census`): what the guest's real inputs make the sponge do.
//!
//! Counts, per run: `XORIN` calls by class (first matching class wins: overlapping operands;
//! state pointer off the word grid; input pointer off the state's alignment; only the length
//! ragged; all aligned), bytes XORed in software, bytes staged on the stack, `KECCAKF` calls,
//! and heap bytes allocated while absorbing.
//!
//! Ours is counted where it happens (in `xorin` and the sponge). The stock variant's calls go
//! through OpenVM's sponge, whose absorb pattern this module replays for every hash made
//! through this crate's `Keccak256` / `keccak256` (trie nodes, state keys, headers): the same
//! class rules, and the `AlignedBuf` bytes its `native_xorin` allocates (the padded length, once
//! for the state and once for the input when either is unaligned). Hashes alloy and revm make
//! through `native_keccak256` reach OpenVM's sponge directly in the stock build and are not in
//! its class counts; the guest's total heap use (measured for both variants) covers them.
//!
//! A process-wide counter without synchronisation: meant for the single-threaded guest. The
//! [`Census`] type is always available (the host decodes it from the guest's public values);
//! the counting itself exists only with the feature.

#[cfg(all(feature = "census", feature = "stock-keccak"))]
use super::RATE;

/// The counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Census {
    /// `XORIN` calls with both pointers and the length on the word grid.
    pub aligned: u64,
    /// Calls whose pointers are aligned but whose length is not.
    pub len_unaligned: u64,
    /// Calls whose state pointer is unaligned.
    pub state_unaligned: u64,
    /// Calls whose state pointer is aligned and input pointer is not.
    pub input_unaligned: u64,
    /// Calls whose operands overlap.
    pub overlapping: u64,
    /// Bytes XORed in software (lead and tail).
    pub software_bytes: u64,
    /// Bytes copied into the stack staging buffer.
    pub staged_bytes: u64,
    /// `KECCAKF` calls.
    pub keccakf: u64,
    /// Heap bytes allocated by keccak.
    pub heap_bytes: u64,
}

impl Census {
    /// The counters as words, in field order (for the guest's public values).
    pub fn to_words(&self) -> [u64; 9] {
        [
            self.aligned,
            self.len_unaligned,
            self.state_unaligned,
            self.input_unaligned,
            self.overlapping,
            self.software_bytes,
            self.staged_bytes,
            self.keccakf,
            self.heap_bytes,
        ]
    }

    /// The inverse of [`Census::to_words`].
    pub fn from_words(w: [u64; 9]) -> Self {
        Self {
            aligned: w[0],
            len_unaligned: w[1],
            state_unaligned: w[2],
            input_unaligned: w[3],
            overlapping: w[4],
            software_bytes: w[5],
            staged_bytes: w[6],
            keccakf: w[7],
            heap_bytes: w[8],
        }
    }
}

#[cfg(feature = "census")]
static mut CENSUS: Census = Census {
    aligned: 0,
    len_unaligned: 0,
    state_unaligned: 0,
    input_unaligned: 0,
    overlapping: 0,
    software_bytes: 0,
    staged_bytes: 0,
    keccakf: 0,
    heap_bytes: 0,
};

/// Applies `f` to the counters.
#[cfg(feature = "census")]
#[inline(always)]
pub(crate) fn with(f: impl FnOnce(&mut Census)) {
    // SAFETY: the census is for the single-threaded guest; no reference outlives this call.
    unsafe { f(&mut *core::ptr::addr_of_mut!(CENSUS)) }
}

/// The counters so far.
#[cfg(feature = "census")]
pub fn snapshot() -> Census {
    let mut out = Census::default();
    with(|c| out = *c);
    out
}

/// Counts one `XORIN`-level call by class.
#[cfg(feature = "census")]
#[inline(always)]
pub(crate) fn record_call(state: *const u8, input: *const u8, len: usize, word: usize) {
    let (s, i) = (state as usize, input as usize);
    record_class(s, i, len, word, len != 0 && s < i + len && i < s + len);
}

#[cfg(feature = "census")]
fn record_class(s: usize, i: usize, len: usize, word: usize, overlapping: bool) {
    let mask = word - 1;
    with(|c| {
        let slot = if overlapping {
            &mut c.overlapping
        } else if s & mask != 0 {
            &mut c.state_unaligned
        } else if i & mask != 0 {
            &mut c.input_unaligned
        } else if len & mask != 0 {
            &mut c.len_unaligned
        } else {
            &mut c.aligned
        };
        *slot += 1;
    });
}

#[cfg(all(feature = "census", feature = "stock-keccak"))]
/// Replays OpenVM's stock sponge absorbing `len` bytes from `input` at offset `idx` of its
/// 4-aligned state; returns the new offset.
pub(crate) fn replay_stock_update(mut idx: usize, input: *const u8, len: usize) -> usize {
    const WORD: usize = 4;
    let mut done = 0;
    while done < len {
        let take = (len - done).min(RATE - idx);
        // The state's base is 4-aligned: only `idx` decides the state pointer's alignment; the
        // state is the sponge's own field, so it never overlaps the input.
        let at = input.wrapping_add(done);
        record_class(idx, at as usize, take, WORD, false);
        let len_aligned = take.is_multiple_of(WORD);
        let padded = take.next_multiple_of(WORD) as u64;
        with(|c| {
            if !(idx.is_multiple_of(WORD) && len_aligned) {
                c.heap_bytes += padded;
            }
            if !((at as usize).is_multiple_of(WORD) && len_aligned) {
                c.heap_bytes += padded;
            }
        });
        idx += take;
        done += take;
        if idx == RATE {
            with(|c| c.keccakf += 1);
            idx = 0;
        }
    }
    idx
}

/// The guest heap's bump pointer (0 on the host): heap growth across a call is what it
/// allocated, since the bump allocator never frees.
#[inline(always)]
pub fn heap_position() -> usize {
    #[cfg(target_os = "zkvm")]
    // SAFETY: a zero-byte request reserves nothing: it returns the bump pointer, rounded up to
    // the word size as the next allocation would round it anyway.
    unsafe {
        openvm_platform::memory::sys_alloc_aligned(0, 1) as usize
    }
    #[cfg(not(target_os = "zkvm"))]
    {
        0
    }
}
