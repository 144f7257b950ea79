//! 256-bit words on OpenVM's Int256 chip: one chip instruction per wrapping add, subtract,
//! multiply, shift, `and` or unsigned compare of two 32-byte operands.
//!
//! `openvm-bigint-guest` on crates.io exports these as out-of-line `extern "C"` functions
//! (and only with its `export-intrinsics` feature); emitting the instruction inline here saves
//! a call and a return per operation. Off the VM the same operations run on ruint's `U256`,
//! so the arithmetic built on them is tested natively too.
//!
//! A word is eight little-endian `u32` limbs, which is the chip's byte order on the
//! little-endian guest and 4-byte aligned as the chip requires.

use core::mem::MaybeUninit;

#[cfg(target_os = "zkvm")]
use openvm_bigint_guest::{Int256Funct7, INT256_FUNCT3, OPCODE};

/// A 256-bit word, least significant limb first.
pub(crate) type Word = [u32; 8];

/// 0.
pub(crate) const ZERO: Word = [0; 8];
/// 1.
pub(crate) const ONE: Word = [1, 0, 0, 0, 0, 0, 0, 0];
/// 128, as a shift amount.
pub(crate) const HALF_BITS: Word = [128, 0, 0, 0, 0, 0, 0, 0];
/// 2^128 − 1: the low half's mask.
pub(crate) const LOW_MASK: Word = [u32::MAX, u32::MAX, u32::MAX, u32::MAX, 0, 0, 0, 0];

/// One Int256 instruction `rd ← rs1 op rs2` on word pointers, which must point to live,
/// 4-aligned words (`rd` may equal `rs1`). `custom_insn_r!` holds its own `unsafe`.
macro_rules! insn {
    ($funct7:ident, $out:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $native:expr) => {{
        let (out, a, b): (*mut Word, *const Word, *const Word) = ($out, $a, $b);
        #[cfg(target_os = "zkvm")]
        openvm_platform::custom_insn_r!(
            opcode = OPCODE,
            funct3 = INT256_FUNCT3,
            funct7 = Int256Funct7::$funct7 as u8,
            rd = In out,
            rs1 = In a,
            rs2 = In b
        );
        #[cfg(not(target_os = "zkvm"))]
        // SAFETY: the caller's (three live words; `out` may be `a`, nothing else borrows it).
        unsafe {
            let ($x, $y) = (native::load(a), native::load(b));
            native::store(out, $native);
        }
    }};
}

/// `a op b` for each chip operation; where named, `a = a op b` (`assign`) and `out = a op b`
/// into a word the caller holds (`to`), which writes no copy of the result.
macro_rules! ops {
    ($(#[doc = $doc:literal] $funct7:ident: $(fn $name:ident)? $(assign $assign:ident)? $(to $to:ident)?,
        |$x:ident, $y:ident| $native:expr;)*) => {$(
        $(
            #[doc = $doc]
            #[inline(always)]
            pub(crate) fn $name(a: &Word, b: &Word) -> Word {
                // Left uninitialised: zeroing a word the chip overwrites costs eight stores.
                let mut out = MaybeUninit::<Word>::uninit();
                // Three live, 4-aligned 32-byte words; `out` is apart from both operands.
                insn!($funct7, out.as_mut_ptr(), a, b, |$x, $y| $native);
                // SAFETY: the instruction wrote all 32 bytes of `out`.
                unsafe { out.assume_init() }
            }
        )?
        $(
            #[doc = $doc]
            ///
            /// In place: `a = a op b`.
            #[inline(always)]
            pub(crate) fn $assign(a: &mut Word, b: &Word) {
                let a: *mut Word = a;
                // Live, 4-aligned 32-byte words. `rd = rs1` is allowed: the chip reads both
                // operands before it writes the result.
                insn!($funct7, a, a, b, |$x, $y| $native)
            }
        )?
        $(
            #[doc = $doc]
            ///
            /// Into `out`: `out = a op b`.
            #[inline(always)]
            pub(crate) fn $to(out: &mut Word, a: &Word, b: &Word) {
                // Three live, 4-aligned 32-byte words; `out` is borrowed mutably, so apart from
                // both operands.
                insn!($funct7, out, a, b, |$x, $y| $native)
            }
        )?
    )*};
}

ops! {
    /// Wrapping sum.
    Add: fn add assign add_assign, |x, y| x.wrapping_add(y);
    /// Wrapping difference.
    Sub: fn sub assign sub_assign to sub_to, |x, y| x.wrapping_sub(y);
    /// The low 256 bits of the product.
    Mul: fn mul assign mul_assign to mul_to, |x, y| x.wrapping_mul(y);
    /// Bitwise and.
    And: fn and assign and_assign to and_to, |x, y| x & y;
    /// Left shift by `b mod 256`, the bits above 256 dropped.
    Sll: to shl_to, |x, y| x << (y.as_limbs()[0] as usize & 255);
    /// Logical right shift by `b mod 256`.
    Srl: fn shr assign shr_assign to shr_to, |x, y| x >> (y.as_limbs()[0] as usize & 255);
    /// Arithmetic (sign-extending) right shift by `b mod 256`.
    Sra: assign sra_assign, |x, y| x.arithmetic_shr(y.as_limbs()[0] as usize & 255);
    /// 1 if `a < b` (unsigned), else 0.
    Sltu: fn sltu, |x, y| native::U256::from((x < y) as u8);
}

/// `a < b`, unsigned.
#[inline(always)]
pub(crate) fn lt(a: &Word, b: &Word) -> bool {
    sltu(a, b)[0] != 0
}

/// Whether every limb is zero.
#[inline(always)]
pub(crate) fn is_zero(a: &Word) -> bool {
    a.iter().fold(0, |acc, limb| acc | limb) == 0
}

/// The big-endian number `bytes` (at most 32 of them) as a word.
pub(crate) fn from_be_slice(bytes: &[u8]) -> Word {
    debug_assert!(bytes.len() <= 32);
    let mut word = ZERO;
    for (i, byte) in bytes.iter().rev().enumerate() {
        word[i / 4] |= u32::from(*byte) << (8 * (i % 4));
    }
    word
}

/// The low `len` bytes of `word`, big-endian.
pub(crate) fn to_be_bytes(word: &Word, len: usize) -> alloc::vec::Vec<u8> {
    debug_assert!(len <= 32);
    (0..len)
        .rev()
        .map(|i| (word[i / 4] >> (8 * (i % 4))) as u8)
        .collect()
}

/// Keeps the low `bits` bits (`bits <= 256`).
pub(crate) fn truncate(word: &mut Word, bits: usize) {
    for (i, limb) in word.iter_mut().enumerate() {
        let low = 32 * i;
        if bits <= low {
            *limb = 0;
        } else if bits < low + 32 {
            *limb &= (1u32 << (bits - low)) - 1;
        }
    }
}

/// The word as ruint's `U256` (for the one-off divisions the chip cannot do).
pub(crate) fn to_u256(w: &Word) -> alloy_primitives::U256 {
    alloy_primitives::U256::from_limbs(core::array::from_fn(|i| {
        u64::from(w[2 * i]) | (u64::from(w[2 * i + 1]) << 32)
    }))
}

/// A ruint `U256` as a word.
pub(crate) fn from_u256(x: alloy_primitives::U256) -> Word {
    let limbs = x.as_limbs();
    core::array::from_fn(|i| (limbs[i / 2] >> (32 * (i % 2))) as u32)
}

/// The host's stand-in for the chip: ruint's `U256`.
#[cfg(not(target_os = "zkvm"))]
mod native {
    pub(super) use alloy_primitives::U256;

    use super::{from_u256, to_u256, Word};

    /// Reads a word.
    ///
    /// # Safety
    /// `p` points to a live word.
    pub(super) unsafe fn load(p: *const Word) -> U256 {
        // SAFETY: the caller's.
        to_u256(unsafe { &*p })
    }

    /// Writes a word.
    ///
    /// # Safety
    /// `p` points to a live word no reference is held to.
    pub(super) unsafe fn store(p: *mut Word, x: U256) {
        // SAFETY: the caller's.
        unsafe { *p = from_u256(x) };
    }
}
