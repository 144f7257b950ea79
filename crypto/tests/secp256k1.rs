//! `recover_address` against k256 and alloy on random keys and messages, high and low `s`,
//! and invalid signatures (the curve arithmetic here is the macros' software path; the guest
//! runs the same code on the VM's chips).

use alloy_primitives::{Address, Signature, B256, U256};
use crypto::{recover_address, RecoveryError};
use k256::ecdsa::SigningKey;
use rand::{rngs::SmallRng, Rng, SeedableRng};

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
fn recovers_what_k256_signed_with_low_and_high_s() {
    let mut rng = SmallRng::seed_from_u64(7);
    for _ in 0..64 {
        let key = SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        let address = Address::from_public_key(key.verifying_key());
        let prehash: [u8; 32] = rng.random();
        let (sig, id) = key.sign_prehash_recoverable(&prehash).unwrap();
        let sig = Signature::from((sig, id));
        let (r, s, v) = (sig.r(), sig.s(), u8::from(sig.v()));
        assert_eq!(recover_address(&rs(r, s), v, &prehash), Ok(address));
        // The same signature with s ↦ n − s and the parity flipped: `ecrecover` accepts it.
        let high = rs(r, ORDER - s);
        assert_eq!(recover_address(&high, v ^ 1, &prehash), Ok(address));
        let alloy_high = Signature::new(r, ORDER - s, v == 0)
            .recover_address_from_prehash(&B256::from(prehash))
            .unwrap();
        assert_eq!(alloy_high, address);
        // The wrong parity recovers another key.
        assert_ne!(recover_address(&rs(r, s), v ^ 1, &prehash), Ok(address));
    }
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
