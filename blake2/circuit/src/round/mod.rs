//! The round chip: one trace row per BLAKE2b round, fed by [`crate::op`] over a
//! permutation-check bus.

pub mod air;
pub mod columns;
pub mod trace;

pub use air::*;
pub use columns::*;
pub use trace::*;

/// Byte chunks over which the 64-bit additions carry: three inputs of 24 bits and a carry sum
/// to under `3·2^24 < p` (BabyBear), so each chunk's equation holds over the integers.
pub const CHUNKS: [(usize, usize); 3] = [(0, 3), (3, 6), (6, 8)];
