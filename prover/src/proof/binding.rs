//! What a standard proof is about, and whether it is what its caller asked.
//!
//! A sound proof of the standard guest says: under the rules of the fork its `schema_id` names,
//! on chain `chain_id`, the request whose SSZ root is `new_payload_request_root` is valid (or
//! not). The guest takes the schema id from its input, and Prague, Osaka, BPO1 and BPO2 share
//! one payload shape: one request root can be proved `true` under Prague's rules (no EIP-7825
//! gas cap, say) and `false` under Osaka's. So `successful_validation` alone proves nothing
//! about a block: the verdict stands only for the request the caller names, under the fork
//! that the chain's own schedule gives at that payload's timestamp.
//!
//! [`Expected`] is what the caller names: a request (a stateless input or a bare
//! `NewPayloadRequest`'s SSZ, whose fork comes from the chain's schedule), or a fork and a root
//! given outright. [`judge`] compares a proved result with it and gives one [`Binding`].

use program::ChainConfig;
use stateless_ssz::{
    decode_input, Bytes32, Fork, NewPayloadRequest, Sha2Hasher, Shape, StatelessValidationResult,
};

use crate::standard::schema_fork;

/// The request and fork a caller expects a standard proof to be about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The fork whose rules must have been applied (its schema id).
    pub fork: Fork,
    /// `hash_tree_root(NewPayloadRequest)`.
    pub request_root: Bytes32,
}

/// Why a request file names no expectation.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RequestError {
    /// Neither a stateless input nor a `NewPayloadRequest` of any shape.
    #[error("neither a stateless input nor a NewPayloadRequest's SSZ of any fork's shape")]
    Undecodable,
    /// The payload's block falls under a fork without a stateless schema on this chain.
    #[error("on this chain, block {number} at timestamp {timestamp} is under {fork}, which has no stateless schema")]
    NoSchema {
        /// The payload's block number.
        number: u64,
        /// Its timestamp.
        timestamp: u64,
        /// The fork the chain's schedule gives.
        fork: String,
    },
    /// A bare request's shape is not that of the fork the schedule gives at its timestamp.
    #[error(
        "the request is of the {shape:?} shape, but this chain is under {fork} at its timestamp"
    )]
    Shape {
        /// The request's shape.
        shape: Shape,
        /// The schedule's fork.
        fork: &'static str,
    },
}

impl Expected {
    /// The expectation of a request file: a stateless input (`schema_id ‖ SSZ`; the schema id
    /// it carries is the prover's claim and not trusted) or a bare `NewPayloadRequest`'s SSZ.
    /// The fork is the one `chain`'s schedule gives at the payload's block and timestamp.
    pub fn of_request(bytes: &[u8], chain: &ChainConfig) -> Result<Self, RequestError> {
        if let Ok(input) = decode_input(bytes) {
            return Self::of(&input.new_payload_request, chain, false);
        }
        // A bare request: the first shape that decodes as the schedule's fork's.
        let mut error = RequestError::Undecodable;
        for shape in [
            Shape::Amsterdam,
            Shape::Prague,
            Shape::Cancun,
            Shape::Shanghai,
            Shape::Paris,
        ] {
            if let Ok(request) = NewPayloadRequest::decode(shape, bytes) {
                match Self::of(&request, chain, true) {
                    Ok(expected) => return Ok(expected),
                    Err(e) => error = e,
                }
            }
        }
        Err(error)
    }

    fn of(
        request: &NewPayloadRequest,
        chain: &ChainConfig,
        check_shape: bool,
    ) -> Result<Self, RequestError> {
        let payload = request.payload();
        let (number, timestamp) = (payload.block_number, payload.timestamp);
        let scheduled = chain.fork_at(number, timestamp);
        let fork = schema_fork(scheduled).ok_or_else(|| RequestError::NoSchema {
            number,
            timestamp,
            fork: scheduled.to_string(),
        })?;
        if check_shape && fork.shape() != request.shape() {
            return Err(RequestError::Shape {
                shape: request.shape(),
                fork: fork.name(),
            });
        }
        Ok(Self {
            fork,
            request_root: request.hash_tree_root(&Sha2Hasher),
        })
    }
}

/// What a sound standard proof's result is, against the caller's chain and expectation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    /// The expected request is valid under the expected fork on the expected chain.
    Valid,
    /// The expected request is not valid (or did not decode) under the expected fork.
    Invalid,
    /// The result names another chain.
    OtherChain {
        /// The proof's chain id.
        proved: u64,
        /// The caller's.
        expected: u64,
    },
    /// The result is about another request, or under another fork's rules.
    OtherRequest {
        /// What differs, for the user.
        what: String,
    },
    /// No expectation was given: the result is what the proof says, about a request nobody
    /// named.
    Unchecked,
}

impl Binding {
    /// `host verify`'s exit status: 0 valid, 4 invalid (proved), 2 another chain, 6 another
    /// request or fork, 5 not checked against a request (1 and 3, a proof that does not verify
    /// and one of another program, come before a result exists).
    pub fn exit_code(&self) -> u8 {
        match self {
            Binding::Valid => 0,
            Binding::Invalid => 4,
            Binding::OtherChain { .. } => 2,
            Binding::OtherRequest { .. } => 6,
            Binding::Unchecked => 5,
        }
    }

    /// A one-word name, as the JSON output carries it.
    pub fn name(&self) -> &'static str {
        match self {
            Binding::Valid => "valid",
            Binding::Invalid => "invalid",
            Binding::OtherChain { .. } => "other_chain",
            Binding::OtherRequest { .. } => "other_request",
            Binding::Unchecked => "unchecked",
        }
    }
}

/// The schema name of a result's `schema_id`.
pub fn schema_name(schema_id: u16) -> &'static str {
    Fork::from_schema_id(schema_id).map_or("none", Fork::name)
}

/// Judges a proved `result` against the chain id `chain_id` and the caller's `expected`.
pub fn judge(
    result: &StatelessValidationResult,
    chain_id: u64,
    expected: Option<&Expected>,
) -> Binding {
    let Some(expected) = expected else {
        return Binding::Unchecked;
    };
    if result.new_payload_request_root != expected.request_root {
        return Binding::OtherRequest {
            what: format!(
                "the proof is about request root 0x{}, not the expected 0x{}",
                alloy_primitives::hex::encode(result.new_payload_request_root),
                alloy_primitives::hex::encode(expected.request_root)
            ),
        };
    }
    if result.schema_id != expected.fork.schema_id() {
        return Binding::OtherRequest {
            what: format!(
                "the proof applied schema {:#06x} ({}), not {:#06x} ({}), the fork the chain's schedule gives",
                result.schema_id,
                schema_name(result.schema_id),
                expected.fork.schema_id(),
                expected.fork.name()
            ),
        };
    }
    if result.chain_id != chain_id {
        return Binding::OtherChain {
            proved: result.chain_id,
            expected: chain_id,
        };
    }
    if result.successful_validation {
        Binding::Valid
    } else {
        Binding::Invalid
    }
}
