//! The input bytes: `schema_id` (u16, big-endian) ‖ `SSZ(StatelessInput)` of that fork's
//! shape, decoded into one [`StatelessInput`] whatever the fork, and written back.

use alloc::vec::Vec;

use libssz::{DecodeError, SszDecode, SszEncode};
use libssz_merkle::{HashTreeRoot, Sha256Hasher};
use libssz_types::ProgressiveList;

use crate::schema::{Fork, Shape};
use crate::types::*;

/// A fork's `NewPayloadRequest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewPayloadRequest {
    /// Paris.
    V1(NewPayloadRequestV1),
    /// Shanghai.
    V2(NewPayloadRequestV2),
    /// Cancun.
    V3(NewPayloadRequestV3),
    /// Prague, Osaka, BPO1, BPO2.
    V4(NewPayloadRequestV4),
    /// Amsterdam.
    V5(NewPayloadRequestV5),
}

/// A decoded input of any fork.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatelessInput {
    /// The fork its schema id names (and its payload's shape).
    pub fork: Fork,
    /// The request, of the fork's shape.
    pub new_payload_request: NewPayloadRequest,
    /// The witness.
    pub witness: ExecutionWitness,
    /// The chain id.
    pub chain_id: u64,
    /// The signers' public keys, in payload order.
    pub public_keys: ProgressiveList<[u8; PUBLIC_KEY_BYTES]>,
}

/// Why input bytes are not a [`StatelessInput`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Fewer than the schema id's two bytes.
    #[error("the input is {0} bytes: shorter than its schema id")]
    Short(usize),
    /// A schema id this guest does not read.
    #[error("schema id {0:#06x} is not one this guest reads (Paris 0x0e01 to Amsterdam 0x1501)")]
    Schema(u16),
    /// The SSZ does not decode as the fork's `StatelessInput`.
    #[error("the {fork} StatelessInput does not decode: {why:?}")]
    Ssz {
        /// The schema's fork.
        fork: &'static str,
        /// libssz's reason.
        why: DecodeError,
    },
}

fn parts<R: SszEncode + SszDecode + HashTreeRoot>(
    fork: Fork,
    input: StatelessInputOf<R>,
    wrap: fn(R) -> NewPayloadRequest,
) -> StatelessInput {
    StatelessInput {
        fork,
        new_payload_request: wrap(input.new_payload_request),
        witness: input.witness,
        chain_id: input.chain_id,
        public_keys: input.public_keys,
    }
}

/// Decodes input bytes. Every limit of the types is checked (list lengths, byte-list sizes),
/// offsets must be in bounds and increasing, and nothing may follow the container.
pub fn decode_input(bytes: &[u8]) -> Result<StatelessInput, InputError> {
    let (id, ssz) = match bytes {
        [a, b, rest @ ..] => (u16::from_be_bytes([*a, *b]), rest),
        _ => return Err(InputError::Short(bytes.len())),
    };
    let fork = Fork::from_schema_id(id).ok_or(InputError::Schema(id))?;
    let err = |why| InputError::Ssz {
        fork: fork.name(),
        why,
    };
    Ok(match fork.shape() {
        Shape::Paris => parts(
            fork,
            StatelessInputOf::from_ssz_bytes(ssz).map_err(err)?,
            NewPayloadRequest::V1,
        ),
        Shape::Shanghai => parts(
            fork,
            StatelessInputOf::from_ssz_bytes(ssz).map_err(err)?,
            NewPayloadRequest::V2,
        ),
        Shape::Cancun => parts(
            fork,
            StatelessInputOf::from_ssz_bytes(ssz).map_err(err)?,
            NewPayloadRequest::V3,
        ),
        Shape::Prague => parts(
            fork,
            StatelessInputOf::from_ssz_bytes(ssz).map_err(err)?,
            NewPayloadRequest::V4,
        ),
        Shape::Amsterdam => parts(
            fork,
            StatelessInputOf::from_ssz_bytes(ssz).map_err(err)?,
            NewPayloadRequest::V5,
        ),
    })
}

fn with_id<R: SszEncode + SszDecode + HashTreeRoot + Clone>(
    fork: Fork,
    input: &StatelessInput,
    request: &R,
) -> Vec<u8> {
    // The host's path (the guest never encodes an input): a copy is simpler than a borrowed
    // twin of every container.
    let whole = StatelessInputOf {
        new_payload_request: request.clone(),
        witness: input.witness.clone(),
        chain_id: input.chain_id,
        public_keys: input.public_keys.clone(),
    };
    let mut out = Vec::with_capacity(2 + whole.encoded_len());
    out.extend_from_slice(&fork.schema_id().to_be_bytes());
    whole.ssz_append(&mut out);
    out
}

/// The input bytes of `input`, under its fork's schema id.
///
/// # Panics
/// When the request's shape is not its fork's ([`StatelessInput::shape_matches`]).
pub fn encode_input(input: &StatelessInput) -> Vec<u8> {
    assert!(
        input.shape_matches(),
        "a {} input with another fork's request",
        input.fork.name()
    );
    match &input.new_payload_request {
        NewPayloadRequest::V1(r) => with_id(input.fork, input, r),
        NewPayloadRequest::V2(r) => with_id(input.fork, input, r),
        NewPayloadRequest::V3(r) => with_id(input.fork, input, r),
        NewPayloadRequest::V4(r) => with_id(input.fork, input, r),
        NewPayloadRequest::V5(r) => with_id(input.fork, input, r),
    }
}

impl StatelessInput {
    /// Whether the request is of its fork's shape.
    pub fn shape_matches(&self) -> bool {
        matches!(
            (self.fork.shape(), &self.new_payload_request),
            (Shape::Paris, NewPayloadRequest::V1(_))
                | (Shape::Shanghai, NewPayloadRequest::V2(_))
                | (Shape::Cancun, NewPayloadRequest::V3(_))
                | (Shape::Prague, NewPayloadRequest::V4(_))
                | (Shape::Amsterdam, NewPayloadRequest::V5(_))
        )
    }

    /// `hash_tree_root(new_payload_request)`.
    pub fn request_root(&self, hasher: &impl Sha256Hasher) -> Bytes32 {
        self.new_payload_request.hash_tree_root(hasher)
    }
}

impl NewPayloadRequest {
    /// Decodes `SSZ(NewPayloadRequest)` of `shape` (the request alone, as the engine API's
    /// consumers hash it; no schema id).
    pub fn decode(shape: Shape, bytes: &[u8]) -> Result<Self, DecodeError> {
        Ok(match shape {
            Shape::Paris => NewPayloadRequest::V1(SszDecode::from_ssz_bytes(bytes)?),
            Shape::Shanghai => NewPayloadRequest::V2(SszDecode::from_ssz_bytes(bytes)?),
            Shape::Cancun => NewPayloadRequest::V3(SszDecode::from_ssz_bytes(bytes)?),
            Shape::Prague => NewPayloadRequest::V4(SszDecode::from_ssz_bytes(bytes)?),
            Shape::Amsterdam => NewPayloadRequest::V5(SszDecode::from_ssz_bytes(bytes)?),
        })
    }

    /// Its shape.
    pub fn shape(&self) -> Shape {
        match self {
            NewPayloadRequest::V1(_) => Shape::Paris,
            NewPayloadRequest::V2(_) => Shape::Shanghai,
            NewPayloadRequest::V3(_) => Shape::Cancun,
            NewPayloadRequest::V4(_) => Shape::Prague,
            NewPayloadRequest::V5(_) => Shape::Amsterdam,
        }
    }

    /// `SSZ(self)`.
    pub fn to_ssz(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            NewPayloadRequest::V1(r) => r.ssz_append(&mut out),
            NewPayloadRequest::V2(r) => r.ssz_append(&mut out),
            NewPayloadRequest::V3(r) => r.ssz_append(&mut out),
            NewPayloadRequest::V4(r) => r.ssz_append(&mut out),
            NewPayloadRequest::V5(r) => r.ssz_append(&mut out),
        }
        out
    }

    /// Its SSZ root.
    pub fn hash_tree_root(&self, hasher: &impl Sha256Hasher) -> Bytes32 {
        match self {
            NewPayloadRequest::V1(r) => r.hash_tree_root(hasher),
            NewPayloadRequest::V2(r) => r.hash_tree_root(hasher),
            NewPayloadRequest::V3(r) => r.hash_tree_root(hasher),
            NewPayloadRequest::V4(r) => r.hash_tree_root(hasher),
            NewPayloadRequest::V5(r) => r.hash_tree_root(hasher),
        }
    }

    /// The payload, as the fields every shape shares and the later shapes' own (`None` where
    /// the shape has none).
    pub fn payload(&self) -> Payload<'_> {
        macro_rules! common {
            ($p:expr, $withdrawals:expr, $blob:expr) => {
                common!($p, $withdrawals, $blob, None)
            };
            ($p:expr, $withdrawals:expr, $blob:expr, $amsterdam:expr) => {{
                let p = $p;
                Payload {
                    parent_hash: &p.parent_hash,
                    fee_recipient: &p.fee_recipient,
                    state_root: &p.state_root,
                    receipts_root: &p.receipts_root,
                    logs_bloom: &p.logs_bloom,
                    prev_randao: &p.prev_randao,
                    block_number: p.block_number,
                    gas_limit: p.gas_limit,
                    gas_used: p.gas_used,
                    timestamp: p.timestamp,
                    extra_data: &p.extra_data,
                    base_fee_per_gas: &p.base_fee_per_gas,
                    block_hash: &p.block_hash,
                    transactions: &p.transactions,
                    withdrawals: $withdrawals,
                    blob_gas: $blob,
                    amsterdam: $amsterdam,
                }
            }};
        }
        match self {
            NewPayloadRequest::V1(r) => common!(&r.execution_payload, None, None),
            NewPayloadRequest::V2(r) => {
                let p = &r.execution_payload;
                common!(p, Some(&p.withdrawals[..]), None)
            }
            NewPayloadRequest::V3(NewPayloadRequestV3 {
                execution_payload: p,
                ..
            })
            | NewPayloadRequest::V4(NewPayloadRequestV4 {
                execution_payload: p,
                ..
            }) => common!(
                p,
                Some(&p.withdrawals[..]),
                Some((p.blob_gas_used, p.excess_blob_gas))
            ),
            NewPayloadRequest::V5(r) => {
                let p = &r.execution_payload;
                common!(
                    p,
                    Some(&p.withdrawals[..]),
                    Some((p.blob_gas_used, p.excess_blob_gas)),
                    Some((&p.block_access_list[..], p.slot_number))
                )
            }
        }
    }

    /// Cancun on: the versioned hashes and the parent beacon block root.
    pub fn blob_context(&self) -> Option<(&[Bytes32], &Bytes32)> {
        match self {
            NewPayloadRequest::V1(_) | NewPayloadRequest::V2(_) => None,
            NewPayloadRequest::V3(r) => Some((&r.versioned_hashes, &r.parent_beacon_block_root)),
            NewPayloadRequest::V4(r) => Some((&r.versioned_hashes, &r.parent_beacon_block_root)),
            NewPayloadRequest::V5(r) => Some((&r.versioned_hashes, &r.parent_beacon_block_root)),
        }
    }

    /// Prague on: the execution requests (the builders' empty before Amsterdam).
    pub fn execution_requests(&self) -> Option<Requests<'_>> {
        match self {
            NewPayloadRequest::V4(r) => {
                let q = &r.execution_requests;
                Some(Requests {
                    deposits: &q.deposits,
                    withdrawals: &q.withdrawals,
                    consolidations: &q.consolidations,
                    builder_deposits: &[],
                    builder_exits: &[],
                })
            }
            NewPayloadRequest::V5(r) => {
                let q = &r.execution_requests;
                Some(Requests {
                    deposits: &q.deposits,
                    withdrawals: &q.withdrawals,
                    consolidations: &q.consolidations,
                    builder_deposits: &q.builder_deposits,
                    builder_exits: &q.builder_exits,
                })
            }
            _ => None,
        }
    }
}

/// A request's execution requests of any shape, by reference.
#[derive(Debug, Clone, Copy)]
pub struct Requests<'a> {
    /// EIP-6110 deposits.
    pub deposits: &'a [DepositRequest],
    /// EIP-7002 withdrawals.
    pub withdrawals: &'a [WithdrawalRequest],
    /// EIP-7251 consolidations.
    pub consolidations: &'a [ConsolidationRequest],
    /// EIP-8282 builder deposits (Amsterdam on).
    pub builder_deposits: &'a [BuilderDepositRequest],
    /// EIP-8282 builder exits (Amsterdam on).
    pub builder_exits: &'a [BuilderExitRequest],
}

/// A payload of any shape, by reference.
#[derive(Debug, Clone, Copy)]
pub struct Payload<'a> {
    /// `parent_hash`.
    pub parent_hash: &'a Bytes32,
    /// `fee_recipient`.
    pub fee_recipient: &'a Address,
    /// `state_root`.
    pub state_root: &'a Bytes32,
    /// `receipts_root`.
    pub receipts_root: &'a Bytes32,
    /// `logs_bloom`.
    pub logs_bloom: &'a [u8; 256],
    /// `prev_randao`.
    pub prev_randao: &'a Bytes32,
    /// `block_number`.
    pub block_number: u64,
    /// `gas_limit`.
    pub gas_limit: u64,
    /// `gas_used`.
    pub gas_used: u64,
    /// `timestamp`.
    pub timestamp: u64,
    /// `extra_data`.
    pub extra_data: &'a [u8],
    /// `base_fee_per_gas`, little-endian.
    pub base_fee_per_gas: &'a Bytes32,
    /// `block_hash`.
    pub block_hash: &'a Bytes32,
    /// `transactions`.
    pub transactions: &'a [ProgressiveByteList],
    /// Shanghai on: `withdrawals`.
    pub withdrawals: Option<&'a [Withdrawal]>,
    /// Cancun on: `(blob_gas_used, excess_blob_gas)`.
    pub blob_gas: Option<(u64, u64)>,
    /// Amsterdam on: `(block_access_list, slot_number)`, the list as its RLP bytes.
    pub amsterdam: Option<(&'a [u8], u64)>,
}
