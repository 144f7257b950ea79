//! `xorin`: XOR `len` bytes of input into the keccak state, for operands of any alignment,
//! without touching the heap.
//!
//! OpenVM's `XORIN` instruction only proves when both pointers are W-byte aligned and `len` is a
//! multiple of W (W = 4 on OpenVM 2.0.2). OpenVM's stock `native_xorin` meets that by copying
//! any unaligned operand into freshly allocated buffers, which the guest's bump allocator never
//! frees. This wrapper instead splits the operation in three:
//!
//! 1. **lead**: the bytes ahead of the state's next word boundary, XORed in software;
//! 2. **bulk**: the word-aligned middle, one `XORIN`. When the input is misaligned relative to
//!    the state, just that middle is staged in a stack buffer first;
//! 3. **tail**: the trailing partial word, XORed in software.
//!
//! The all-aligned case (the sponge's common case: an aligned state, a full aligned block) is a
//! single test and the instruction. Everything else sits behind `#[cold] #[inline(never)]` and is
//! reached by a tail call, so the fast path needs no stack frame.
//!
//! **Overlap.** The instruction reads every state word, then every input word, then writes: a
//! full snapshot before any write. When the operands overlap, the cold path copies the input
//! into the stack buffer first, placed at the state's misalignment so that the bulk needs no
//! second copy, which gives byte-for-byte the instruction's result.
//!
//! **Bounds.** Neither pointer is read or written outside `[0, len)`. `len <= RATE` is asserted
//! on the cold path (a loud panic instead of a stack overrun); the aligned path has no check,
//! exactly like the instruction, which fails to prove for longer lengths.
//!
//! **Machine code.** Built for the guest (`riscv32im-risc0-zkvm-elf`, `nightly-2026-01-18`,
//! release), a non-inlined call of [`xorin`] over OpenVM compiles to:
//!
//! ```text
//! or    a3, a1, a0            ; state | input
//! or    a3, a3, a2            ;       | len
//! andi  a3, a3, 3             ; any of them off the 4-byte grid?
//! bnez  a3, .cold
//! .insn r 11, 4, 1, a0, a1, a2  ; XORIN
//! ret
//! .cold:
//! tail  xorin_unaligned       ; tail call: no stack frame on either path
//! ```
//!
//! Inlined into the sponge, the same four instructions guard each `XORIN`. To see it, emit the
//! assembly of a crate with an exported `extern "C" fn` that calls `mpt::keccak::xorin`:
//! `RUSTFLAGS='-C passes=lower-atomic -C panic=abort' cargo +nightly-2026-01-18 rustc --release
//! --target riscv32im-risc0-zkvm-elf -Z build-std=alloc,core,panic_abort -- --emit asm`.

use core::mem::MaybeUninit;

use super::RATE;

/// The largest word size a [`Machine`] may have: the stack buffer is sized for it.
pub const MAX_WORD: usize = 8;

/// The two instructions of a keccak extension, and the word size they require.
///
/// On the zkVM this is OpenVM's `XORIN`/`KECCAKF`; on the host it is a software model that
/// checks the instruction's preconditions on every call.
pub trait Machine {
    /// Alignment (bytes) that `XORIN` requires of both pointers and of its length.
    const WORD: usize;

    /// `XORIN`: `state[i] ^= input[i]` for `i < len`, with snapshot semantics (all reads
    /// happen before any write).
    ///
    /// # Safety
    /// `state` and `input` are valid for `len` bytes (reads; `state` also writes), both are
    /// `WORD`-aligned, `len` is a multiple of `WORD` and at most [`RATE`].
    unsafe fn xorin_aligned(state: *mut u8, input: *const u8, len: usize);

    /// `KECCAKF`: the Keccak-f\[1600\] permutation over the 200-byte state.
    fn keccakf(state: &mut State);
}

/// The 200-byte keccak state, aligned for every supported word size.
#[derive(Clone)]
#[repr(C, align(8))]
pub struct State(pub [u8; 200]);

impl State {
    /// The all-zero state.
    pub const fn new() -> Self {
        Self([0; 200])
    }
}

impl Default for State {
    fn default() -> Self {
        Self::new()
    }
}

/// Stack staging area: one rate block plus a word of slack, so an input copied at the state's
/// misalignment (`< WORD`) still fits.
#[repr(C, align(8))]
struct Stage([MaybeUninit<u8>; RATE + MAX_WORD]);

/// XOR `len` bytes from `input` into `state`, as the `XORIN` instruction would, for any
/// alignment of either pointer and any length up to [`RATE`].
///
/// # Safety
/// `state` must be valid for reads and writes of `len` bytes and `input` valid for reads of
/// `len` bytes. They may overlap.
///
/// # Panics
/// If `len > RATE` and the operands are not all aligned (aligned operands go straight to the
/// instruction, which does not check).
#[inline(always)]
pub unsafe fn xorin<M: Machine>(state: *mut u8, input: *const u8, len: usize) {
    const { assert!(M::WORD.is_power_of_two() && M::WORD <= MAX_WORD) };
    #[cfg(feature = "census")]
    let heap = super::census::heap_position();
    #[cfg(feature = "census")]
    super::census::record_call(state, input, len, M::WORD);
    #[cfg(feature = "census")]
    {
        // SAFETY: forwarded caller contract.
        unsafe { xorin_dispatch::<M>(state, input, len) };
        let grown = (super::census::heap_position() - heap) as u64;
        super::census::with(|c| c.heap_bytes += grown);
    }
    #[cfg(not(feature = "census"))]
    // SAFETY: forwarded caller contract.
    unsafe {
        xorin_dispatch::<M>(state, input, len)
    }
}

#[inline(always)]
unsafe fn xorin_dispatch<M: Machine>(state: *mut u8, input: *const u8, len: usize) {
    if ((state as usize) | (input as usize) | len) & (M::WORD - 1) == 0 {
        // SAFETY: the caller guarantees validity for `len` bytes; alignment was just checked.
        unsafe { M::xorin_aligned(state, input, len) }
    } else {
        // SAFETY: forwarded caller contract.
        unsafe { xorin_unaligned::<M>(state, input, len) }
    }
}

/// The slow path: lead in software, aligned bulk through the instruction, tail in software.
///
/// # Safety
/// As for [`xorin`].
#[cold]
#[inline(never)]
pub unsafe fn xorin_unaligned<M: Machine>(state: *mut u8, input: *const u8, len: usize) {
    assert!(
        len <= RATE,
        "xorin: len {len} exceeds the keccak rate of {RATE} bytes"
    );
    let w = M::WORD;
    let misalign = state as usize & (w - 1);
    let lead = ((w - misalign) & (w - 1)).min(len);
    let bulk = (len - lead) & !(w - 1);

    let mut stage = MaybeUninit::<Stage>::uninit();
    let stage_ptr = stage.as_mut_ptr().cast::<u8>();

    let (s, i) = (state as usize, input as usize);
    let overlapping = len != 0 && s < i + len && i < s + len;
    let src = if overlapping {
        // Snapshot the whole input before any byte of the state changes. Placed at the state's
        // misalignment, `src + lead` is word-aligned, so the bulk needs no further copy.
        // SAFETY: `misalign + len < MAX_WORD + RATE` (asserted above), so the copy stays in the
        // stage; the stage is a fresh stack buffer, disjoint from `input`.
        unsafe {
            let dst = stage_ptr.add(misalign);
            core::ptr::copy_nonoverlapping(input, dst, len);
            dst.cast_const()
        }
    } else {
        input
    };

    #[cfg(feature = "census")]
    super::census::with(|c| {
        c.software_bytes += (len - bulk) as u64;
        c.staged_bytes += if overlapping {
            len as u64
        } else if (src as usize + lead) & (w - 1) != 0 && bulk != 0 {
            bulk as u64
        } else {
            0
        };
    });

    // SAFETY: every offset below is `< len`; `state` and `src` are valid for `len` bytes and,
    // after the snapshot above, never overlap.
    unsafe {
        for k in 0..lead {
            *state.add(k) ^= *src.add(k);
        }
        if bulk != 0 {
            let mut mid = src.add(lead);
            if mid as usize & (w - 1) != 0 {
                // Only the non-overlapping case gets here: stage just the middle, aligned.
                core::ptr::copy_nonoverlapping(mid, stage_ptr, bulk);
                mid = stage_ptr.cast_const();
            }
            // `state + lead` is aligned by construction of `lead`, `bulk` is a multiple of `w`.
            M::xorin_aligned(state.add(lead), mid, bulk);
        }
        for k in lead + bulk..len {
            *state.add(k) ^= *src.add(k);
        }
    }
}
