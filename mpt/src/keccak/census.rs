//! Keccak census (feature `census`): what the guest's real inputs make the sponge do.
//!
//! Counts, per run: `XORIN` calls by class (first matching class wins: overlapping operands;
//! state pointer off the word grid; input pointer off the state's alignment; only the length
//! ragged; all aligned), bytes XORed in software, bytes staged on the stack, `KECCAKF` calls,
//! and heap bytes allocated while absorbing.
//!
//! Counted where it happens, in this crate's `xorin` and sponge: the default build's view of its
//! own absorbs. The baselines absorb through OpenVM's stock code, which cannot count itself, so
//! comparisons between builds use what the VM measures for every build alike (the keccak
//! chips' rows, and the guest's total heap: [`heap_position`]); these counters explain ours.
//!
//! A process-wide counter without synchronisation: meant for the single-threaded guest. The
//! [`Census`] type is always available (the host decodes it from the guest's public values);
//! the counting itself exists only with the feature.

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
