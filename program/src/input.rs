//! What the guest reads: one RLP list, `[block, witness, chain]`, and nothing after it.
//!
//! The block stays the raw RLP an archive node serves (it is decoded once, by the validator);
//! the witness's byte strings and the chain config are plain RLP. Compact, and decoded in one
//! pass with alloy-rlp.

use alloy_primitives::Bytes;
use alloy_rlp::{Decodable, RlpDecodable, RlpEncodable};

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

/// Guest input that is not one [`StatelessInput`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The bytes do not decode.
    #[error("malformed input: {0}")]
    Rlp(alloy_rlp::Error),
    /// Bytes follow the input's list.
    #[error("{0} trailing bytes after the input")]
    TrailingBytes(usize),
}

impl StatelessInput {
    /// Decodes exactly one input from `bytes`: trailing bytes are refused, not ignored.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, InputError> {
        let mut buf = bytes;
        let input = Self::decode(&mut buf).map_err(InputError::Rlp)?;
        if !buf.is_empty() {
            return Err(InputError::TrailingBytes(buf.len()));
        }
        Ok(input)
    }

    /// The bytes the guest reads: the input's RLP.
    pub fn to_bytes(&self) -> alloc::vec::Vec<u8> {
        alloy_rlp::encode(self)
    }

    /// Validates the block.
    pub fn validate(&self) -> Result<BlockOutput, ValidationError> {
        validate_block(&self.block, &self.witness, &self.chain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_rlp::Encodable;

    #[test]
    fn trailing_bytes_after_the_input_are_refused() {
        let input = StatelessInput {
            block: Bytes::from_static(&[0xc0]),
            witness: ExecutionWitness::default(),
            chain: ChainConfig::mainnet(),
        };
        let mut bytes = alloc::vec::Vec::new();
        input.encode(&mut bytes);
        // (A TTD condition decodes with its activation block only: compare digests.)
        let decoded = StatelessInput::from_bytes(&bytes).unwrap();
        assert_eq!(decoded.block, input.block);
        assert_eq!(decoded.chain.digest(), input.chain.digest());
        bytes.push(0);
        assert_eq!(
            StatelessInput::from_bytes(&bytes),
            Err(InputError::TrailingBytes(1))
        );
        assert!(matches!(
            StatelessInput::from_bytes(&bytes[..bytes.len() - 3]),
            Err(InputError::Rlp(_))
        ));
    }
}
