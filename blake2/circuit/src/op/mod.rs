//! The instruction chip: one row per `BLAKE2B_ROUNDS`, its registers and memory, and the call
//! it hands to the round chip.

pub mod air;
pub mod columns;
pub mod execution;
pub mod trace;

pub use air::*;
pub use columns::*;
pub use trace::*;

/// The instruction's executor (plain, metered and preflight).
#[derive(derive_new::new, Clone, Copy)]
pub struct Blake2bExecutor {
    pub offset: usize,
    pub pointer_max_bits: usize,
}

/// The rounds one instruction may run: `1..=MAX_ROUNDS`. The AIR takes the count's two low
/// bytes and zero high bytes, so more cannot be proved; zero cannot either (see
/// [`crate::round::air`]). The executors refuse both.
pub const MAX_ROUNDS: u32 = blake2_guest::MAX_ROUNDS;

/// Timestamps one instruction takes: three register reads, 32 message reads, 32 state writes.
pub const TIMESTAMP_DELTA: usize = 3 + 2 * crate::STATE_WORDS;
