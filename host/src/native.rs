//! A block from the command line validated natively: resolved ([`crate::target`]), then
//! [`prover::native::validate`], the same `program` code the guest runs.

use std::path::Path;

use fetch::FetchOptions;
pub use prover::native::NativeRun;

use crate::target::{ResolveError, Resolved, Target};

/// Validates a resolved block.
pub fn validate(block: Resolved) -> NativeRun {
    prover::native::validate(block.data, block.chain)
}

/// Loads block `id` from `dir` (chain: `chain_file`, else `<id>.chain.json` beside it, else
/// mainnet) and validates it natively.
pub fn run_native(
    dir: &Path,
    id: &str,
    chain_file: Option<&Path>,
) -> Result<NativeRun, ResolveError> {
    Target::on_disk(dir, id, chain_file)
        .resolve(FetchOptions::default())
        .map(validate)
}
