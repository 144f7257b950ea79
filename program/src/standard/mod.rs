//! The standard entry (EIP-8025): validate a block given as the execution specs' stateless
//! input bytes ([`stateless_ssz`]) and say so in their 43-byte result.
//!
//! 1. Decode the bytes ([`InputView`]: the witness stays in the input's bytes, not copied).
//!    Bytes that do not decode give [`StatelessValidationResult::UNDECODABLE`] (43 zero
//!    bytes): there is no request to name.
//! 2. The result names `hash_tree_root(new_payload_request)`, the chain id and the schema id
//!    from here on, whatever the verdict.
//! 3. The rules are the schema's fork on the chain the id names ([`rules`]); an unknown chain
//!    has none, and the result is `false`.
//! 4. The request becomes a block as `engine_newPayload` makes one ([`payload`]): header
//!    rebuilt, block hash and versioned hashes checked. The block is validated as decoded,
//!    never encoded to RLP to be decoded again.
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
    Fork, InputError, InputView, NewPayloadRequest, Sha256Hasher, StatelessInput,
    StatelessValidationResult, WitnessView, PUBLIC_KEY_BYTES,
};

use crate::validate::{validate_decoded, BlockOutput, Signers};
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

/// The witness of an owned input as the block validator reads it (copies every item).
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

/// The witness of a view into `bytes` as the block validator reads it: every item a view into
/// the same bytes, none copied ([`Bytes::slice_ref`]; free for the guest's static input).
fn witness_in(bytes: &Bytes, view: &WitnessView<'_>) -> ExecutionWitness {
    let all = |items: &[&[u8]]| items.iter().map(|item| bytes.slice_ref(item)).collect();
    ExecutionWitness {
        state: all(&view.state),
        codes: all(&view.codes),
        headers: all(&view.headers),
    }
}

/// Validates the input bytes `bytes`, merkleizing with `hasher` (the host's entry: the bytes
/// are copied once, and the witness is views into the copy).
pub fn validate(bytes: &[u8], hasher: &impl Sha256Hasher) -> Standard {
    validate_bytes(&Bytes::copy_from_slice(bytes), hasher)
}

/// Validates the input bytes `bytes` without copying its witness ([`InputView`]): the guest's
/// entry, over the input it read.
pub fn validate_bytes(bytes: &Bytes, hasher: &impl Sha256Hasher) -> Standard {
    match InputView::decode(bytes) {
        Err(e) => Standard {
            result: StatelessValidationResult::UNDECODABLE,
            outcome: Err(StandardError::Decode(e)),
        },
        Ok(view) => {
            let witness = witness_in(bytes, &view.witness);
            let parts = Parts {
                fork: view.fork,
                request: &view.new_payload_request,
                chain_id: view.chain_id,
                public_keys: view.public_keys,
            };
            parts.validate(witness, hasher)
        }
    }
}

/// Validates a decoded, owned input.
pub fn validate_input(input: &StatelessInput, hasher: &impl Sha256Hasher) -> Standard {
    let parts = Parts {
        fork: input.fork,
        request: &input.new_payload_request,
        chain_id: input.chain_id,
        public_keys: &input.public_keys,
    };
    parts.validate(witness_of(input), hasher)
}

/// An input's fields besides its witness, owned or viewed.
struct Parts<'a> {
    fork: Fork,
    request: &'a NewPayloadRequest,
    chain_id: u64,
    public_keys: &'a [[u8; PUBLIC_KEY_BYTES]],
}

impl Parts<'_> {
    fn validate(&self, witness: ExecutionWitness, hasher: &impl Sha256Hasher) -> Standard {
        let outcome = self.check(witness);
        Standard {
            result: StatelessValidationResult {
                new_payload_request_root: self.request.hash_tree_root(hasher),
                successful_validation: outcome.is_ok(),
                chain_id: self.chain_id,
                schema_id: self.fork.schema_id(),
            },
            outcome,
        }
    }

    fn check(&self, witness: ExecutionWitness) -> Result<BlockOutput, StandardError> {
        let chain = rules::rules(self.chain_id, self.fork)
            .ok_or(StandardError::UnknownChain(self.chain_id))?;
        let block = payload::block_of(self.request).map_err(StandardError::Payload)?;
        // Validated as it stands: its RLP is never written, only its length counted.
        let rlp_len = alloy_rlp::Encodable::length(&block);
        let store = witness.store();
        let valid = validate_decoded(
            block,
            rlp_len,
            &witness.headers,
            &store,
            &chain,
            Signers::PublicKeys(self.public_keys),
        )
        .map_err(StandardError::Validation)?;
        let output = valid.output;
        crate::discard(valid);
        Ok(output)
    }
}
