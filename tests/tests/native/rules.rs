//! Block-level rules, each broken alone on the project's `devnet-small` block (Osaka, no
//! transactions, the whole pre-state as witness), with the exact typed error. The header rules'
//! boundaries are unit tests beside them (`program::header`); these need a body.
//!
//! A transaction rule is broken by adding one transaction signed by a funded devnet account and
//! recomputing the transactions root: execution refuses the transaction before any result
//! field of the header is compared.

use alloy_consensus::{
    proofs, Block, SignableTransaction, Signed, TxEip1559, TxEip4844, TxEip4844Variant,
    TxEip4844WithSidecar, TxEnvelope,
};
use alloy_eips::eip4844::BlobTransactionSidecar;
use alloy_eips::eip7594::BlobTransactionSidecarVariant;
use alloy_primitives::{Address, Bytes, Signature, TxKind, B256};
use alloy_rlp::Decodable;
use program::{ChainConfig, ValidationError, Verdict};

struct Small {
    block: Block<TxEnvelope>,
    witness: program::ExecutionWitness,
    chain: ChainConfig,
}

fn small() -> Small {
    let blocks = tests::project_blocks_dir();
    let run = host::native::run_native(&blocks, "devnet-small", None).unwrap();
    run.verdict.as_ref().expect("devnet-small is valid");
    Small {
        block: Block::decode(&mut run.data.block_rlp.as_slice()).unwrap(),
        witness: run.data.witness,
        chain: run.chain,
    }
}

/// Signed by the first funded devnet account (the generator's own signing).
fn sign<T: SignableTransaction<Signature>>(tx: T) -> Signed<T> {
    blockgen::signed(tx, &blockgen::key(0))
}

fn eip1559(chain: &ChainConfig, gas_limit: u64, input: Bytes) -> TxEnvelope {
    sign(TxEip1559 {
        chain_id: chain.chain_id,
        nonce: 0,
        gas_limit,
        max_fee_per_gas: 100_000_000_000,
        max_priority_fee_per_gas: 1_000_000_000,
        to: TxKind::Call(Address::repeat_byte(0x42)),
        input,
        ..Default::default()
    })
    .into()
}

/// A versioned hash of the KZG version (its first byte is 1).
const KZG_HASH: B256 = {
    let mut hash = [0u8; 32];
    hash[0] = 1;
    B256::new(hash)
};

fn blob_tx(chain: &ChainConfig, blobs: usize) -> TxEip4844 {
    TxEip4844 {
        chain_id: chain.chain_id,
        nonce: 0,
        gas_limit: 100_000,
        max_fee_per_gas: 100_000_000_000,
        max_priority_fee_per_gas: 1_000_000_000,
        to: Address::repeat_byte(0x42),
        blob_versioned_hashes: vec![KZG_HASH; blobs],
        max_fee_per_blob_gas: 1_000_000_000,
        ..Default::default()
    }
}

/// The block with `txs` as its body, the transactions root recomputed.
fn validate_with(
    small: &Small,
    txs: Vec<TxEnvelope>,
) -> Result<program::BlockOutput, ValidationError> {
    let mut block = small.block.clone();
    block.header.transactions_root = proofs::calculate_transaction_root(&txs);
    block.body.transactions = txs;
    program::validate_block(&alloy_rlp::encode(&block), &small.witness, &small.chain)
}

fn execution_error(result: Result<program::BlockOutput, ValidationError>) -> String {
    match result {
        Err(ValidationError::Execution(reason)) => reason,
        other => panic!("expected an execution error, got {other:?}"),
    }
}

#[test]
fn a_transaction_over_the_eip_7825_gas_cap_is_refused() {
    let small = small();
    const CAP: u64 = 1 << 24;
    let reason = execution_error(validate_with(
        &small,
        vec![eip1559(&small.chain, CAP + 1, Bytes::new())],
    ));
    assert!(reason.contains("gas limit"), "{reason}");
    // At the cap the transaction runs (the block then fails later, on its unchanged gas used).
    assert!(matches!(
        validate_with(&small, vec![eip1559(&small.chain, CAP, Bytes::new())]),
        Err(ValidationError::GasUsed { expected: 0, .. })
    ));
}

#[test]
fn a_transaction_with_more_blobs_than_a_transaction_may_carry_is_refused() {
    let small = small();
    let max = small
        .chain
        .blob_params_at(small.block.header.timestamp)
        .unwrap()
        .max_blobs_per_tx as usize;
    let tx: TxEnvelope = sign(blob_tx(&small.chain, max + 1)).into();
    let reason = execution_error(validate_with(&small, vec![tx]));
    assert!(reason.to_lowercase().contains("blob"), "{reason}");
    // At the maximum it runs: then the header's blob gas used (0) is what is wrong.
    let tx: TxEnvelope = sign(blob_tx(&small.chain, max)).into();
    let result = validate_with(&small, vec![tx]);
    assert!(
        matches!(result, Err(ValidationError::GasUsed { expected: 0, .. })),
        "{result:?}"
    );
}

#[test]
fn a_block_over_the_eip_7934_size_cap_is_refused_first() {
    let small = small();
    let limit = program::header::MAX_RLP_BLOCK_SIZE;
    // One transaction whose calldata alone is over the limit; nothing else is checked first.
    let tx = eip1559(&small.chain, 30_000_000, vec![1u8; limit].into());
    match validate_with(&small, vec![tx]) {
        Err(ValidationError::BlockTooLarge { size, limit: l }) => {
            assert!(size > limit);
            assert_eq!(l, limit);
        }
        other => panic!("expected BlockTooLarge, got {other:?}"),
    }
}

#[test]
fn a_blob_transaction_with_its_sidecar_is_never_part_of_a_block() {
    let small = small();
    let sidecar = BlobTransactionSidecar {
        blobs: vec![Default::default()],
        commitments: vec![Default::default()],
        proofs: vec![Default::default()],
    };
    let tx = TxEip4844WithSidecar::from_tx_and_sidecar(
        blob_tx(&small.chain, 1),
        BlobTransactionSidecarVariant::Eip4844(sidecar),
    );
    let signed = sign(TxEip4844Variant::TxEip4844WithSidecar(tx));
    let envelope = TxEnvelope::Eip4844(signed);
    // The transactions root is that of the sidecar form: the body matches its header.
    let result = validate_with(&small, vec![envelope]);
    assert_eq!(
        result,
        Err(ValidationError::BlobSidecarInBlock { index: 0 })
    );
    assert_eq!(Verdict::of(&result), Verdict::Invalid);
}
