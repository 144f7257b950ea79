//! Validating a block natively: the same `program` code the guest runs, on the host.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use alloy_consensus::{Block, TxEnvelope};
use alloy_rlp::Decodable;
use program::{BlockOutput, ChainConfig, ValidationError};

use crate::blocks::{self, BlockData, LoadError};
use crate::chain::{self, ChainError};

/// Why a block could not even be run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A block file is missing or unreadable.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The chain config file is unreadable or invalid.
    #[error("chain config {path}: {reason}")]
    Chain {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

impl RunError {
    fn chain(path: &Path, reason: impl ToString) -> Self {
        Self::Chain {
            path: path.to_owned(),
            reason: reason.to_string(),
        }
    }
}

/// The chain config for a block: `chain_file` if given, else `<id>.chain.json` beside the
/// block files, else Ethereum mainnet.
pub fn chain_for(dir: &Path, id: &str, chain_file: Option<&Path>) -> Result<ChainConfig, RunError> {
    let beside = dir.join(format!("{id}.chain.json"));
    let path = match chain_file {
        Some(path) => path.to_owned(),
        None if beside.is_file() => beside,
        None => return Ok(ChainConfig::mainnet()),
    };
    chain::from_file(&path).map_err(|e: ChainError| RunError::chain(&path, e))
}

/// A native validation's result.
#[derive(Debug)]
pub struct NativeRun {
    /// The loaded block.
    pub data: BlockData,
    /// The chain config used.
    pub chain: ChainConfig,
    /// The verdict.
    pub verdict: Result<BlockOutput, ValidationError>,
    /// Time spent validating (loading excluded).
    pub elapsed: Duration,
}

impl NativeRun {
    /// The fork the block runs under, when its header decodes.
    pub fn fork(&self) -> Option<String> {
        let block = Block::<TxEnvelope>::decode(&mut self.data.block_rlp.as_slice()).ok()?;
        Some(format!(
            "{:?}",
            self.chain
                .fork_at(block.header.number, block.header.timestamp)
        ))
    }
}

/// Loads block `id` from `dir` and validates it natively.
pub fn run_native(dir: &Path, id: &str, chain_file: Option<&Path>) -> Result<NativeRun, RunError> {
    let chain = chain_for(dir, id, chain_file)?;
    let data = blocks::load(dir, id)?;
    let started = Instant::now();
    let verdict = program::validate_block(&data.block_rlp, &data.witness, &chain);
    Ok(NativeRun {
        elapsed: started.elapsed(),
        data,
        chain,
        verdict,
    })
}
