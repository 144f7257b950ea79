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
use alloy_eips::eip7702::constants::SECP256K1N_HALF;
use alloy_hardforks::EthereumHardforks;
use alloy_primitives::{Address, Signature, B256};

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
/// order, as a standard input gives them): each key must be exactly the key its signature
/// recovers, and the sender is its address.
///
/// A key is the signer's only if it is the one the signature's own recovery id (its y-parity;
/// for a legacy transaction, derived from `v`) selects. Verifying the signature against the
/// key is not enough: every signature verifies under two keys, the signer's and the other
/// recovery candidate's, and whoever signs knows the other candidate's private key too, so
/// could fund its address and have the block executed as it. [`is_signer`] decides exactly
/// what recovery and a comparison would, at the cost of one verification: measured in the VM
/// on 24171384 and 21882667, recovering and comparing addresses cost 0.10% and 0.16% more
/// instructions (a square root and a second keccak per transaction; BENCHMARKS.md). High `s`
/// is refused (EIP-2), as recovery refuses it. A key that fails is reported with the signer the
/// signature does recover (recovery runs on that path only).
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
            let [prefix, xy @ ..] = key;
            if *prefix != 0x04 {
                return Err(ValidationError::PublicKeyPrefix {
                    index,
                    prefix: *prefix,
                });
            }
            let signature = tx.signature();
            let signer =
                signature.s() <= SECP256K1N_HALF && is_signer(xy, signature, &tx.signature_hash());
            if !signer {
                // Why: recovery's own refusal, or the signer it gives.
                return Err(match tx.recover_signer() {
                    Ok(signer) => ValidationError::PublicKey {
                        index,
                        signer,
                        given: Address::from_raw_public_key(xy),
                    },
                    Err(e) => ValidationError::SenderRecovery {
                        index,
                        reason: e.to_string(),
                    },
                });
            }
            Ok(Recovered::new_unchecked(
                tx,
                Address::from_raw_public_key(xy),
            ))
        })
        .collect()
}

/// Whether `xy` is exactly the key `signature` recovers for `hash`: on the chips, the
/// verification point's x and parity ([`crypto::secp256k1::is_signer`]).
#[cfg(any(feature = "openvm-crypto", feature = "crypto-census"))]
fn is_signer(xy: &[u8; 64], signature: &Signature, hash: &B256) -> bool {
    let mut rs = [0u8; 64];
    rs[..32].copy_from_slice(&signature.r().to_be_bytes::<32>());
    rs[32..].copy_from_slice(&signature.s().to_be_bytes::<32>());
    crypto::secp256k1::is_signer(xy, &rs, signature.v(), &hash.0)
}

/// Whether `xy` is exactly the key `signature` recovers for `hash`: in software (the host, and
/// a guest without the chips), k256's recovery and a comparison.
#[cfg(not(any(feature = "openvm-crypto", feature = "crypto-census")))]
fn is_signer(xy: &[u8; 64], signature: &Signature, hash: &B256) -> bool {
    signature
        .recover_from_prehash(hash)
        .is_ok_and(|key| key.to_encoded_point(false).as_bytes()[1..] == xy[..])
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
