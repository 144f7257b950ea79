//! The standard entry (EIP-8025): validate a block given as the execution specs' stateless
//! input bytes ([`stateless_ssz`]) and say so in their 43-byte result.
//!
//! 1. Decode the bytes. Bytes that do not decode give [`StatelessValidationResult::UNDECODABLE`]
//!    (43 zero bytes): there is no request to name.
//! 2. The result names `hash_tree_root(new_payload_request)`, the chain id and the schema id
//!    from here on, whatever the verdict.
//! 3. The rules are the schema's fork on the chain the id names ([`rules`]); an unknown chain
//!    has none, and the result is `false`.
//! 4. The request becomes a block as `engine_newPayload` makes one ([`payload`]): header
//!    rebuilt, block hash and versioned hashes checked.
//! 5. The block is validated by the same library as the block guest's, over the input's
//!    witness, with the senders taken from the given public keys, each verified against its
//!    transaction's signature ([`crate::validate::Signers::PublicKeys`]).
//!
//! The result is `true` only when all of it passes. Invalid and insufficient witness data
//! both give `false` (the format has no third answer); [`Standard::error`] keeps the finer
//! verdict for the host.

pub mod payload;
pub mod rules;

use alloc::vec::Vec;
use alloy_primitives::Bytes;
use stateless_ssz::{
    decode_input, InputError, Sha256Hasher, StatelessInput, StatelessValidationResult,
};

use crate::validate::{validate_block_signed, BlockOutput, Signers};
use crate::witness::ExecutionWitness;
use crate::{ValidationError, Verdict};
pub use payload::PayloadError;

/// The SHA-256 that merkleizes the request: OpenVM's SHA-256 chip in a guest with the
/// `crypto` crate, the `sha2` crate elsewhere.
#[derive(Debug, Clone, Copy, Default)]
pub struct GuestHasher;

impl Sha256Hasher for GuestHasher {
    fn hash(&self, data: &[u8]) -> [u8; 32] {
        #[cfg(any(feature = "openvm-crypto", feature = "crypto-census"))]
        {
            crypto::sha256::sha256(data)
        }
        #[cfg(not(any(feature = "openvm-crypto", feature = "crypto-census")))]
        {
            libssz_merkle::Sha2Hasher.hash(data)
        }
    }
}

/// Why a standard input is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StandardError {
    /// The bytes are not a stateless input.
    #[error("stateless input: {0}")]
    Decode(InputError),
    /// No rules are compiled in for the chain id.
    #[error("chain id {0} is not one this guest knows (mainnet, sepolia, hoodi, devnet)")]
    UnknownChain(u64),
    /// The request is not a block.
    #[error("{0}")]
    Payload(PayloadError),
    /// The block is not valid.
    #[error("{0}")]
    Validation(ValidationError),
}

impl StandardError {
    /// The finer verdict behind a `false`.
    pub fn verdict(&self) -> Verdict {
        match self {
            StandardError::Decode(_) | StandardError::UnknownChain(_) => Verdict::Unusable,
            StandardError::Payload(_) => Verdict::Invalid,
            StandardError::Validation(e) => e.verdict(),
        }
    }
}

/// A standard validation: the result to reveal, and what it rests on.
#[derive(Debug)]
pub struct Standard {
    /// The 43-byte result.
    pub result: StatelessValidationResult,
    /// The block's output when valid, else why not.
    pub outcome: Result<BlockOutput, StandardError>,
}

impl Standard {
    /// Why the result is `false`, if it is.
    pub fn error(&self) -> Option<&StandardError> {
        self.outcome.as_ref().err()
    }
}

/// The witness as the block validator reads it.
pub fn witness_of(input: &StatelessInput) -> ExecutionWitness {
    fn all<const N: usize>(items: &[libssz_types::SszList<u8, N>]) -> Vec<Bytes> {
        items.iter().map(|b| Bytes::copy_from_slice(b)).collect()
    }
    ExecutionWitness {
        state: all(&input.witness.state),
        codes: all(&input.witness.codes),
        headers: all(&input.witness.headers),
    }
}

/// Validates the input bytes `bytes`, merkleizing with `hasher`.
pub fn validate(bytes: &[u8], hasher: &impl Sha256Hasher) -> Standard {
    match decode_input(bytes) {
        Err(e) => Standard {
            result: StatelessValidationResult::UNDECODABLE,
            outcome: Err(StandardError::Decode(e)),
        },
        Ok(input) => validate_input(&input, hasher),
    }
}

/// Validates a decoded input.
pub fn validate_input(input: &StatelessInput, hasher: &impl Sha256Hasher) -> Standard {
    let outcome = check(input);
    Standard {
        result: StatelessValidationResult {
            new_payload_request_root: input.request_root(hasher),
            successful_validation: outcome.is_ok(),
            chain_id: input.chain_id,
            schema_id: input.fork.schema_id(),
        },
        outcome,
    }
}

fn check(input: &StatelessInput) -> Result<BlockOutput, StandardError> {
    let chain = rules::rules(input.chain_id, input.fork)
        .ok_or(StandardError::UnknownChain(input.chain_id))?;
    let block = payload::block_of(&input.new_payload_request).map_err(StandardError::Payload)?;
    let block_rlp = alloy_rlp::encode(&block);
    crate::discard(block);
    let witness = witness_of(input);
    let store = witness.store();
    validate_block_signed(
        &block_rlp,
        &witness.headers,
        &store,
        &chain,
        Signers::PublicKeys(&input.public_keys),
    )
    .map(|valid| valid.output)
    .map_err(StandardError::Validation)
}
