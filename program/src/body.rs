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
use alloy_primitives::{Address, B256};

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

/// The senders of `txs`, each recovered from its signature, with the public keys `keys` (one
/// per transaction, in order, as a standard input gives them) checked to be exactly the
/// recovered signers' keys.
///
/// A given key is the signer's only if it is the key that the signature's own recovery id
/// (its y-parity; for a legacy transaction, derived from `v`) selects. Verifying the signature
/// against the key is not enough: every signature verifies under two keys, the signer's and
/// the other recovery candidate's (whose `u1·G + u2·Q` is `−R`), and whoever signs knows the
/// other candidate's private key too, so could fund its address and have the block executed
/// as it. Recovering costs on the chip what verifying costs (one two-scalar multiplication,
/// one inversion; the VM hints R's square root), so the sender is recovered, as the block
/// guest does, and the key must hash to it: a different key with the same address would be a
/// keccak-160 second preimage.
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
    let senders = recover_senders(txs)?;
    for (index, (recovered, key)) in senders.iter().zip(keys).enumerate() {
        let [prefix, xy @ ..] = key;
        if *prefix != 0x04 {
            return Err(ValidationError::PublicKeyPrefix {
                index,
                prefix: *prefix,
            });
        }
        let given = Address::from_raw_public_key(xy);
        if given != recovered.signer() {
            return Err(ValidationError::PublicKey {
                index,
                signer: recovered.signer(),
                given,
            });
        }
    }
    Ok(senders)
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
