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
    check_withdrawals(block, chain)?;
    if let (Some(withdrawals), Some(expected)) = (&block.body.withdrawals, header.withdrawals_root)
    {
        root(
            "withdrawals_root",
            expected,
            proofs::calculate_withdrawals_root(withdrawals),
        )?;
    }
    Ok(())
}

/// Withdrawals and their root in the header from Shanghai on, neither before.
fn check_withdrawals(
    block: &Block<TxEnvelope>,
    chain: &ChainConfig,
) -> Result<(), ValidationError> {
    let shanghai = chain.is_shanghai_active_at_timestamp(block.header.timestamp);
    match (&block.body.withdrawals, block.header.withdrawals_root) {
        (Some(_), Some(_)) if shanghai => Ok(()),
        (None, None) if !shanghai => Ok(()),
        _ => Err(ValidationError::Withdrawals(shanghai)),
    }
}

/// [`validate_body`] of a block whose header was built from its body (a standard input's
/// payload, `standard::payload::block_of`): the transactions, ommers and withdrawals roots
/// are the body's by construction (the same functions of the same lists), so computing them
/// again could only agree, and the withdrawals' presence against Shanghai is all that is left:
/// the answer [`validate_body`] gives, for one transaction trie the fewer.
pub fn validate_built_body(
    block: &Block<TxEnvelope>,
    chain: &ChainConfig,
) -> Result<(), ValidationError> {
    check_withdrawals(block, chain)
}

/// The senders of `txs` from their signers' public keys `keys` (one per transaction, in
/// order, as a standard input gives them): each key must be, byte for byte, the key its
/// signature recovers, and the sender is its address.
///
/// Each signature is recovered ([`recovered_key`]: on the chips in the guest) and the given key
/// only compared with the result: no given key is ever made a curve point, so neither the
/// signature's other recovery candidate (which every signature also verifies under, and whose
/// private key the signer knows) nor the point at infinity (which OpenVM's `from_xy` makes of
/// (0, 0), and under which u1·G + u2·Q verifies any R = (z/s)·G) can pass for the signer's.
/// Recovery refuses a key at infinity, as every client's does. Measured in the VM on 24171384
/// and 21882667, recovering costs 0.10% and 0.16% more instructions than the verification
/// check it replaced (a square root per transaction; BENCHMARKS.md). High `s` is refused
/// (EIP-2), as `recover_signer` refuses it. A key that fails is reported with the signer the
/// signature does recover.
pub fn verify_senders<'t>(
    txs: &'t [TxEnvelope],
    keys: &[[u8; 65]],
) -> Result<Vec<Recovered<&'t TxEnvelope>>, ValidationError> {
    check_key_count(txs, keys)?;
    let recovery = recover_keys(txs);
    check_keys(txs, keys, &recovery)?;
    Ok(recovery.senders(txs))
}

/// The keys the transactions' signatures recover, in order, up to the first that recovers
/// none: what a standard input's keys must be, byte for byte ([`check_keys`]).
#[derive(Debug, Clone, Default)]
pub struct Recovery {
    /// `x ‖ y` of each key recovered, from the first transaction on.
    pub keys: Vec<[u8; 64]>,
}

impl Recovery {
    /// Whether every one of `txs` recovered a key.
    pub fn is_complete(&self, txs: &[TxEnvelope]) -> bool {
        self.keys.len() == txs.len()
    }

    /// The senders: each transaction with its key's address.
    pub fn senders<'t>(&self, txs: &'t [TxEnvelope]) -> Vec<Recovered<&'t TxEnvelope>> {
        txs.iter()
            .zip(&self.keys)
            .map(|(tx, key)| Recovered::new_unchecked(tx, Address::from_raw_public_key(key)))
            .collect()
    }
}

/// Recovers each transaction's key ([`recovered_key`]: on the chips in the guest), up to the
/// first that recovers none; high `s` recovers none (EIP-2), as `recover_signer` refuses it.
pub fn recover_keys(txs: &[TxEnvelope]) -> Recovery {
    let mut keys = Vec::with_capacity(txs.len());
    for tx in txs {
        let signature = tx.signature();
        if signature.s() > SECP256K1N_HALF {
            break;
        }
        match recovered_key(signature, &tx.signature_hash()) {
            Some(key) => keys.push(key),
            None => break,
        }
    }
    Recovery { keys }
}

/// One key per transaction.
pub fn check_key_count(txs: &[TxEnvelope], keys: &[[u8; 65]]) -> Result<(), ValidationError> {
    if keys.len() != txs.len() {
        return Err(ValidationError::PublicKeyCount {
            keys: keys.len(),
            txs: txs.len(),
        });
    }
    Ok(())
}

/// The given `keys` against `recovery` ([`recover_keys`] of `txs`), in [`verify_senders`]'s
/// order: the count, then per transaction its key's prefix, its signature's recovery, and the
/// key byte for byte.
pub fn check_keys(
    txs: &[TxEnvelope],
    keys: &[[u8; 65]],
    recovery: &Recovery,
) -> Result<(), ValidationError> {
    check_key_count(txs, keys)?;
    for (index, (tx, key)) in txs.iter().zip(keys).enumerate() {
        let [prefix, xy @ ..] = key;
        if *prefix != 0x04 {
            return Err(ValidationError::PublicKeyPrefix {
                index,
                prefix: *prefix,
            });
        }
        match recovery.keys.get(index) {
            Some(recovered) if recovered == xy => {}
            Some(recovered) => {
                return Err(ValidationError::PublicKey {
                    index,
                    signer: Address::from_raw_public_key(recovered),
                    given: Address::from_raw_public_key(xy),
                })
            }
            // Why: recovery's own refusal (high s included).
            None => {
                return Err(ValidationError::SenderRecovery {
                    index,
                    reason: tx
                        .recover_signer()
                        .err()
                        .map_or_else(|| "no key recovered".into(), |e| e.to_string()),
                })
            }
        }
    }
    Ok(())
}

/// The uncompressed key (`x ‖ y`, no prefix) `signature` recovers for `hash` with its own
/// y-parity, or `None` where recovery fails: on the chips ([`crypto::secp256k1::recover_key`]).
#[cfg(any(feature = "openvm-crypto", feature = "crypto-census"))]
fn recovered_key(signature: &Signature, hash: &B256) -> Option<[u8; 64]> {
    let mut rs = [0u8; 64];
    rs[..32].copy_from_slice(&signature.r().to_be_bytes::<32>());
    rs[32..].copy_from_slice(&signature.s().to_be_bytes::<32>());
    crypto::secp256k1::recover_key(&rs, u8::from(signature.v()), &hash.0).ok()
}

/// The uncompressed key (`x ‖ y`, no prefix) `signature` recovers for `hash` with its own
/// y-parity, or `None` where recovery fails: in software (the host, and a guest without the
/// chips), k256's recovery.
#[cfg(not(any(feature = "openvm-crypto", feature = "crypto-census")))]
fn recovered_key(signature: &Signature, hash: &B256) -> Option<[u8; 64]> {
    let key = signature.recover_from_prehash(hash).ok()?;
    key.to_encoded_point(false).as_bytes()[1..].try_into().ok()
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
