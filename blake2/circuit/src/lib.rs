//! A BLAKE2b round chip for OpenVM 2.0.2, built as OpenVM's keccak extension is built
//! (`openvm-keccak256-circuit`: an instruction chip that talks to memory, and a periphery chip
//! that does the permutation, joined by a permutation-check bus).
//!
//! Why: EIP-152's `BLAKE2F` charges one gas per round. In software on RV32 a round costs about
//! 560 instructions and 24,000 main trace cells, so a block of `BLAKE2F` calls costs about 29×
//! a mainnet block per gas. OpenVM has no BLAKE2 chip; this is one.
//!
//! - [`Blake2bOpcode::BLAKE2B_ROUNDS`] (encoding in crate `blake2-guest`) runs `R` rounds over a
//!   128-byte working vector `v` in memory, in place, with a 128-byte message `m`.
//! - [`op`]: one row per instruction. It reads the three registers, the message (32 words) and
//!   writes `v` (32 words, whose previous values are the pre-state), and exchanges
//!   `(timestamp, R, v, m)` and `(timestamp, v')` with the round chip.
//! - [`round`]: one row per round, byte limbs. The rotations by 32, 24 and 16 are byte
//!   permutations, the XORs go through OpenVM's bitwise lookup (which also range-checks every
//!   sum), the additions are carried over 24-bit chunks, and the rotation by 63 splits each
//!   byte's top bit. See [`round::air`] for the argument that a round's rows compute exactly
//!   the rounds asked for.
//! - [`extension`]: the VM extension (executors, AIRs, CPU prover) and the transpiler
//!   extension.
//!
//! The GPU build (`cuda`, module `cuda`) generates these two chips' traces on the CPU and copies
//! them to the device: the chips have no CUDA kernels.

pub mod extension;
pub mod op;
pub mod opcode;
pub mod reference;
pub mod round;

#[cfg(feature = "cuda")]
pub mod cuda;

#[cfg(test)]
mod tests;

pub use extension::*;
pub use opcode::*;

/// Bytes per memory access (OpenVM's fixed 4-byte granularity).
pub const WORD_BYTES: usize = 4;
/// Bytes of `v` and of `m`.
pub const STATE_BYTES: usize = blake2_guest::STATE_BYTES;
/// Memory words of `v` and of `m`.
pub const STATE_WORDS: usize = STATE_BYTES / WORD_BYTES;
