//! Stateless validation of an Ethereum block: the library the OpenVM guest runs and the host
//! runs natively, so a block can be checked in seconds before it is proved.
//!
//! `no_std` (with `alloc`). This crate holds what the guest reads and checks; every hash goes
//! through [`mpt`]'s sponge.
//!
//! - [`witness`]: the execution witness (trie nodes, bytecodes, ancestor headers), its compact
//!   RLP encoding for the guest's input, and the pre-state check: the parent header's
//!   `state_root` must be one of the witness's nodes.
#![no_std]
#![warn(missing_docs)]

extern crate alloc;

pub mod witness;

pub use witness::{ExecutionWitness, WitnessError};
