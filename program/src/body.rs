//! The block body against its header: transactions, withdrawals and ommers roots, and the
//! transactions' senders.
//!
//! Roots come from alloy-consensus (alloy-trie's `HashBuilder`); in the guest its keccak is
//! this project's sponge through `native_keccak256`. EIP-7702 authorization signatures are
//! recovered when each transaction's environment is built (`execute::tx_env`, through the same
//! crypto hook as senders); an invalid one is skipped during execution, as the EIP requires.

use alloc::string::ToString;
use alloc::vec::Vec;
use alloy_consensus::transaction::{Recovered, SignerRecoverable};
use alloy_consensus::{proofs, Block, TxEnvelope};
use alloy_hardforks::EthereumHardforks;
use alloy_primitives::B256;

use crate::chain::ChainConfig;
use crate::error::ValidationError;

/// Checks the body's roots against `header`.
pub fn validate_body(
    block: &Block<TxEnvelope>,
    chain: &ChainConfig,
) -> Result<(), ValidationError> {
    let header = &block.header;
    let root = |field, expected: B256, got: B256| {
        if expected == got {
            Ok(())
        } else {
            Err(ValidationError::BodyRoot {
                field,
                expected,
                got,
            })
        }
    };
    root(
        "transactions_root",
        header.transactions_root,
        proofs::calculate_transaction_root(&block.body.transactions),
    )?;
    root(
        "ommers_hash",
        header.ommers_hash,
        proofs::calculate_ommers_root(&block.body.ommers),
    )?;
    let shanghai = chain.is_shanghai_active_at_timestamp(header.timestamp);
    match (&block.body.withdrawals, header.withdrawals_root) {
        (Some(withdrawals), Some(expected)) if shanghai => root(
            "withdrawals_root",
            expected,
            proofs::calculate_withdrawals_root(withdrawals),
        )?,
        (None, None) if !shanghai => {}
        _ => return Err(ValidationError::Withdrawals(shanghai)),
    }
    Ok(())
}

/// The senders of `txs` from their signers' public keys `keys` (one per transaction, in
/// order): each key must verify its transaction's signature (with EIP-2's low `s`), and the
/// sender is its address. Cheaper than recovery: the key is given, not computed from `r`.
pub fn verify_senders<'t>(
    txs: &'t [TxEnvelope],
    keys: &[[u8; 65]],
) -> Result<Vec<Recovered<&'t TxEnvelope>>, ValidationError> {
    if keys.len() != txs.len() {
        return Err(ValidationError::PublicKeyCount {
            keys: keys.len(),
            txs: txs.len(),
        });
    }
    txs.iter()
        .zip(keys)
        .enumerate()
        .map(|(index, (tx, key))| {
            let sender = alloy_consensus::crypto::secp256k1::verify_and_compute_signer(
                key,
                tx.signature(),
                tx.signature_hash(),
            )
            .map_err(|e| ValidationError::PublicKey {
                index,
                reason: e.to_string(),
            })?;
            Ok(Recovered::new_unchecked(tx, sender))
        })
        .collect()
}

/// Recovers every transaction's sender.
pub fn recover_senders(txs: &[TxEnvelope]) -> Result<Vec<Recovered<&TxEnvelope>>, ValidationError> {
    txs.iter()
        .enumerate()
        .map(|(index, tx)| {
            let sender = tx
                .recover_signer()
                .map_err(|e| ValidationError::SenderRecovery {
                    index,
                    reason: e.to_string(),
                })?;
            Ok(Recovered::new_unchecked(tx, sender))
        })
        .collect()
}
