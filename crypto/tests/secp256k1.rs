//! secp256k1 recovery and verification on the host, where the macros generate software
//! arithmetic and the square root the VM hints is computed (`crypto::secp256k1`): the guest's
//! code path against k256, and the forgeries of issue 51 refused.

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

fn xy(key: &k256::ecdsa::VerifyingKey) -> [u8; 64] {
    key.to_encoded_point(false).as_bytes()[1..]
        .try_into()
        .unwrap()
}

/// `recover_key` against k256's recovery, on the host's software arithmetic (the guest's code
/// but for the square root's hint): for random keys and prehashes, every recovery id gives
/// k256's key, or fails where k256's fails; `verify` accepts the signer and the other
/// candidate (both verify the signature) and refuses a stranger and non-points.
#[test]
fn recovery_is_k256s_for_every_id() {
    use crypto::secp256k1::{recover_key, verify};
    use k256::ecdsa::{RecoveryId, SigningKey, VerifyingKey};
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x0dd_ba11);
    let mut parities = [0; 2];
    let mut overflowed = 0;
    for round in 0..24 {
        let key = SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        let prehash: [u8; 32] = rng.random();
        let (signature, id) = key.sign_prehash_recoverable(&prehash).unwrap();
        let rs: [u8; 64] = signature.to_bytes().into();
        parities[usize::from(id.is_y_odd())] += 1;
        let signer = xy(key.verifying_key());
        assert_eq!(recover_key(&rs, id.to_byte(), &prehash), Ok(signer));
        for v in 0..4 {
            let k256 = VerifyingKey::recover_from_prehash(
                &prehash,
                &signature,
                RecoveryId::from_byte(v).unwrap(),
            )
            .map(|key| xy(&key));
            let ours = recover_key(&rs, v, &prehash);
            assert_eq!(ours.ok(), k256.ok(), "round {round}, id {v}");
        }
        let other = VerifyingKey::recover_from_prehash(
            &prehash,
            &signature,
            RecoveryId::new(!id.is_y_odd(), false),
        )
        .unwrap();
        assert!(verify(&signer, &rs, &prehash) && verify(&xy(&other), &rs, &prehash));
        let stranger = SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        assert!(!verify(&xy(stranger.verifying_key()), &rs, &prehash));
        assert!(!verify(&[0u8; 64], &rs, &prehash));
        assert!(!verify(&[0xffu8; 64], &rs, &prehash));
        // An overflowed x (r + n, ids 2 and 3) is a point about half the time r + n < p.
        overflowed += usize::from(recover_key(&rs, 2, &prehash).is_ok());
    }
    assert!(parities[0] > 3 && parities[1] > 3, "{parities:?}");
    // r < p − n for none of these r (p − n ≈ 2^128): every overflowed id refuses.
    assert_eq!(overflowed, 0);
}

/// A small r, so that r + n < p: the ids that say R's x overflowed the order recover from
/// x = r + n, exactly as k256 does (a point for some r, none for others).
#[test]
fn overflowed_x_recovers_as_k256() {
    use crypto::secp256k1::recover_key;
    use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
    let prehash = [0x42u8; 32];
    let (mut points, mut none) = (0, 0);
    for r in 1u64..40 {
        let rs_ = rs(U256::from(r), U256::from(0x1234_5678u64 + r));
        let signature = Signature::from_slice(&rs_).unwrap();
        for v in 0..4 {
            let k256 = VerifyingKey::recover_from_prehash(
                &prehash,
                &signature,
                RecoveryId::from_byte(v).unwrap(),
            )
            .map(|key| xy(&key))
            .ok();
            assert_eq!(recover_key(&rs_, v, &prehash).ok(), k256, "r {r}, id {v}");
            if v >= 2 {
                if k256.is_some() {
                    points += 1
                } else {
                    none += 1
                }
            }
        }
    }
    assert!(points > 10 && none > 10, "{points} {none}");
}

/// The attack of issue 51: for a prehash z and any s, R = (z/s)·G with r = R.x and v its
/// y-parity. Verification under the point at infinity (what OpenVM's `from_xy` makes of the key
/// 0x04 ‖ 0^64) accepts it, since u1·G + u2·O = (z/s)·G = R. Recovery gives
/// r⁻¹(s·R − z·G) = O, which every client refuses: so must ours, and so must `verify` with
/// the zero key.
#[test]
fn the_zero_key_forgery_is_refused() {
    use crypto::secp256k1::{recover_key, verify};
    use k256::elliptic_curve::ops::Reduce;
    use k256::elliptic_curve::point::AffineCoordinates;
    use k256::{ProjectivePoint, Scalar};
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x2e80_4e11);
    for round in 0..16 {
        let prehash: [u8; 32] = rng.random();
        let z = <Scalar as Reduce<k256::U256>>::reduce_bytes(&prehash.into());
        let s = <Scalar as Reduce<k256::U256>>::reduce_bytes(&rng.random::<[u8; 32]>().into());
        let big_r = (ProjectivePoint::GENERATOR * (z * s.invert().unwrap())).to_affine();
        let mut rs_ = [0u8; 64];
        rs_[..32].copy_from_slice(&big_r.x());
        rs_[32..].copy_from_slice(&s.to_bytes());
        let v = u8::from(bool::from(big_r.y_is_odd()));
        assert_eq!(
            recover_key(&rs_, v, &prehash),
            Err(crypto::RecoveryError::Signature),
            "round {round}"
        );
        assert!(!verify(&[0u8; 64], &rs_, &prehash), "round {round}");
        // −R (the other parity) recovers a real key, −(2z/r)·G: not the zero key either.
        assert_ne!(recover_key(&rs_, v ^ 1, &prehash), Ok([0u8; 64]));
    }
}

/// R = (x0, 1), x0³ = −6: its roots are 1 and p − 1, and −1 is where a dishonest chip could
/// write p + 1 (its modular results are constrained mod p, not below it), whose parity is the
/// other one. OpenVM's `decompress` read that parity and could be made to refuse a valid R;
/// ours reads only the reduced root's. Natively (honest arithmetic) both ids must recover what
/// k256 recovers; the dishonest trace itself cannot be built here.
#[test]
fn a_root_of_one_recovers_as_k256() {
    use crypto::secp256k1::recover_key;
    use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
    let x0 = U256::from_be_bytes(alloy_primitives::hex!(
        "146d3b65add9f54ccca28533c88e2cbc63f7443e1658783ab41f8ef97c2a10b5"
    ));
    for s in [1u64, 2, 0xdead_beef] {
        let rs_ = rs(x0, U256::from(s));
        let signature = Signature::from_slice(&rs_).unwrap();
        for prehash in [[0u8; 32], [0x77; 32]] {
            for v in 0..2 {
                let k256 = VerifyingKey::recover_from_prehash(
                    &prehash,
                    &signature,
                    RecoveryId::from_byte(v).unwrap(),
                )
                .map(|key| xy(&key))
                .ok();
                assert!(k256.is_some(), "x0 is a point's x");
                assert_eq!(recover_key(&rs_, v, &prehash).ok(), k256, "s {s}, id {v}");
            }
        }
    }
}
