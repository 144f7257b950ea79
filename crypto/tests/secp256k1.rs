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
