//! The round chip's columns.

use openvm_circuit_primitives::{StructReflection, StructReflectionHelper};
use openvm_circuit_primitives_derive::AlignedBorrow;

/// One mixing `G(a, b, c, d, x, y)`, in the order it computes:
/// `a1 = a+b+x`, `d1 = (d^a1)>>>32`, `c1 = c+d1`, `b1 = (b^c1)>>>24`, `a2 = a1+b1+y`,
/// `d2 = (d1^a2)>>>16`, `c2 = c1+d2`, `b2 = (b1^c2)>>>63`. Words are little-endian bytes.
/// An XOR's bytes are kept before the rotation (`*_xor`); the rotated word is a permutation of
/// them, or, for `b2`, `2·z_i − 256·hi_i + hi_{i−1}` with `hi_i` the top bit of `z_i`.
#[repr(C)]
#[derive(Copy, Clone, Debug, AlignedBorrow, StructReflection)]
pub struct MixCols<T> {
    pub a1: [T; 8],
    pub a1_carry: [T; 3],
    pub d1_xor: [T; 8],
    pub c1: [T; 8],
    pub c1_carry: [T; 3],
    pub b1_xor: [T; 8],
    pub a2: [T; 8],
    pub a2_carry: [T; 3],
    pub d2_xor: [T; 8],
    pub c2: [T; 8],
    pub c2_carry: [T; 3],
    pub b2_xor: [T; 8],
    pub b2_hi: [T; 8],
}

/// One round. A call of `R` rounds is `R` consecutive rows: the first receives
/// `(timestamp, R, v, m)` from the instruction's row, each next row continues from this one's
/// output with `remaining − 1`, and the last (where `remaining = 1`) sends
/// `(timestamp, v')` back.
#[repr(C)]
#[derive(Copy, Clone, Debug, AlignedBorrow, StructReflection)]
pub struct RoundCols<T> {
    /// A round of some call (padding rows are all zero).
    pub is_valid: T,
    /// The call's first round: receives the call's input.
    pub is_first: T,
    /// The call's last round: sends the call's output.
    pub is_last: T,
    /// The instruction's timestamp, the same on all the call's rows.
    pub timestamp: T,
    /// Rounds left in the call, this one included: `R` on the first row, 1 on the last.
    pub remaining: T,
    /// One-hot: this round's schedule `σ[k]`, `k` = round index mod 10.
    pub sigma: [T; 10],
    /// The working vector before this round, 16 words of 8 bytes.
    pub v: [[T; 8]; 16],
    /// The message block, the same on all the call's rows.
    pub m: [[T; 8]; 16],
    /// The eight mixings.
    pub mix: [MixCols<T>; 8],
}

pub const NUM_MIX_COLS: usize = size_of::<MixCols<u8>>();
pub const NUM_ROUND_COLS: usize = size_of::<RoundCols<u8>>();
