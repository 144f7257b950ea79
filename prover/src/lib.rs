//! The prover library: everything that touches OpenVM, for every command and crate that does.
//!
//! 1. [`native`]: a block validated on the host (the same `program` code the guest runs) and
//!    the guest's input made from it, in the order the guest first needs each item;
//! 2. [`guest`]: the guest ELFs built ([`guest::GuestSpec`]: program, keccak, crypto,
//!    instrumentation);
//! 3. [`vm`]: the guest executed or metered in the OpenVM VM, segment by segment, and held to
//!    the native verdict;
//! 4. [`proof`]: proved (in one process or in parts), aggregated, written, read, verified
//!    against the pinned commitments ([`proof::pin`]);
//! 5. [`standard`]: the standard guest (EIP-8025) run on its stateless input, natively and in
//!    the VM; [`progress`]: per-segment progress while proving.
//!
//! Below it: `program` (the validation), `chaindata` (block data). Above it: the proving
//! cluster (`cluster`) and the `host` command line, which add reports, measurements and
//! printing.

pub mod guest;
pub mod native;
pub mod progress;
pub mod proof;
pub mod standard;
pub mod vm;
