//! The native reference a standard input's result is held to: what
//! `program::standard::validate` must answer, reached another way.
//!
//! Shared by the mutation test (`tests/tests/standard_io/mutation.rs`, which includes this file)
//! and the fuzz target `standard_input`, so the rule the fuzzer checks is the one CI checks.
//!
//! The definition: the input decodes with `stateless_ssz::decode_input` (the owned decoder
//! `libssz` derives) or the result is the 43 zero bytes; otherwise the result names the
//! request's root, the chain id and the schema id, and it is `true` exactly when
//! 1. the chain id is one the guest knows, and the rules are the schema's fork on it;
//! 2. the request is a block as `engine_newPayload` makes one, rebuilt here from the payload's
//!    fields: transactions decode as EIP-2718, base fee within 64 bits, the blob transactions'
//!    versioned hashes are the request's, in order, and the header hashes (alloy's
//!    `Header::hash_slow`) to the payload's `block_hash`;
//! 3. one public key per transaction, each byte for byte the uncompressed key that k256
//!    recovers from its signature (low `s`, EIP-2), and the addresses of those keys are the
//!    senders `program::body::recover_senders` recovers;
//! 4. the block, written as RLP, validates through the block guest's entry
//!    (`program::validate_block`: RLP decoding, senders recovered from the signatures) over
//!    the decoded witness.
//!
//! Why it is independent of what it checks: the standard entry decodes with its own walk of
//! the containers (`InputView`, the witness left in the input's bytes), rebuilds the header in
//! `program::standard::payload` and hashes it with the project's keccak sponge, hashes the
//! requests from `libssz`'s encodings, checks each key with `program::body::verify_senders`
//! (prefix, `s`, and on the chips one verification instead of a recovery), and validates the
//! block as built, never as RLP, with the given keys as senders. None of those is on the path
//! above: here the requests are serialized by hand, the header hashed by alloy, the keys
//! recovered by k256 and compared whole, and the block validated as the block guest reads it.
//! What both paths share is the validator behind the block (header rules against the parent,
//! execution, the trie) and the rules table of each chain (`program::standard::rules`, the
//! definition of which rules a schema means): a bug there is not one this reference can see.

use alloy_consensus::{proofs, Block, BlockBody, Header, Transaction, TxEnvelope};
use alloy_eips::eip2718::Decodable2718;
use alloy_eips::eip4895::{Withdrawal, Withdrawals};
use alloy_primitives::{keccak256, Address, Bloom, Bytes, B256, B64, U256};
use k256::ecdsa::{RecoveryId, VerifyingKey};
use stateless_ssz::{
    decode_input, NewPayloadRequest, Sha256Hasher, Sha2Hasher, StatelessInput,
    StatelessValidationResult,
};

/// The chain ids the guest knows (`program::standard::rules::KNOWN_CHAINS`, listed again).
pub const KNOWN_CHAIN_IDS: [u64; 4] = [1, 11_155_111, 560_048, 7_011_893];

/// The secp256k1 group order halved (EIP-2's bound on `s`).
const HALF_N: U256 = U256::from_be_bytes([
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
]);

/// What the reference expects of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// It does not decode: the result is 43 zero bytes.
    Undecodable(String),
    /// It decodes: this result, and why it is `false` when it is.
    Decoded {
        /// The result the standard entry must give.
        result: StatelessValidationResult,
        /// Why not valid (`None`: valid).
        why_not: Option<String>,
    },
}

impl Expected {
    /// The result the standard entry must give.
    pub fn result(&self) -> StatelessValidationResult {
        match self {
            Expected::Undecodable(_) => StatelessValidationResult::UNDECODABLE,
            Expected::Decoded { result, .. } => *result,
        }
    }
}

/// The reference's answer for `bytes`.
pub fn expected(bytes: &[u8]) -> Expected {
    match decode_input(bytes) {
        Err(e) => Expected::Undecodable(e.to_string()),
        Ok(input) => {
            let why_not = verdict(&input).err();
            Expected::Decoded {
                result: StatelessValidationResult {
                    new_payload_request_root: input.request_root(&Sha2Hasher),
                    successful_validation: why_not.is_none(),
                    chain_id: input.chain_id,
                    schema_id: input.fork.schema_id(),
                },
                why_not,
            }
        }
    }
}

/// `Ok` when the decoded input is valid, else why not.
pub fn verdict(input: &StatelessInput) -> Result<(), String> {
    if !KNOWN_CHAIN_IDS.contains(&input.chain_id) {
        return Err(format!("unknown chain {}", input.chain_id));
    }
    let chain = program::standard::rules::rules(input.chain_id, input.fork)
        .ok_or_else(|| format!("no rules for chain {}", input.chain_id))?;
    let block = block_of(&input.new_payload_request)?;
    signers(&block.body.transactions, &input.public_keys)?;
    let witness = program::ExecutionWitness {
        state: copies(&input.witness.state),
        codes: copies(&input.witness.codes),
        headers: copies(&input.witness.headers),
    };
    let rlp = alloy_rlp::encode(&block);
    program::validate_block(&rlp, &witness, &chain)
        .map(|_| ())
        .map_err(|e| format!("block: {e}"))
}

fn copies<T: core::ops::Deref<Target = [u8]>>(items: &[T]) -> Vec<Bytes> {
    items
        .iter()
        .map(|item| Bytes::copy_from_slice(item))
        .collect()
}

/// The block the request describes: [`header_of`], its hash checked against the payload's.
pub fn block_of(request: &NewPayloadRequest) -> Result<Block<TxEnvelope>, String> {
    let (header, transactions, withdrawals, claimed) = header_of(request)?;
    let computed = header.hash_slow();
    if computed != claimed {
        return Err(format!(
            "block hash {claimed} is not the header's {computed}"
        ));
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

/// The header a request describes, with its transactions, its withdrawals and the payload's
/// claimed block hash (unchecked: the mutation test reseals with it).
pub fn header_of(
    request: &NewPayloadRequest,
) -> Result<(Header, Vec<TxEnvelope>, Option<Withdrawals>, B256), String> {
    // The fields every payload shape has.
    macro_rules! common {
        ($p:expr) => {{
            let p = $p;
            let base_fee = U256::from_le_bytes(p.base_fee_per_gas);
            let base_fee =
                u64::try_from(base_fee).map_err(|_| format!("base fee {base_fee} over 64 bits"))?;
            let transactions = p
                .transactions
                .iter()
                .enumerate()
                .map(|(i, tx)| {
                    TxEnvelope::decode_2718_exact(&tx[..])
                        .map_err(|e| format!("transaction {i}: {e}"))
                })
                .collect::<Result<Vec<_>, String>>()?;
            let header = Header {
                parent_hash: B256::from(p.parent_hash),
                ommers_hash: alloy_consensus::EMPTY_OMMER_ROOT_HASH,
                beneficiary: Address::from(p.fee_recipient),
                state_root: B256::from(p.state_root),
                transactions_root: proofs::calculate_transaction_root(&transactions),
                receipts_root: B256::from(p.receipts_root),
                logs_bloom: Bloom::from(p.logs_bloom),
                difficulty: U256::ZERO,
                number: p.block_number,
                gas_limit: p.gas_limit,
                gas_used: p.gas_used,
                timestamp: p.timestamp,
                extra_data: Bytes::copy_from_slice(&p.extra_data[..]),
                mix_hash: B256::from(p.prev_randao),
                nonce: B64::ZERO,
                base_fee_per_gas: Some(base_fee),
                ..Default::default()
            };
            (header, transactions, B256::from(p.block_hash))
        }};
    }
    fn withdrawals(ws: &[stateless_ssz::Withdrawal]) -> Withdrawals {
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
    }
    // Cancun on: blob gas, the beacon root, the versioned hashes checked.
    fn blobs(
        header: &mut Header,
        txs: &[TxEnvelope],
        used_excess: (u64, u64),
        beacon: &[u8; 32],
        hashes: &[[u8; 32]],
    ) -> Result<(), String> {
        header.blob_gas_used = Some(used_excess.0);
        header.excess_blob_gas = Some(used_excess.1);
        header.parent_beacon_block_root = Some(B256::from(*beacon));
        let carried: Vec<[u8; 32]> = txs
            .iter()
            .filter_map(|tx| tx.blob_versioned_hashes())
            .flatten()
            .map(|h| h.0)
            .collect();
        if carried != hashes {
            return Err(format!(
                "{} versioned hashes given, the transactions carry {}",
                hashes.len(),
                carried.len()
            ));
        }
        Ok(())
    }
    let with_withdrawals = |mut header: Header, ws: Withdrawals| {
        header.withdrawals_root = Some(proofs::calculate_withdrawals_root(&ws));
        (header, Some(ws))
    };
    Ok(match request {
        NewPayloadRequest::V1(r) => {
            let (header, txs, claimed) = common!(&r.execution_payload);
            (header, txs, None, claimed)
        }
        NewPayloadRequest::V2(r) => {
            let p = &r.execution_payload;
            let (header, txs, claimed) = common!(p);
            let (header, ws) = with_withdrawals(header, withdrawals(&p.withdrawals));
            (header, txs, ws, claimed)
        }
        NewPayloadRequest::V3(r) => {
            let p = &r.execution_payload;
            let (header, txs, claimed) = common!(p);
            let (mut header, ws) = with_withdrawals(header, withdrawals(&p.withdrawals));
            let gas = (p.blob_gas_used, p.excess_blob_gas);
            blobs(
                &mut header,
                &txs,
                gas,
                &r.parent_beacon_block_root,
                &r.versioned_hashes,
            )?;
            (header, txs, ws, claimed)
        }
        NewPayloadRequest::V4(r) => {
            let p = &r.execution_payload;
            let (header, txs, claimed) = common!(p);
            let (mut header, ws) = with_withdrawals(header, withdrawals(&p.withdrawals));
            let gas = (p.blob_gas_used, p.excess_blob_gas);
            blobs(
                &mut header,
                &txs,
                gas,
                &r.parent_beacon_block_root,
                &r.versioned_hashes,
            )?;
            let q = &r.execution_requests;
            header.requests_hash = Some(requests_hash(&[
                serialized(0x00, &q.deposits, deposit),
                serialized(0x01, &q.withdrawals, withdrawal_request),
                serialized(0x02, &q.consolidations, consolidation),
            ]));
            (header, txs, ws, claimed)
        }
        NewPayloadRequest::V5(r) => {
            let p = &r.execution_payload;
            let (header, txs, claimed) = common!(p);
            let (mut header, ws) = with_withdrawals(header, withdrawals(&p.withdrawals));
            let gas = (p.blob_gas_used, p.excess_blob_gas);
            blobs(
                &mut header,
                &txs,
                gas,
                &r.parent_beacon_block_root,
                &r.versioned_hashes,
            )?;
            let q = &r.execution_requests;
            header.requests_hash = Some(requests_hash(&[
                serialized(0x00, &q.deposits, deposit),
                serialized(0x01, &q.withdrawals, withdrawal_request),
                serialized(0x02, &q.consolidations, consolidation),
                serialized(0x03, &q.builder_deposits, builder_deposit),
                serialized(0x04, &q.builder_exits, builder_exit),
            ]));
            header.block_access_list_hash = Some(keccak256(&p.block_access_list[..]));
            header.slot_number = Some(p.slot_number);
            (header, txs, ws, claimed)
        }
    })
}

/// One EIP-7685 request: the type byte, then each item's SSZ (fixed-size containers: their
/// fields' bytes in order, integers little-endian), written here by hand.
fn serialized<T>(ty: u8, items: &[T], ssz: fn(&T, &mut Vec<u8>)) -> Vec<u8> {
    let mut out = vec![ty];
    for item in items {
        ssz(item, &mut out);
    }
    out
}

fn deposit(d: &stateless_ssz::DepositRequest, out: &mut Vec<u8>) {
    out.extend_from_slice(&d.pubkey);
    out.extend_from_slice(&d.withdrawal_credentials);
    out.extend_from_slice(&d.amount.to_le_bytes());
    out.extend_from_slice(&d.signature);
    out.extend_from_slice(&d.index.to_le_bytes());
}

fn withdrawal_request(w: &stateless_ssz::WithdrawalRequest, out: &mut Vec<u8>) {
    out.extend_from_slice(&w.source_address);
    out.extend_from_slice(&w.validator_pubkey);
    out.extend_from_slice(&w.amount.to_le_bytes());
}

fn consolidation(c: &stateless_ssz::ConsolidationRequest, out: &mut Vec<u8>) {
    out.extend_from_slice(&c.source_address);
    out.extend_from_slice(&c.source_pubkey);
    out.extend_from_slice(&c.target_pubkey);
}

fn builder_deposit(d: &stateless_ssz::BuilderDepositRequest, out: &mut Vec<u8>) {
    out.extend_from_slice(&d.pubkey);
    out.extend_from_slice(&d.withdrawal_credentials);
    out.extend_from_slice(&d.amount.to_le_bytes());
    out.extend_from_slice(&d.signature);
}

fn builder_exit(e: &stateless_ssz::BuilderExitRequest, out: &mut Vec<u8>) {
    out.extend_from_slice(&e.source_address);
    out.extend_from_slice(&e.pubkey);
}

/// EIP-7685: `sha256(sha256(r_0) ‖ sha256(r_1) ‖ ...)` over the requests with data (a type
/// byte alone is left out).
fn requests_hash(requests: &[Vec<u8>]) -> B256 {
    let mut digests = Vec::new();
    for request in requests.iter().filter(|r| r.len() > 1) {
        digests.extend_from_slice(&Sha2Hasher.hash(request));
    }
    B256::from(Sha2Hasher.hash(&digests))
}

/// The uncompressed key (`0x04 ‖ x ‖ y`) that k256 recovers from `tx`'s signature, or why
/// none: a high `s` (EIP-2), `r` or `s` out of range, no point.
pub fn recovered_key(tx: &TxEnvelope) -> Result<[u8; 65], String> {
    let signature = tx.signature();
    if signature.s() > HALF_N {
        return Err("high s".into());
    }
    let sig = k256::ecdsa::Signature::from_scalars(
        signature.r().to_be_bytes::<32>(),
        signature.s().to_be_bytes::<32>(),
    )
    .map_err(|_| "r or s out of range".to_string())?;
    let id = RecoveryId::new(signature.v(), false);
    let key = VerifyingKey::recover_from_prehash(&tx.signature_hash()[..], &sig, id)
        .map_err(|_| "no key recovers".to_string())?;
    Ok(key
        .to_encoded_point(false)
        .as_bytes()
        .try_into()
        .expect("an uncompressed point is 65 bytes"))
}

/// One key per transaction, each the one its signature recovers; and those keys' addresses
/// are the senders the block guest recovers (that they are not would be a finding of its own:
/// a panic here).
pub fn signers(txs: &[TxEnvelope], keys: &[[u8; 65]]) -> Result<(), String> {
    if keys.len() != txs.len() {
        return Err(format!(
            "{} keys for {} transactions",
            keys.len(),
            txs.len()
        ));
    }
    for (i, (tx, key)) in txs.iter().zip(keys).enumerate() {
        let recovered = recovered_key(tx).map_err(|e| format!("transaction {i}: {e}"))?;
        if recovered != *key {
            return Err(format!(
                "transaction {i}: the key given is not its signer's"
            ));
        }
    }
    let senders = program::body::recover_senders(txs)
        .unwrap_or_else(|e| panic!("k256 recovers every key, the block guest does not: {e}"));
    for (i, (sender, key)) in senders.iter().zip(keys).enumerate() {
        let address = Address::from_raw_public_key(&key[1..]);
        assert_eq!(
            sender.signer(),
            address,
            "transaction {i}: k256's key and the block guest's sender differ"
        );
    }
    Ok(())
}
