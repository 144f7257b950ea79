//! What the guest reads: one RLP list, `[block, witness, chain]`.
//!
//! The block stays the raw RLP an archive node serves (it is decoded once, by the validator);
//! the witness's byte strings and the chain config are plain RLP. Compact, and decoded in one
//! pass with alloy-rlp.

use alloy_primitives::Bytes;
use alloy_rlp::{RlpDecodable, RlpEncodable};

use crate::chain::ChainConfig;
use crate::validate::{validate_block, BlockOutput};
use crate::witness::ExecutionWitness;
use crate::ValidationError;

/// Everything a stateless validation needs.
#[derive(Debug, Clone, PartialEq, Eq, RlpEncodable, RlpDecodable)]
pub struct StatelessInput {
    /// `rlp([header, transactions, ommers, withdrawals])`.
    pub block: Bytes,
    /// The execution witness.
    pub witness: ExecutionWitness,
    /// The chain's fork schedule.
    pub chain: ChainConfig,
}

impl StatelessInput {
    /// Validates the block.
    pub fn validate(&self) -> Result<BlockOutput, ValidationError> {
        validate_block(&self.block, &self.witness, &self.chain)
    }
}
