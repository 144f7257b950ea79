//! Measuring the guest beyond one run, each figure from OpenVM's metered interpreter or counters
//! the guest itself keeps:
//!
//! - [`compare`]: the block guest with OpenVM's stock keccak and with ours, metered, and each
//!   build's keccak census ([`keccak`]);
//! - [`precompiles`]: per cryptographic operation, calls and the instructions they cost.
//!
//! The tables are rendered in [`crate::print`].

use serde::Serialize;

use crate::guest::{Crypto, GuestSpec, Keccak};
use crate::native::NativeRun;
use crate::report::{run_in_vm, Mode, RunReport};
use crate::vm::VmRunError;

pub mod keccak;
pub mod precompiles;

pub use keccak::{run_census, CensusReport};
pub use precompiles::{run_precompile_census, PrecompileCensus};

/// `host compare --json`: both keccak variants on one block, metered, with their censuses.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The block's id.
    pub block: String,
    /// OpenVM's stock keccak.
    pub stock: RunReport,
    /// Ours.
    pub ours: RunReport,
    /// Each build's keccak census.
    pub census: Censuses,
}

/// The keccak census of each variant.
#[derive(Debug, Clone, Serialize)]
pub struct Censuses {
    /// OpenVM's stock keccak.
    pub stock: CensusReport,
    /// Ours.
    pub ours: CensusReport,
}

/// Runs a block the native run found valid with each keccak, metered, and each census build.
pub fn compare(run: &NativeRun) -> Result<Comparison, VmRunError> {
    let metered = |keccak| run_in_vm(run, Mode::Metered, GuestSpec::block(keccak, Crypto::Openvm));
    Ok(Comparison {
        block: run.data.id.clone(),
        stock: metered(Keccak::Stock)?,
        ours: metered(Keccak::Ours)?,
        census: Censuses {
            stock: run_census(run, Keccak::Stock)?,
            ours: run_census(run, Keccak::Ours)?,
        },
    })
}
