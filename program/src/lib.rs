//! Stateless validation of an Ethereum block: the library the OpenVM guest runs and the host
//! runs natively, so a block can be checked in seconds before it is proved.
//!
//! `no_std` (with `alloc`). Given a block, its ancestors' headers and an execution witness, it
//! decides whether the block is a valid state transition ([`validate_block`]). Every keccak
//! goes through [`mpt`]'s sponge: trie nodes, headers and the state trie directly, and (in the
//! guest) alloy's and revm's hashes through the `native_keccak256` hook.
//!
//! Modules: [`witness`] (the witness, pre-state root), [`chain`] (fork schedule), [`header`]
//! (ancestors, header rules), [`body`] (roots, senders), [`db`] (the witness as revm's database),
//! [`evm`] (revm with [`journal`]'s EIP-7610), [`code`] and [`jumps`] (witness codes as revm runs them), [`execute`] (alloy-evm's block executor, state changes into the
//! trie), [`validate`] (the
//! whole check), [`access_list`] (EIP-7928's list against the header), [`input`] (what the guest reads), [`public`] (what a proof commits to),
//! [`error`] (why a block fails), [`verdict`] (whose fault it is: the [`Verdict`]), [`memcmp`]
//! (the guest's word-wise `memcmp`); with feature `guest`, `guest` (the VM's
//! input and output, and the instrumented builds' hooks).
#![no_std]
#![warn(missing_docs)]

extern crate alloc;

pub mod access_list;
pub mod body;
pub mod chain;
pub mod code;
pub mod db;
pub mod deposits;
pub mod error;
pub mod evm;
pub mod execute;
#[cfg(feature = "guest")]
pub mod guest;
pub mod header;
pub mod input;
pub mod journal;
pub mod jumps;
pub mod memcmp;
pub mod public;
pub mod region;
pub mod standard;
pub mod swaps;
pub mod tracked;
pub mod validate;
pub mod verdict;
pub mod warm;
pub mod witness;

pub use chain::ChainConfig;

/// Ends `value`'s life. In the guest without running its drop: the bump allocator frees
/// nothing, so a drop would only walk the value's memory again, pages the prover pays for, in
/// the last segment. On the host, an ordinary drop.
#[inline(always)]
pub fn discard<T>(value: T) {
    #[cfg(target_os = "zkvm")]
    core::mem::forget(value);
    #[cfg(not(target_os = "zkvm"))]
    drop(value);
}
pub use error::{DbError, ValidationError};
pub use input::{guest_items, guest_items_with_chain_rlp, GuestInput, InputError, StatelessInput};
pub use public::PublicValues;
pub use validate::{decode_block, validate_block, validate_block_over, BlockOutput, ValidBlock};
pub use verdict::Verdict;
pub use witness::{ExecutionWitness, WitnessError};
