//! The host: gets block data (disk, an archive node, or generated), checks it natively, runs
//! and meters the guest in the OpenVM VM, and proves it.
//!
//! A block command is a pipeline, one module per step:
//!
//! 1. [`target`]: the command line's block and chain, resolved once ([`target::Target::resolve`]):
//!    files found ([`chaindata::blocks`]) or fetched (crate [`fetch`]), loaded, the chain
//!    config read ([`chaindata::chain`]);
//! 2. [`native`]: the block validated on the host, and the guest's input made from it;
//! 3. [`guest`]: the guest ELF built ([`guest::GuestSpec`]: program, keccak, crypto,
//!    instrumentation);
//! 4. [`vm`]: the guest executed or metered in the OpenVM VM and held to the native verdict;
//!    [`proof`]: proved, written, read, verified;
//! 5. [`report`]: what one run found; [`measure`]: comparisons and censuses over several runs;
//! 6. [`print`]: everything printed, tables and JSON.
//!
//! Besides: [`ef_tests`] (the Ethereum Foundation's blockchain tests, run statelessly, over
//! [`chaindata::fixtures`]' full-state witnesses), [`inspect`] (what a witness holds and reaches), [`progress`]
//! (per-segment progress while proving).

pub mod cluster;
pub mod ef_tests;
pub mod guest;
pub mod inspect;
pub mod measure;
pub mod native;
pub mod print;
pub mod progress;
pub mod proof;
pub mod report;
pub mod standard;
pub mod target;
pub mod vm;
