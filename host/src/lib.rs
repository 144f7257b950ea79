//! The host: gets block data (disk, an archive node, or generated), checks it natively, runs
//! and meters the guest in the OpenVM VM, and proves it. The work is the crates below it
//! (`chaindata`, `fetch`, `blockgen`, `prover`, `cluster`); this crate is the command line's side.
//!
//! A block command is a pipeline, one step each:
//!
//! 1. [`target`]: the command line's block and chain, resolved once ([`target::Target::resolve`]):
//!    files found ([`chaindata::blocks`]) or fetched (crate [`fetch`]), loaded, the chain
//!    config read ([`chaindata::chain`]);
//! 2. [`native`]: the block validated on the host ([`prover::native`]), and the guest's input
//!    made from it;
//! 3. [`prover::guest`]: the guest ELF built; [`prover::vm`]: executed or metered in the
//!    OpenVM VM and held to the native verdict; [`prover::proof`]: proved, written, read,
//!    verified;
//! 4. [`report`]: what one run found; [`measure`]: comparisons and censuses over several runs;
//! 5. [`print`]: everything printed, tables and JSON.
//!
//! Besides: [`ef_tests`] (the Ethereum Foundation's blockchain tests, run statelessly, over
//! [`chaindata::fixtures`]' full-state witnesses), [`inspect`] (what a witness holds and
//! reaches). One block proved by many workers through PostgreSQL is crate [`cluster`].

pub mod ef_tests;
pub mod inspect;
pub mod measure;
pub mod native;
pub mod print;
pub mod proving;
pub mod report;
pub mod target;
