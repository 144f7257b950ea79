//! The host: gets block data (disk, an archive node, or generated), checks it natively, runs
//! and meters the guest in the OpenVM VM, and proves it.
//!
//! - [`blocks`]: the on-disk block format (`<n>.block.rlp` + `<n>.witness.json`, what an
//!   archive node's `debug_getRawBlock` / `debug_executionWitness` return), loading and lookup.
//! - [`chain`]: chain configurations from genesis-style JSON.
//! - [`ef_tests`]: the Ethereum Foundation's blockchain tests, run statelessly (`host ef-tests`).
//! - [`fetch`]: blocks and witnesses from an archive node's JSON-RPC, validated before caching.
//! - [`fixtures`]: EEST blockchain tests, and the full-state → witness converter they need.
//! - [`gen`]: the project's deterministic devnet blocks (the default block).
//! - [`guest`]: guest builds ([`guest::GuestSpec`]: program, keccak, crypto, instrumentation).
//! - [`inspect`]: what a witness holds and which accounts and storage slots it reaches.
//! - [`precompiles`]: the precompile census: calls and instructions per cryptographic operation.
//! - [`progress`]: per-segment progress while proving.
//! - [`proof`]: app proofs of a guest run: prove, write, read, verify.
//! - [`report`]: run reports (text, JSON) and the stock-versus-ours comparison.
//! - [`run`]: validating a block natively.
//! - [`vm`]: the guest in the OpenVM VM: build, execute, meter.

pub mod blocks;
pub mod chain;
pub mod ef_tests;
pub mod fetch;
pub mod fixtures;
pub mod gen;
pub mod guest;
pub mod inspect;
pub mod precompiles;
pub mod progress;
pub mod proof;
pub mod report;
pub mod run;
pub mod vm;
