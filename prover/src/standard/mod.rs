//! The standard stateless input (EIP-8025, [`stateless_ssz`]) of any block this host can load:
//! the engine API's `NewPayloadRequest` of the block's fork, the witness, the chain id, and the
//! signers' public keys.
//!
//! The request needs what the block produced as well as what it holds: its execution requests
//! (Prague on) come from validating it natively, and the public keys from recovering each
//! signature here, so the guest only verifies them. A block that is not valid has no requests
//! to give and no input is written for it.

use alloy_consensus::{Block, Transaction, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_hardforks::EthereumHardfork;
use libssz::SszDecode;
use program::standard::rules::hardfork;
use program::{ChainConfig, ExecutionWitness};
use stateless_ssz::*;

mod run;
pub use run::{result_of_public, run_standard, run_standard_within, StandardRun, StandardVmError};

/// Why a block has no standard input.
#[derive(Debug, thiserror::Error)]
pub enum StandardInputError {
    /// Its fork has no stateless schema.
    #[error(
        "the block is of fork {0}, which has no stateless input schema (Paris to Amsterdam have)"
    )]
    Fork(EthereumHardfork),
    /// The block does not validate natively (its requests are needed).
    #[error("the block does not validate: {0}")]
    Invalid(program::ValidationError),
    /// A witness item over the format's limit.
    #[error("the witness's {what} {index} is {len} bytes, over the format's {limit}")]
    TooLong {
        /// Which list.
        what: &'static str,
        /// Its index.
        index: usize,
        /// Its length.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// A request of the block is not its kind's SSZ container.
    #[error("request type {0:#04x}: {1}")]
    Request(u8, String),
    /// The block has what a payload of its fork cannot carry (a body without withdrawals from
    /// Shanghai on, or with them before): its standard input would be another block.
    #[error("the block is not representable as a {0} payload: {1}")]
    Unrepresentable(&'static str, &'static str),
    /// A signature recovers no public key.
    #[error("transaction {0}: no public key recovers from its signature")]
    Signature(usize),
}

/// The fork a schema id names for `fork`.
pub fn schema_fork(fork: EthereumHardfork) -> Option<Fork> {
    Fork::ALL.into_iter().find(|f| hardfork(*f) == fork)
}

fn list<const N: usize>(
    items: &[alloy_primitives::Bytes],
    what: &'static str,
) -> Result<Vec<ByteList<N>>, StandardInputError> {
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            item.to_vec()
                .try_into()
                .map_err(|_| StandardInputError::TooLong {
                    what,
                    index,
                    len: item.len(),
                    limit: N,
                })
        })
        .collect()
}

fn decode_all<T: SszDecode>(ty: u8, data: &[u8]) -> Result<Vec<T>, StandardInputError> {
    let size = T::fixed_size();
    if !data.len().is_multiple_of(size) {
        return Err(StandardInputError::Request(
            ty,
            format!("{} bytes, not a multiple of {size}", data.len()),
        ));
    }
    data.chunks(size)
        .map(|c| {
            T::from_ssz_bytes(c).map_err(|e| StandardInputError::Request(ty, format!("{e:?}")))
        })
        .collect()
}

/// The execution requests of `requests` (EIP-7685 type-prefixed request data), Amsterdam's
/// shape (the builders' kinds too).
pub fn execution_requests_v2(
    requests: &alloy_eips::eip7685::Requests,
) -> Result<ExecutionRequestsV2, StandardInputError> {
    let mut out = ExecutionRequestsV2::default();
    for request in requests.iter() {
        let (&ty, data) = request
            .split_first()
            .ok_or_else(|| StandardInputError::Request(0, "empty request".into()))?;
        match ty {
            0x00 => out.deposits = decode_all(ty, data)?.into(),
            0x01 => out.withdrawals = decode_all(ty, data)?.into(),
            0x02 => out.consolidations = decode_all(ty, data)?.into(),
            0x03 => out.builder_deposits = decode_all(ty, data)?.into(),
            0x04 => out.builder_exits = decode_all(ty, data)?.into(),
            _ => return Err(StandardInputError::Request(ty, "unknown type".into())),
        }
    }
    Ok(out)
}

/// The execution requests of `requests`, Prague's shape: a builder's request has no place in
/// it.
pub fn execution_requests(
    requests: &alloy_eips::eip7685::Requests,
) -> Result<ExecutionRequests, StandardInputError> {
    let all = execution_requests_v2(requests)?;
    for (ty, n) in [
        (0x03, all.builder_deposits.len()),
        (0x04, all.builder_exits.len()),
    ] {
        if n > 0 {
            return Err(StandardInputError::Request(
                ty,
                "a builder request before Amsterdam".into(),
            ));
        }
    }
    Ok(ExecutionRequests {
        deposits: all.deposits,
        withdrawals: all.withdrawals,
        consolidations: all.consolidations,
    })
}

/// The uncompressed public key (`0x04 ‖ x ‖ y`) that signed `tx`.
fn public_key(tx: &TxEnvelope) -> Option<[u8; 65]> {
    let signature = tx.signature();
    let hash = tx.signature_hash();
    let sig = k256::ecdsa::Signature::from_scalars(
        signature.r().to_be_bytes::<32>(),
        signature.s().to_be_bytes::<32>(),
    )
    .ok()?;
    let id = k256::ecdsa::RecoveryId::from_byte(u8::from(signature.v()))?;
    let key = k256::ecdsa::VerifyingKey::recover_from_prehash(&hash[..], &sig, id).ok()?;
    key.to_encoded_point(false).as_bytes().try_into().ok()
}

/// The standard input of `block_rlp` over `witness` under `chain`; the block must be valid
/// (its execution requests are part of the input).
pub fn stateless_input(
    block_rlp: &[u8],
    witness: &ExecutionWitness,
    chain: &ChainConfig,
) -> Result<StatelessInput, StandardInputError> {
    let store = witness.store();
    let valid = program::validate_block_over(block_rlp, &witness.headers, &store, chain)
        .map_err(StandardInputError::Invalid)?;
    // The guest's store hashes items in list order until a lookup finds its own: written in the
    // order validation first needs them, each lookup hashes about one item (as the block
    // guest's input does).
    let ordered = in_use_order(witness, &store.first_uses());
    let produced = Produced {
        requests: &valid.requests,
        access_list: valid.access_list.as_deref(),
    };
    stateless_input_with(block_rlp, &ordered, chain, produced, false)
}

/// What a block's execution produced that its request carries: the execution requests
/// (Prague on) and the block access list (Amsterdam on).
#[derive(Debug, Clone, Copy)]
pub struct Produced<'a> {
    /// The EIP-7685 requests.
    pub requests: &'a alloy_eips::eip7685::Requests,
    /// The EIP-7928 list; `None` before Amsterdam (or unknown, for a block that is not valid).
    pub access_list: Option<&'a [alloy_eips::eip7928::AccountChanges]>,
}

/// `witness` with its nodes and its codes each in the order of `first_uses` (positions in the
/// nodes followed by the codes), those never used after them in their order.
fn in_use_order(witness: &ExecutionWitness, first_uses: &[u32]) -> ExecutionWitness {
    let items: Vec<(&alloy_primitives::Bytes, bool)> = witness
        .state
        .iter()
        .map(|b| (b, false))
        .chain(witness.codes.iter().map(|b| (b, true)))
        .collect();
    let (codes, state): (Vec<_>, Vec<_>) = crate::native::in_use_order(&items, first_uses)
        .into_iter()
        .partition(|(_, code)| *code);
    let bytes = |items: Vec<(&alloy_primitives::Bytes, bool)>| {
        items.into_iter().map(|(b, _)| b.clone()).collect()
    };
    ExecutionWitness {
        state: bytes(state),
        codes: bytes(codes),
        headers: witness.headers.clone(),
    }
}

/// The standard input of `block_rlp` with what `produced` says its execution produced (any for
/// a block that is not valid). With `lenient`, a transaction whose signature recovers no key
/// gets 65 zero bytes (the input of an invalid block, which must validate `false`), instead of
/// an error.
pub fn stateless_input_with(
    block_rlp: &[u8],
    witness: &ExecutionWitness,
    chain: &ChainConfig,
    produced: Produced<'_>,
    lenient: bool,
) -> Result<StatelessInput, StandardInputError> {
    let requests = produced.requests;
    let block: Block<TxEnvelope> =
        program::decode_block(block_rlp).map_err(StandardInputError::Invalid)?;
    let h = &block.header;
    let fork_of = chain.fork_at(h.number, h.timestamp);
    let fork = schema_fork(fork_of).ok_or(StandardInputError::Fork(fork_of))?;
    match (fork.shape(), &block.body.withdrawals) {
        (Shape::Paris, Some(_)) => {
            return Err(StandardInputError::Unrepresentable(
                fork.name(),
                "withdrawals present",
            ))
        }
        (Shape::Shanghai | Shape::Cancun | Shape::Prague | Shape::Amsterdam, None) => {
            return Err(StandardInputError::Unrepresentable(
                fork.name(),
                "withdrawals absent",
            ))
        }
        _ => {}
    }
    let transactions: Vec<ProgressiveByteList> = block
        .body
        .transactions
        .iter()
        .map(|tx| tx.encoded_2718().into())
        .collect();
    let withdrawals: Vec<Withdrawal> = block
        .body
        .withdrawals
        .iter()
        .flatten()
        .map(|w| Withdrawal {
            index: w.index,
            validator_index: w.validator_index,
            address: w.address.0 .0,
            amount: w.amount,
        })
        .collect();
    let mut base_fee = [0u8; 32];
    base_fee[..8].copy_from_slice(&h.base_fee_per_gas.unwrap_or_default().to_le_bytes());
    // One payload of the fork's shape: the fields every shape has, then the shape's own.
    macro_rules! payload {
        ($ty:ident { $($own:tt)* }) => {
            $ty {
                parent_hash: h.parent_hash.0,
                fee_recipient: h.beneficiary.0 .0,
                state_root: h.state_root.0,
                receipts_root: h.receipts_root.0,
                logs_bloom: h.logs_bloom.0 .0,
                prev_randao: h.mix_hash.0,
                block_number: h.number,
                gas_limit: h.gas_limit,
                gas_used: h.gas_used,
                timestamp: h.timestamp,
                extra_data: h.extra_data.to_vec().try_into().unwrap_or_default(),
                base_fee_per_gas: base_fee,
                block_hash: program::validate::header_hash(h).0,
                transactions: transactions.into(),
                $($own)*
            }
        };
    }
    macro_rules! v3 {
        () => {
            payload!(ExecutionPayloadV3 {
                withdrawals: withdrawals.into(),
                blob_gas_used: h.blob_gas_used.unwrap_or_default(),
                excess_blob_gas: h.excess_blob_gas.unwrap_or_default(),
            })
        };
    }
    let versioned_hashes: Vec<Bytes32> = block
        .body
        .transactions
        .iter()
        .filter_map(|tx| tx.blob_versioned_hashes())
        .flatten()
        .map(|h| h.0)
        .collect();
    let beacon = h.parent_beacon_block_root.unwrap_or_default().0;
    let new_payload_request = match fork.shape() {
        Shape::Paris => NewPayloadRequest::V1(NewPayloadRequestV1 {
            execution_payload: payload!(ExecutionPayloadV1 {}),
        }),
        Shape::Shanghai => NewPayloadRequest::V2(NewPayloadRequestV2 {
            execution_payload: payload!(ExecutionPayloadV2 {
                withdrawals: withdrawals.into(),
            }),
        }),
        Shape::Cancun => NewPayloadRequest::V3(NewPayloadRequestV3 {
            execution_payload: v3!(),
            versioned_hashes: versioned_hashes.into(),
            parent_beacon_block_root: beacon,
        }),
        Shape::Prague => NewPayloadRequest::V4(NewPayloadRequestV4 {
            execution_payload: v3!(),
            versioned_hashes: versioned_hashes.into(),
            parent_beacon_block_root: beacon,
            execution_requests: execution_requests(requests)?,
        }),
        Shape::Amsterdam => {
            let list = produced
                .access_list
                .ok_or(StandardInputError::Unrepresentable(
                    fork.name(),
                    "no block access list",
                ))?;
            let mut rlp = Vec::new();
            alloy_rlp::encode_list(list, &mut rlp);
            NewPayloadRequest::V5(NewPayloadRequestV5 {
                execution_payload: payload!(ExecutionPayloadV4 {
                    withdrawals: withdrawals.into(),
                    blob_gas_used: h.blob_gas_used.unwrap_or_default(),
                    excess_blob_gas: h.excess_blob_gas.unwrap_or_default(),
                    block_access_list: rlp.into(),
                    slot_number: h.slot_number.unwrap_or_default(),
                }),
                versioned_hashes: versioned_hashes.into(),
                parent_beacon_block_root: beacon,
                execution_requests: execution_requests_v2(requests)?,
            })
        }
    };
    let public_keys = block
        .body
        .transactions
        .iter()
        .enumerate()
        .map(|(i, tx)| match public_key(tx) {
            Some(key) => Ok(key),
            None if lenient => Ok([0u8; 65]),
            None => Err(StandardInputError::Signature(i)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(StatelessInput {
        fork,
        new_payload_request,
        witness: stateless_ssz::ExecutionWitness {
            state: list(&witness.state, "trie node")?.into(),
            codes: list(&witness.codes, "bytecode")?.into(),
            headers: list(&witness.headers, "header")?.try_into().map_err(|_| {
                StandardInputError::TooLong {
                    what: "header list",
                    index: 0,
                    len: witness.headers.len(),
                    limit: MAX_WITNESS_HEADERS,
                }
            })?,
        },
        chain_id: chain.chain_id,
        public_keys: public_keys.into(),
    })
}

/// `input` with its witness's trie nodes and its codes each shuffled (Fisher–Yates under
/// splitmix64 from `seed`): an input in another producer's order, whose first node is not the
/// pre-state root. The standard guest must give it the same result, only dearer.
pub fn shuffled(input: &StatelessInput, seed: u64) -> StatelessInput {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    // Positions first, then each list in them: one closure for lists of two item types.
    let mut order = |len: usize| {
        let mut at: Vec<usize> = (0..len).collect();
        for k in (1..len).rev() {
            at.swap(k, (next() % (k as u64 + 1)) as usize);
        }
        at
    };
    fn shuffle<T: Clone>(items: &mut Vec<T>, at: Vec<usize>) {
        *items = at.into_iter().map(|k| items[k].clone()).collect();
    }
    let mut out = input.clone();
    let mut state_items: Vec<_> = input.witness.state.iter().cloned().collect();
    let mut codes: Vec<_> = input.witness.codes.iter().cloned().collect();
    let (state_order, code_order) = (order(state_items.len()), order(codes.len()));
    shuffle(&mut state_items, state_order);
    shuffle(&mut codes, code_order);
    out.witness.state = state_items.into();
    out.witness.codes = codes.into();
    out
}
