//! Differential harness: `xorin` against a byte-wise snapshot-semantics reference, over every
//! relative placement of the operands, for word sizes 4 (OpenVM 2.0.2) and 8.
//!
//! The machine under test is the host's software model of `XORIN`, which asserts aligned
//! operands and a multiple-of-W length on every call; a counting wrapper also checks that the
//! aligned middle really goes through the instruction (software handles < W bytes per side).

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use mpt::keccak::xorin::{xorin, Machine, State};
use mpt::keccak::{Soft, RATE};

thread_local! {
    static INSN_CALLS: Cell<usize> = const { Cell::new(0) };
    static INSN_BYTES: Cell<usize> = const { Cell::new(0) };
}

/// `Soft<W>`, counting the bytes that go through the (modelled) instruction.
enum Counting<const W: usize> {}

impl<const W: usize> Machine for Counting<W> {
    const WORD: usize = W;
    unsafe fn xorin_aligned(state: *mut u8, input: *const u8, len: usize) {
        INSN_CALLS.with(|c| c.set(c.get() + 1));
        INSN_BYTES.with(|c| c.set(c.get() + len));
        // SAFETY: forwarded contract.
        unsafe { Soft::<W>::xorin_aligned(state, input, len) }
    }
    fn keccakf(state: &mut State) {
        Soft::<W>::keccakf(state)
    }
}

/// Bytes the instruction must take for this placement: everything from the state's first word
/// boundary, rounded down to whole words.
fn expected_insn_bytes<const W: usize>(state_addr: usize, len: usize) -> usize {
    let lead = ((W - state_addr % W) % W).min(len);
    (len - lead) / W * W
}

#[repr(C, align(64))]
struct Buf([u8; 512]);

fn pattern(seed: u8) -> Buf {
    let mut b = Buf([0; 512]);
    for (k, x) in b.0.iter_mut().enumerate() {
        *x = (k as u8).wrapping_mul(31).wrapping_add(seed) ^ 0xa5;
    }
    b
}

/// Runs one call and checks it against `expect`, including the bytes around both ranges.
fn run_case<const W: usize>(buf: &mut Buf, s: usize, i: usize, len: usize, expect: &[u8; 512]) {
    INSN_BYTES.with(|c| c.set(0));
    let base = buf.0.as_mut_ptr();
    // SAFETY: `s + len` and `i + len` stay inside the 512-byte buffer for every case below.
    unsafe { xorin::<Counting<W>>(base.add(s), base.add(i), len) };
    assert_eq!(
        &buf.0[..],
        &expect[..],
        "W={W} state+{s} input+{i} len {len}: bytes differ from the snapshot reference"
    );
    let want = expected_insn_bytes::<W>(base as usize + s, len);
    let got = INSN_BYTES.with(Cell::get);
    assert_eq!(
        got, want,
        "W={W} state+{s} input+{i} len {len}: instruction took {got} bytes, expected {want}"
    );
}

/// Every (state offset, input offset) in `0..W x 0..W` and every length, disjoint operands.
fn disjoint_cases<const W: usize>() -> usize {
    let mut cases = 0;
    for so in 0..W {
        for io in 0..W {
            for len in 0..=RATE {
                // State at 64 + so, input at 256 + io: disjoint, 64-byte canaries around both.
                let (s, i) = (64 + so, 256 + io);
                let mut buf = pattern((so * 8 + io) as u8);
                let mut expect = buf.0;
                for k in 0..len {
                    expect[s + k] ^= buf.0[i + k];
                }
                run_case::<W>(&mut buf, s, i, len, &expect);
                cases += 1;
            }
        }
    }
    cases
}

/// Overlapping operands in one buffer: state at `base + s`, input at `base + s + d`.
fn overlap_case<const W: usize>(s: usize, d: isize, len: usize) {
    let base = 192;
    let s = base + s;
    let i = (s as isize + d) as usize;
    let mut buf = pattern((s ^ len) as u8);
    let old = buf.0;
    let mut expect = old;
    for k in 0..len {
        expect[s + k] = old[s + k] ^ old[i + k];
    }
    run_case::<W>(&mut buf, s, i, len, &expect);
}

/// State offsets `0..2W` x input displacements `-2W..2W` x every length.
fn overlap_cases<const W: usize>() -> usize {
    let mut cases = 0;
    for s in 0..2 * W {
        for d in -2 * W as isize..2 * W as isize {
            for len in 0..=RATE {
                overlap_case::<W>(s, d, len);
                cases += 1;
            }
        }
    }
    cases
}

/// State offsets `0..2W` x every displacement at which the operands overlap (`|d| < len`).
fn full_overlap_range_cases<const W: usize>() -> usize {
    let mut cases = 0;
    for s in 0..2 * W {
        for len in 1..=RATE {
            for d in -(len as isize - 1)..len as isize {
                overlap_case::<W>(s, d, len);
                cases += 1;
            }
        }
    }
    cases
}

/// An unaligned call longer than the rate must panic loudly (not overrun the stack buffer).
fn over_rate_panics<const W: usize>() -> usize {
    let mut buf = pattern(7);
    let before = buf.0;
    let base = buf.0.as_mut_ptr();
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: 137 bytes at +1 and +300 are inside the 512-byte buffer.
        unsafe { xorin::<Counting<W>>(base.add(1), base.add(300), RATE + 1) }
    }));
    let err = result.expect_err("len RATE + 1 must panic");
    let msg = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(msg.contains("exceeds the keccak rate"), "panic said: {msg}");
    assert_eq!(buf.0, before, "the over-rate call wrote before panicking");
    1
}

fn harness<const W: usize>() -> usize {
    let disjoint = disjoint_cases::<W>();
    let overlap = overlap_cases::<W>();
    let panics = over_rate_panics::<W>();
    let total = disjoint + overlap + panics;
    println!(
        "xorin W={W}: {total} cases ({disjoint} disjoint, {overlap} overlapping, {panics} over-rate)"
    );
    total
}

#[test]
fn xorin_matches_snapshot_reference_w4() {
    assert_eq!(harness::<4>(), 4 * 4 * 137 + 8 * 16 * 137 + 1);
}

#[test]
fn xorin_matches_snapshot_reference_w8() {
    // The reference point of the seed's harness: 78,913 cases for W = 8.
    assert_eq!(harness::<8>(), 78_913);
}

#[test]
fn xorin_every_overlap_distance() {
    let w4 = full_overlap_range_cases::<4>();
    let w8 = full_overlap_range_cases::<8>();
    println!("xorin whole overlap range: W=4 {w4} cases, W=8 {w8} cases");
    // Σ_{len=1..=136} (2·len − 1) = 136² placements per state offset.
    assert_eq!(w4, 8 * 136 * 136);
    assert_eq!(w8, 16 * 136 * 136);
}

#[test]
#[should_panic(expected = "exceeds the keccak rate")]
fn over_rate_unaligned_call_panics() {
    let mut state = State::new();
    let input = [0u8; 200];
    // SAFETY: 137 bytes fit in both 200-byte buffers.
    unsafe { xorin::<Soft<4>>(state.0.as_mut_ptr().add(1), input.as_ptr(), RATE + 1) };
}

#[test]
#[should_panic(expected = "not 4-byte aligned")]
fn model_rejects_unaligned_instruction() {
    let mut state = State::new();
    let input = [0u8; 8];
    // SAFETY: 4 bytes fit in both buffers. The model must refuse the misaligned pointer.
    unsafe { Soft::<4>::xorin_aligned(state.0.as_mut_ptr().add(2), input.as_ptr(), 4) };
}

#[test]
fn aligned_call_is_one_instruction() {
    let mut state = State::new();
    #[repr(align(8))]
    struct In([u8; RATE]);
    let input = In([0x5a; RATE]);
    INSN_CALLS.with(|c| c.set(0));
    // SAFETY: RATE bytes in both buffers.
    unsafe { xorin::<Counting<4>>(state.0.as_mut_ptr(), input.0.as_ptr(), RATE) };
    assert_eq!(INSN_CALLS.with(Cell::get), 1);
    assert!(state.0[..RATE].iter().all(|&b| b == 0x5a));
    assert!(state.0[RATE..].iter().all(|&b| b == 0));
}
