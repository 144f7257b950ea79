//! Validating a resolved block natively: the same `program` code the guest runs, on the host,
//! so a block's verdict is known in seconds before the VM runs it. The guest's input is made
//! here too, from the same data and chain, so the VM sees exactly what was validated.

use std::path::Path;
use std::time::{Duration, Instant};

use alloy_hardforks::EthereumHardfork;
use program::{BlockOutput, ChainConfig, StatelessInput, ValidationError};

use crate::blocks::BlockData;
use crate::fetch::FetchOptions;
use crate::target::{ResolveError, Resolved, Target};

/// A native validation's result.
#[derive(Debug)]
pub struct NativeRun {
    /// The loaded block.
    pub data: BlockData,
    /// The chain config used.
    pub chain: ChainConfig,
    /// The fork the block runs under (from its header and the chain config).
    pub fork: EthereumHardfork,
    /// The verdict.
    pub verdict: Result<BlockOutput, ValidationError>,
    /// Time spent validating (loading excluded).
    pub elapsed: Duration,
}

impl NativeRun {
    /// The guest's input: the block, its witness and the chain config, as validated here.
    pub fn guest_input(&self) -> Vec<u8> {
        StatelessInput {
            block: self.data.block_rlp.clone().into(),
            witness: self.data.witness.clone(),
            chain: self.chain.clone(),
        }
        .to_bytes()
    }
}

/// Validates a resolved block.
pub fn validate(block: Resolved) -> NativeRun {
    let Resolved { data, chain, .. } = block;
    let fork = chain.fork_at(data.header.number, data.header.timestamp);
    let started = Instant::now();
    let verdict = program::validate_block(&data.block_rlp, &data.witness, &chain);
    NativeRun {
        elapsed: started.elapsed(),
        data,
        chain,
        fork,
        verdict,
    }
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
