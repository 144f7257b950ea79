//! A `NewPayloadRequest` made a block, as an execution client's `engine_newPayload` does: the
//! header rebuilt from the payload's fields (the roots of its transactions and withdrawals, the
//! hash of its execution requests, the parent beacon root, from Amsterdam the hash of its block
//! access list and its slot number), its hash checked against the
//! payload's `block_hash`, and the blob transactions' versioned hashes against the request's.
//! What passes is validated as any block; what fails here is an invalid payload.

use alloc::vec::Vec;

use alloy_consensus::{
    proofs, Block, BlockBody, Header, Transaction, TxEnvelope, EMPTY_OMMER_ROOT_HASH,
};
use alloy_eips::eip2718::Decodable2718;
use alloy_eips::eip4895::{Withdrawal, Withdrawals};
use alloy_eips::eip7685::Requests;
use alloy_primitives::{Address, Bloom, Bytes, B256, B64, U256};
use libssz::SszEncode;
use stateless_ssz::NewPayloadRequest;

use crate::validate::header_hash;

/// Why a payload is not a block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    /// A transaction is not one EIP-2718 encoding.
    #[error("payload transaction {index} does not decode: {reason}")]
    Transaction {
        /// Its index.
        index: usize,
        /// The decoder's reason.
        reason: alloc::string::String,
    },
    /// `base_fee_per_gas` over 64 bits.
    #[error("payload base fee {0} does not fit 64 bits")]
    BaseFee(U256),
    /// The rebuilt header does not hash to the payload's `block_hash`.
    #[error("payload block hash {claimed} is not its header's hash {computed}")]
    BlockHash {
        /// The payload's.
        claimed: B256,
        /// The rebuilt header's.
        computed: B256,
    },
    /// The request's versioned hashes are not the blob transactions' own, in order.
    #[error("the request's {given} versioned hashes are not the blob transactions' {found}")]
    VersionedHashes {
        /// How many the request lists.
        given: usize,
        /// How many the transactions carry.
        found: usize,
    },
}

/// The EIP-7685 requests of `requests`: each non-empty kind, its type byte then its requests'
/// SSZ encodings (the request data the system contracts emit), in type order: EIP-6110
/// deposits, EIP-7002 withdrawals, EIP-7251 consolidations, and from Amsterdam EIP-8282's
/// builder deposits (184 bytes each) and exits (68 bytes each).
pub fn requests(requests: &stateless_ssz::Requests<'_>) -> Requests {
    fn kind<T: SszEncode>(out: &mut Requests, ty: u8, items: &[T]) {
        if !items.is_empty() {
            let mut data = Vec::with_capacity(1 + items.len() * T::fixed_size());
            data.push(ty);
            for item in items {
                item.ssz_append(&mut data);
            }
            out.push_request(Bytes::from(data));
        }
    }
    let mut out = Requests::default();
    kind(&mut out, 0x00, requests.deposits);
    kind(&mut out, 0x01, requests.withdrawals);
    kind(&mut out, 0x02, requests.consolidations);
    kind(&mut out, 0x03, requests.builder_deposits);
    kind(&mut out, 0x04, requests.builder_exits);
    out
}

/// The block `request` describes, its hash checked.
pub fn block_of(request: &NewPayloadRequest) -> Result<Block<TxEnvelope>, PayloadError> {
    let p = request.payload();
    let transactions = p
        .transactions
        .iter()
        .enumerate()
        .map(|(index, tx)| {
            TxEnvelope::decode_2718_exact(tx).map_err(|e| PayloadError::Transaction {
                index,
                reason: alloc::format!("{e}"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let withdrawals = p.withdrawals.map(|ws| {
        Withdrawals::new(
            ws.iter()
                .map(|w| Withdrawal {
                    index: w.index,
                    validator_index: w.validator_index,
                    address: Address::from(w.address),
                    amount: w.amount,
                })
                .collect(),
        )
    });
    let base_fee = U256::from_le_bytes(*p.base_fee_per_gas);
    let base_fee_per_gas = u64::try_from(base_fee).map_err(|_| PayloadError::BaseFee(base_fee))?;
    let blob = request.blob_context();
    if let Some((hashes, _)) = blob {
        let found: Vec<B256> = transactions
            .iter()
            .filter_map(|tx| tx.blob_versioned_hashes())
            .flatten()
            .copied()
            .collect();
        if found.len() != hashes.len() || found.iter().zip(hashes).any(|(f, h)| f.0 != *h) {
            return Err(PayloadError::VersionedHashes {
                given: hashes.len(),
                found: found.len(),
            });
        }
    }
    let header = Header {
        parent_hash: B256::from(*p.parent_hash),
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        beneficiary: Address::from(*p.fee_recipient),
        state_root: B256::from(*p.state_root),
        transactions_root: proofs::calculate_transaction_root(&transactions),
        receipts_root: B256::from(*p.receipts_root),
        logs_bloom: Bloom::from(*p.logs_bloom),
        difficulty: U256::ZERO,
        number: p.block_number,
        gas_limit: p.gas_limit,
        gas_used: p.gas_used,
        timestamp: p.timestamp,
        extra_data: Bytes::copy_from_slice(p.extra_data),
        mix_hash: B256::from(*p.prev_randao),
        nonce: B64::ZERO,
        base_fee_per_gas: Some(base_fee_per_gas),
        withdrawals_root: withdrawals
            .as_ref()
            .map(|w| proofs::calculate_withdrawals_root(w)),
        blob_gas_used: p.blob_gas.map(|(used, _)| used),
        excess_blob_gas: p.blob_gas.map(|(_, excess)| excess),
        parent_beacon_block_root: blob.map(|(_, root)| B256::from(*root)),
        requests_hash: request
            .execution_requests()
            .map(|r| requests(&r).requests_hash()),
        // Amsterdam: the header commits to the list by the keccak of its RLP, the bytes the
        // payload carries; validation checks execution builds exactly that list.
        block_access_list_hash: p.amsterdam.map(|(list, _)| mpt::keccak256(list)),
        slot_number: p.amsterdam.map(|(_, slot)| slot),
    };
    let computed = header_hash(&header);
    let claimed = B256::from(*p.block_hash);
    if computed != claimed {
        return Err(PayloadError::BlockHash { claimed, computed });
    }
    Ok(Block {
        header,
        body: BlockBody {
            transactions,
            ommers: Vec::new(),
            withdrawals,
        },
    })
}
