//! What a proof of the block guest commits to: the one layout of its public values.
//!
//! Four 32-byte words, in this order: the block's hash, its parent's hash, the post-state root
//! the block was re-executed to, and the digest of the chain config it was validated under
//! ([`ChainConfig::digest`]). The digest is what makes "valid" mean "valid under these rules": a
//! verifier compares it with the digest of the chain it expects (mainnet's, by default), so a
//! proof made under another fork schedule, blob schedule, deposit contract or chain id is
//! refused. The guest reveals [`PublicValues::to_bytes`]; every host path reads them back with
//! [`PublicValues::from_bytes`].

use alloy_primitives::B256;

use crate::chain::ChainConfig;
use crate::validate::BlockOutput;

/// The block guest's public values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublicValues {
    /// keccak256 of the block header.
    pub block_hash: B256,
    /// The parent's hash (the last ancestor header the witness proves).
    pub parent_hash: B256,
    /// The state root after the block, as re-executed.
    pub post_state_root: B256,
    /// keccak256 of the canonical encoding of the chain config.
    pub chain_digest: B256,
}

impl PublicValues {
    /// Bytes the guest reveals (the VM's 128 public values).
    pub const LEN: usize = 128;

    /// The values of a validated block under `chain`.
    pub fn new(output: &BlockOutput, chain: &ChainConfig) -> Self {
        Self::from_output(output, chain.digest())
    }

    /// The values of a validated block under the chain whose digest is `chain_digest`.
    pub fn from_output(output: &BlockOutput, chain_digest: B256) -> Self {
        Self {
            block_hash: output.block_hash,
            parent_hash: output.parent_hash,
            post_state_root: output.post_state_root,
            chain_digest,
        }
    }

    /// The four words, in the order they are revealed.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        for (slot, word) in out.chunks_exact_mut(32).zip(self.words()) {
            slot.copy_from_slice(word.as_slice());
        }
        out
    }

    /// Reads the first [`PublicValues::LEN`] bytes of `bytes` (a census build reveals more after
    /// them); `None` when there are fewer.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let bytes = bytes.get(..Self::LEN)?;
        let word = |k: usize| B256::from_slice(&bytes[32 * k..32 * (k + 1)]);
        Some(Self {
            block_hash: word(0),
            parent_hash: word(1),
            post_state_root: word(2),
            chain_digest: word(3),
        })
    }

    fn words(&self) -> [B256; 4] {
        [
            self.block_hash,
            self.parent_hash,
            self.post_state_root,
            self.chain_digest,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_in_order() {
        let values = PublicValues {
            block_hash: B256::repeat_byte(1),
            parent_hash: B256::repeat_byte(2),
            post_state_root: B256::repeat_byte(3),
            chain_digest: B256::repeat_byte(4),
        };
        let bytes = values.to_bytes();
        assert_eq!(bytes[0], 1);
        assert_eq!(bytes[32], 2);
        assert_eq!(bytes[64], 3);
        assert_eq!(bytes[127], 4);
        assert_eq!(PublicValues::from_bytes(&bytes), Some(values));
        let mut longer = bytes.to_vec();
        longer.extend([9; 8]);
        assert_eq!(PublicValues::from_bytes(&longer), Some(values));
        assert_eq!(PublicValues::from_bytes(&bytes[..127]), None);
    }
}
