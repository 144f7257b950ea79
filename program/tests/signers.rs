//! The forged signers of issue 51 against `verify_senders`, the standard guest's check of the
//! public keys its input gives. Run with the default features (k256's recovery) and, in CI,
//! with `--features openvm-crypto`: the guest's own code (crate `crypto`, OpenVM's field and
//! curve arithmetic in software) decides, as it does in the VM.
//!
//! - The zero key: for any transaction and any s, R = (z/s)·G, r = R.x and v = R.y's parity.
//!   Under the point at infinity (what OpenVM's `from_xy` makes of 0x04 ‖ 0^64) the check
//!   u1·G + u2·Q = R passes; recovery gives the point at infinity and refuses. The sender would
//!   be keccak(0^64)[12..], a keyless address anyone can fund.
//! - The other candidate: every signature verifies under its signer's key and the key the
//!   flipped y-parity recovers, whose private key the signer knows too.

use alloy_consensus::transaction::SignerRecoverable;
use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope, TxLegacy};
use alloy_primitives::{keccak256, Address, Signature, TxKind, B256, U256};
use k256::ecdsa::{RecoveryId, SigningKey, VerifyingKey};
use k256::elliptic_curve::ops::Reduce;
use k256::elliptic_curve::point::AffineCoordinates;
use k256::{ProjectivePoint, Scalar};
use program::body::verify_senders;
use program::ValidationError;
use rand::{Rng, SeedableRng};

/// The key 0x04 ‖ 0^64.
const ZERO_KEY: [u8; 65] = {
    let mut key = [0u8; 65];
    key[0] = 0x04;
    key
};

/// The zero key's "address", keccak(0^64)[12..].
fn zero_key_address() -> Address {
    Address::from_slice(&keccak256([0u8; 64])[12..])
}

/// A transfer of each kind the guest decodes: legacy without and with EIP-155, and EIP-1559.
/// Returns its signature hash and the transaction with a given signature.
fn transfer(kind: usize, nonce: u64) -> (B256, impl Fn(Signature) -> TxEnvelope) {
    let to = TxKind::Call(Address::repeat_byte(0x5e));
    let value = U256::from(99u64) * U256::from(10u64).pow(U256::from(18));
    let legacy = TxLegacy {
        chain_id: (kind == 1).then_some(1),
        nonce,
        gas_price: 2_000_000_000,
        gas_limit: 21_000,
        to,
        value,
        input: Default::default(),
    };
    let eip1559 = TxEip1559 {
        chain_id: 1,
        nonce,
        gas_limit: 21_000,
        max_fee_per_gas: 10_000_000_000,
        max_priority_fee_per_gas: 1_000_000_000,
        to,
        value,
        ..Default::default()
    };
    let hash = if kind < 2 {
        legacy.signature_hash()
    } else {
        eip1559.signature_hash()
    };
    let with = move |signature: Signature| -> TxEnvelope {
        if kind < 2 {
            legacy.clone().into_signed(signature).into()
        } else {
            eip1559.clone().into_signed(signature).into()
        }
    };
    (hash, with)
}

/// The signature R = (z/s)·G, r = R.x, v = R.y's parity, for prehash `z` and a low `s`.
fn zero_key_signature(z: &[u8; 32], rng: &mut impl Rng) -> Signature {
    let z = <Scalar as Reduce<k256::U256>>::reduce_bytes(&(*z).into());
    loop {
        let s = <Scalar as Reduce<k256::U256>>::reduce_bytes(&rng.random::<[u8; 32]>().into());
        let big_r = (ProjectivePoint::GENERATOR * (z * s.invert().unwrap())).to_affine();
        let r = U256::from_be_slice(&big_r.x());
        let s = U256::from_be_slice(&s.to_bytes());
        let signature = Signature::new(r, s, bool::from(big_r.y_is_odd()));
        // Low s (EIP-2), and r = R.x below n (all but a 2^-128 of cases).
        if signature.normalize_s().is_none() && !signature.r().is_zero() {
            return signature;
        }
    }
}

#[test]
fn the_zero_key_cannot_sign_for_its_address() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x2e80_4e11);
    for round in 0..12 {
        let kind = round % 3;
        let (hash, with) = transfer(kind, round as u64);
        let signature = zero_key_signature(&hash.0, &mut rng);
        let tx = with(signature);
        assert_eq!(tx.signature_hash(), hash);
        // Every client's recovery refuses it.
        assert!(
            tx.recover_signer().is_err(),
            "round {round}: recovered {:?}",
            tx.recover_signer()
        );
        let txs = [tx];
        let error = verify_senders(&txs, &[ZERO_KEY]).map(|_| ()).unwrap_err();
        assert!(
            matches!(error, ValidationError::SenderRecovery { index: 0, .. }),
            "round {round}: {error}"
        );
        // Not as the keyless address either, however the key is spelled.
        let mut ones = ZERO_KEY;
        ones[1..].fill(0xff);
        assert!(verify_senders(&txs, &[ones]).is_err());
    }
    assert_eq!(
        zero_key_address(),
        "0x3f17f1962B36e491b30A40b2405849e597Ba5FB5"
            .parse::<Address>()
            .unwrap()
    );
}

#[test]
fn the_other_candidate_cannot_sign_for_its_address() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x5167_4e45);
    let mut parities = [0usize; 2];
    for round in 0..24 {
        let key = SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        let (hash, with) = transfer(round % 3, round as u64);
        let (signature, id) = key.sign_prehash_recoverable(&hash[..]).unwrap();
        let tx = with(Signature::from((signature, id)));
        parities[usize::from(id.is_y_odd())] += 1;
        let sec1 = |key: &VerifyingKey| -> [u8; 65] {
            key.to_encoded_point(false).as_bytes().try_into().unwrap()
        };
        let signer = sec1(key.verifying_key());
        let other = VerifyingKey::recover_from_prehash(
            &hash[..],
            &signature,
            RecoveryId::new(!id.is_y_odd(), false),
        )
        .unwrap();
        let txs = [tx];
        let senders = verify_senders(&txs, &[signer]).unwrap();
        assert_eq!(
            senders[0].signer(),
            Address::from_public_key(key.verifying_key())
        );
        assert_eq!(
            verify_senders(&txs, &[sec1(&other)]).map(|_| ()),
            Err(ValidationError::PublicKey {
                index: 0,
                signer: Address::from_public_key(key.verifying_key()),
                given: Address::from_public_key(&other),
            }),
            "round {round}"
        );
    }
    assert!(parities.iter().all(|&n| n > 4), "{parities:?}");
}
