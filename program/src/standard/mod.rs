//! The standard entry (EIP-8025): validate a block given as the execution specs' stateless
//! input bytes ([`stateless_ssz`]) and say so in their 43-byte result.
//!
//! 1. Read the bytes once, front to back ([`stream`]): the request first, then the witness's
//!    items as validation needs them, each put where it stays, then the headers and the keys.
//!    Bytes that do not decode, wherever the fault, give
//!    [`StatelessValidationResult::UNDECODABLE`] (43 zero bytes): there is no request to name.
//! 2. The result names `hash_tree_root(new_payload_request)`, the chain id and the schema id
//!    from here on, whatever the verdict.
//! 3. The rules are the schema's fork on the chain the id names ([`rules`]); an unknown chain
//!    has none, and the result is `false`.
//! 4. The request becomes a block as `engine_newPayload` makes one ([`payload`]): header
//!    rebuilt, block hash and versioned hashes checked. The block is validated as decoded,
//!    never encoded to RLP to be decoded again.
//! 5. The block is validated by the same library as the block guest's, over the input's
//!    witness, in the order the input arrives ([`deferred`]): each sender recovered, the
//!    checks that need the headers and the given public keys (each key byte for byte the one
//!    its signature recovers) made at the end, before any verdict.
//!
//! The result is `true` only when all of it passes. Invalid and insufficient witness data
//! both give `false` (the format has no third answer); [`Standard::error`] keeps the finer
//! verdict for the host.

pub mod deferred;
pub mod payload;
pub mod rules;
pub mod stream;

use alloc::vec::Vec;
use alloy_primitives::Bytes;
use stateless_ssz::{
    Fork, InMemory, InputError, NewPayloadRequest, Sha256Hasher, Source, StatelessInput,
    StatelessValidationResult,
};

use crate::validate::{check_no_sidecars, BlockOutput};
use crate::witness::ExecutionWitness;
use crate::{ValidationError, Verdict};
pub use payload::PayloadError;
use stream::Stream;

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

/// Validates the input bytes `bytes`, merkleizing with `hasher`: the host's entry, the same
/// reading of the same bytes as the guest's ([`validate_source`] over a copy in memory).
pub fn validate(bytes: &[u8], hasher: &impl Sha256Hasher) -> Standard {
    validate_source(
        InMemory::new(Bytes::copy_from_slice(bytes)),
        bytes.len(),
        hasher,
    )
}

/// Validates a decoded, owned input (encoded, then read as the guest reads it).
pub fn validate_input(input: &StatelessInput, hasher: &impl Sha256Hasher) -> Standard {
    validate(&stateless_ssz::encode_input(input), hasher)
}

/// Validates the `len` input bytes `source` gives, read once, front to back, each part where
/// and when validation needs it ([`stream`], [`deferred`]): the guest's entry, over its hint
/// stream.
pub fn validate_source<S: Source + 'static>(
    source: S,
    len: usize,
    hasher: &impl Sha256Hasher,
) -> Standard {
    let opened = match Stream::open(source, len) {
        Ok(opened) => opened,
        Err(e) => return Standard::undecodable(e),
    };
    let stream = opened.stream;
    let result = StatelessValidationResult {
        new_payload_request_root: opened.request.hash_tree_root(hasher),
        successful_validation: false,
        chain_id: opened.chain_id,
        schema_id: opened.fork.schema_id(),
    };
    let outcome = check(&opened.request, opened.chain_id, opened.fork, &stream);
    // Whatever the outcome, the input must decode to its last byte: a fault anywhere makes it
    // no input at all, as when it was decoded whole first.
    if let Err(e) = stream.tail() {
        return Standard::undecodable(e);
    }
    Standard {
        result: StatelessValidationResult {
            successful_validation: outcome.is_ok(),
            ..result
        },
        outcome,
    }
}

impl Standard {
    fn undecodable(e: InputError) -> Self {
        Standard {
            result: StatelessValidationResult::UNDECODABLE,
            outcome: Err(StandardError::Decode(e)),
        }
    }
}

/// The rules, the block, and the block validated over the stream's witness.
fn check<S: Source + 'static>(
    request: &NewPayloadRequest,
    chain_id: u64,
    fork: Fork,
    stream: &Stream<S>,
) -> Result<BlockOutput, StandardError> {
    let chain = rules::rules(chain_id, fork).ok_or(StandardError::UnknownChain(chain_id))?;
    let block = payload::block_of(request).map_err(StandardError::Payload)?;
    // Validated as it stands: its RLP is never written, only its length counted.
    let rlp_len = alloy_rlp::Encodable::length(&block);
    chain
        .check()
        .map_err(|e| StandardError::Validation(ValidationError::Chain(e)))?;
    // Built from a payload, the block has not been through `decode_block`'s check.
    check_no_sidecars(&block).map_err(StandardError::Validation)?;
    let store = stream.store();
    let output = deferred::validate_streamed(&block, rlp_len, stream, &store, &chain);
    crate::discard(block);
    output
}
