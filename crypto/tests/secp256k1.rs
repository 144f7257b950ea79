//! `recover_address` on the host, where the macros generate software arithmetic: invalid
//! signatures are rejected before any curve arithmetic. Recovery itself needs the VM's
//! square-root hint, which the host path does not have: its differential check against revm's
//! software runs in the VM (`tests/tests/crypto.rs`, guest `crypto_check`).

use alloy_primitives::U256;
use crypto::{recover_address, RecoveryError};

const ORDER: U256 = U256::from_be_bytes(alloy_primitives::hex!(
    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"
));

fn rs(r: U256, s: U256) -> [u8; 64] {
    let mut out = [0u8; 64];
    out[..32].copy_from_slice(&r.to_be_bytes::<32>());
    out[32..].copy_from_slice(&s.to_be_bytes::<32>());
    out
}

#[test]
fn invalid_signatures_are_errors() {
    let prehash = [9u8; 32];
    let one = U256::from(1);
    assert_eq!(
        recover_address(&rs(one, one), 4, &prehash),
        Err(RecoveryError::RecoveryId(4))
    );
    for (r, s) in [
        (U256::ZERO, one),
        (one, U256::ZERO),
        (ORDER, one),
        (one, ORDER),
    ] {
        assert_eq!(
            recover_address(&rs(r, s), 0, &prehash),
            Err(RecoveryError::Signature),
            "r = {r}, s = {s}"
        );
    }
}

/// `is_signer` against k256's recovery, on the host's software arithmetic: for random keys and
/// prehashes, the signer's key with the signature's parity is accepted, and so is the other
/// recovery candidate with the other parity (it is that parity's signer); the other candidate
/// with the signature's parity, and any other key, are refused, though the other candidate
/// verifies the signature.
#[test]
fn is_signer_accepts_exactly_the_key_the_parity_recovers() {
    use crypto::secp256k1::{is_signer, verify};
    use k256::ecdsa::{RecoveryId, SigningKey, VerifyingKey};
    use rand::{Rng, SeedableRng};
    let xy = |key: &VerifyingKey| -> [u8; 64] {
        key.to_encoded_point(false).as_bytes()[1..]
            .try_into()
            .unwrap()
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x0dd_ba11);
    let mut parities = [0; 2];
    for _ in 0..24 {
        let key = SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        let prehash: [u8; 32] = rng.random();
        let (signature, id) = key.sign_prehash_recoverable(&prehash).unwrap();
        let rs: [u8; 64] = signature.to_bytes().into();
        let odd = id.is_y_odd();
        parities[usize::from(odd)] += 1;
        let signer = xy(key.verifying_key());
        let other =
            VerifyingKey::recover_from_prehash(&prehash, &signature, RecoveryId::new(!odd, false))
                .unwrap();
        let other = xy(&other);
        assert!(verify(&signer, &rs, &prehash) && verify(&other, &rs, &prehash));
        assert!(is_signer(&signer, &rs, odd, &prehash));
        assert!(!is_signer(&signer, &rs, !odd, &prehash));
        assert!(is_signer(&other, &rs, !odd, &prehash));
        assert!(!is_signer(&other, &rs, odd, &prehash));
        let stranger = SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        assert!(!is_signer(
            &xy(stranger.verifying_key()),
            &rs,
            odd,
            &prehash
        ));
        // Not a point: refused, not a panic.
        assert!(!is_signer(&[0u8; 64], &rs, odd, &prehash));
    }
    assert!(parities[0] > 3 && parities[1] > 3, "{parities:?}");
}
