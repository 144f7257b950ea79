//! Random inputs from a seeded generator, shared by the SSZ test binaries (each uses some).
#![allow(dead_code)]

use libssz_types::ProgressiveList;
use rand::{rngs::SmallRng, Rng};
use stateless_ssz::*;

pub fn bytes<const N: usize>(rng: &mut SmallRng) -> [u8; N] {
    let mut out = [0u8; N];
    rng.fill(&mut out[..]);
    out
}

pub fn blob(rng: &mut SmallRng, max: usize) -> Vec<u8> {
    (0..rng.random_range(0..=max))
        .map(|_| rng.random())
        .collect()
}

/// A payload of `txs` transactions of at most `tx_max` bytes and `withdrawals` withdrawals.
pub fn payload(
    rng: &mut SmallRng,
    txs: usize,
    tx_max: usize,
    withdrawals: usize,
) -> ExecutionPayloadV3 {
    ExecutionPayloadV3 {
        parent_hash: bytes(rng),
        fee_recipient: bytes(rng),
        state_root: bytes(rng),
        receipts_root: bytes(rng),
        logs_bloom: bytes(rng),
        prev_randao: bytes(rng),
        block_number: rng.random(),
        gas_limit: rng.random(),
        gas_used: rng.random(),
        timestamp: rng.random(),
        extra_data: blob(rng, 32).try_into().unwrap(),
        base_fee_per_gas: bytes(rng),
        block_hash: bytes(rng),
        transactions: (0..txs)
            .map(|_| blob(rng, tx_max).into())
            .collect::<Vec<_>>()
            .into(),
        withdrawals: (0..withdrawals)
            .map(|_| Withdrawal {
                index: rng.random(),
                validator_index: rng.random(),
                address: bytes(rng),
                amount: rng.random(),
            })
            .collect::<Vec<_>>()
            .into(),
        blob_gas_used: rng.random(),
        excess_blob_gas: rng.random(),
    }
}

pub fn witness(rng: &mut SmallRng) -> ExecutionWitness {
    ExecutionWitness {
        state: (0..4)
            .map(|_| blob(rng, 532).try_into().unwrap())
            .collect::<Vec<_>>()
            .into(),
        codes: (0..2)
            .map(|_| blob(rng, 3000).try_into().unwrap())
            .collect::<Vec<_>>()
            .into(),
        headers: (0..2)
            .map(|_| blob(rng, 600).try_into().unwrap())
            .collect::<Vec<_>>()
            .try_into()
            .unwrap(),
    }
}

pub fn input(rng: &mut SmallRng, fork: Fork) -> StatelessInput {
    let p = payload(rng, 3, 200, 2);
    let v2 = |p: ExecutionPayloadV3| ExecutionPayloadV2 {
        parent_hash: p.parent_hash,
        fee_recipient: p.fee_recipient,
        state_root: p.state_root,
        receipts_root: p.receipts_root,
        logs_bloom: p.logs_bloom,
        prev_randao: p.prev_randao,
        block_number: p.block_number,
        gas_limit: p.gas_limit,
        gas_used: p.gas_used,
        timestamp: p.timestamp,
        extra_data: p.extra_data,
        base_fee_per_gas: p.base_fee_per_gas,
        block_hash: p.block_hash,
        transactions: p.transactions,
        withdrawals: p.withdrawals,
    };
    let hashes: ProgressiveList<[u8; 32]> = (0..2).map(|_| bytes(rng)).collect::<Vec<_>>().into();
    let beacon = bytes(rng);
    let request = match fork {
        Fork::Paris => {
            let p = v2(p);
            NewPayloadRequest::V1(NewPayloadRequestV1 {
                execution_payload: ExecutionPayloadV1 {
                    parent_hash: p.parent_hash,
                    fee_recipient: p.fee_recipient,
                    state_root: p.state_root,
                    receipts_root: p.receipts_root,
                    logs_bloom: p.logs_bloom,
                    prev_randao: p.prev_randao,
                    block_number: p.block_number,
                    gas_limit: p.gas_limit,
                    gas_used: p.gas_used,
                    timestamp: p.timestamp,
                    extra_data: p.extra_data,
                    base_fee_per_gas: p.base_fee_per_gas,
                    block_hash: p.block_hash,
                    transactions: p.transactions,
                },
            })
        }
        Fork::Shanghai => NewPayloadRequest::V2(NewPayloadRequestV2 {
            execution_payload: v2(p),
        }),
        Fork::Cancun => NewPayloadRequest::V3(NewPayloadRequestV3 {
            execution_payload: p,
            versioned_hashes: hashes,
            parent_beacon_block_root: beacon,
        }),
        Fork::Amsterdam => NewPayloadRequest::V5(NewPayloadRequestV5 {
            execution_payload: ExecutionPayloadV4 {
                parent_hash: p.parent_hash,
                fee_recipient: p.fee_recipient,
                state_root: p.state_root,
                receipts_root: p.receipts_root,
                logs_bloom: p.logs_bloom,
                prev_randao: p.prev_randao,
                block_number: p.block_number,
                gas_limit: p.gas_limit,
                gas_used: p.gas_used,
                timestamp: p.timestamp,
                extra_data: p.extra_data,
                base_fee_per_gas: p.base_fee_per_gas,
                block_hash: p.block_hash,
                transactions: p.transactions,
                withdrawals: p.withdrawals,
                blob_gas_used: p.blob_gas_used,
                excess_blob_gas: p.excess_blob_gas,
                block_access_list: blob(rng, 400).into(),
                slot_number: rng.random(),
            },
            versioned_hashes: hashes,
            parent_beacon_block_root: beacon,
            execution_requests: ExecutionRequestsV2 {
                deposits: Default::default(),
                withdrawals: Default::default(),
                consolidations: Default::default(),
                builder_deposits: vec![BuilderDepositRequest {
                    pubkey: bytes(rng),
                    withdrawal_credentials: bytes(rng),
                    amount: rng.random(),
                    signature: bytes(rng),
                }]
                .into(),
                builder_exits: vec![BuilderExitRequest {
                    source_address: bytes(rng),
                    pubkey: bytes(rng),
                }]
                .into(),
            },
        }),
        _ => NewPayloadRequest::V4(NewPayloadRequestV4 {
            execution_payload: p,
            versioned_hashes: hashes,
            parent_beacon_block_root: beacon,
            execution_requests: ExecutionRequests {
                deposits: Default::default(),
                withdrawals: vec![WithdrawalRequest {
                    source_address: bytes(rng),
                    validator_pubkey: bytes(rng),
                    amount: rng.random(),
                }]
                .into(),
                consolidations: Default::default(),
            },
        }),
    };
    StatelessInput {
        fork,
        new_payload_request: request,
        witness: witness(rng),
        chain_id: rng.random(),
        public_keys: (0..3).map(|_| bytes(rng)).collect::<Vec<_>>().into(),
    }
}
