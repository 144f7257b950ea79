//! secp256k1: coordinate field, scalar field, point type, key recovery and verification.
//!
//! A guest using it must register the moduli and curves with the VM (`crate::init!`), and the
//! VM config needs the matching modular and Weierstrass extensions (`host::vm`).
#![allow(missing_docs)] // the macros generate undocumented items

use alloy_primitives::{keccak256, Address};
use core::ops::Neg;
use ecdsa::RecoveryId;
use openvm_algebra_guest::{DivUnsafe, IntMod};
use openvm_algebra_moduli_macros::moduli_declare;
use openvm_ecc_guest::weierstrass::{FromCompressed, WeierstrassPoint};
use openvm_ecc_guest::{CyclicGroup, Group};
use openvm_ecc_sw_macros::sw_declare;

use crate::ecc::{double_mul, ecdsa_point, ecdsa_verify};
use crate::le_bytes;

/// p, the coordinate field's modulus (big-endian hex, as `moduli_init!` takes it).
pub const COORDINATE_MODULUS: &str =
    "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F";
/// n, the group order (the scalar field's modulus).
pub const SCALAR_MODULUS: &str =
    "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141";

moduli_declare! {
    Secp256k1Coord { modulus = "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F" },
    Secp256k1Scalar { modulus = "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141" },
}

/// b = 7, little-endian.
const CURVE_B: Secp256k1Coord = Secp256k1Coord::from_const_bytes({
    let mut b = [0u8; 32];
    b[0] = 7;
    b
});

sw_declare! {
    Secp256k1Point { mod_type = Secp256k1Coord, b = CURVE_B },
}

const GX: [u8; 32] = le_bytes(b"79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798");
const GY: [u8; 32] = le_bytes(b"483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8");
/// p − G.y.
const NEG_GY: [u8; 32] =
    le_bytes(b"B7C52588D95C3B9AA25B0403F1EEF75702E84BB7597AABE663B82F6F04EF2777");

impl CyclicGroup for Secp256k1Point {
    const GENERATOR: Self = Secp256k1Point {
        x: Secp256k1Coord::from_const_bytes(GX),
        y: Secp256k1Coord::from_const_bytes(GY),
    };
    const NEG_GENERATOR: Self = Secp256k1Point {
        x: Secp256k1Coord::from_const_bytes(GX),
        y: Secp256k1Coord::from_const_bytes(NEG_GY),
    };
}

/// n, as an integer.
const ORDER: alloy_primitives::U256 = alloy_primitives::U256::from_be_bytes(
    alloy_primitives::hex!("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"),
);

/// A signature from which no public key can be recovered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryError {
    /// The recovery id is not 0–3.
    RecoveryId(u8),
    /// r or s is zero or not below the group order, r is not the x of a curve point, or the
    /// recovered key is the point at infinity.
    Signature,
}

/// The address whose key signed `prehash` with `r ‖ s` (big-endian) and recovery id `v`
/// (0 or 1; 2 and 3 when r overflowed the order). High `s` is accepted, as `ecrecover` and
/// alloy's unchecked recovery accept it.
///
/// Q = r⁻¹(s·R − z·G), with R decompressed from r (the VM hints its square root). The two
/// scalar multiplications share one doubling chain ([`double_mul`]).
pub fn recover_address(rs: &[u8; 64], v: u8, prehash: &[u8; 32]) -> Result<Address, RecoveryError> {
    let id = RecoveryId::from_byte(v).ok_or(RecoveryError::RecoveryId(v))?;
    let r = Secp256k1Scalar::from_be_bytes(&rs[..32]).ok_or(RecoveryError::Signature)?;
    let s = Secp256k1Scalar::from_be_bytes(&rs[32..]).ok_or(RecoveryError::Signature)?;
    if r == Secp256k1Scalar::ZERO || s == Secp256k1Scalar::ZERO {
        return Err(RecoveryError::Signature);
    }
    // R's x: r, or r + n when the id says r overflowed the order; it must be below p.
    let mut x_bytes: [u8; 32] = rs[..32].try_into().expect("32 bytes");
    if id.is_x_reduced() {
        let (sum, overflow) = alloy_primitives::U256::from_be_bytes(x_bytes).overflowing_add(ORDER);
        if overflow {
            return Err(RecoveryError::Signature);
        }
        x_bytes = sum.to_be_bytes();
    }
    let x = Secp256k1Coord::from_be_bytes(&x_bytes).ok_or(RecoveryError::Signature)?;
    let big_r = Secp256k1Point::decompress(x, &v).ok_or(RecoveryError::Signature)?;
    let z = Secp256k1Scalar::from_be_bytes_unchecked(prehash);
    let neg_u1 = z.div_unsafe(&r);
    let u2 = s.div_unsafe(&r);
    let point = double_mul(
        neg_u1.as_le_bytes(),
        &Secp256k1Point::NEG_GENERATOR,
        u2.as_le_bytes(),
        &big_r,
    );
    if point.is_identity() {
        return Err(RecoveryError::Signature);
    }
    point.x().assert_reduced();
    point.y().assert_reduced();
    let mut xy = [0u8; 64];
    xy[..32].copy_from_slice(&point.x().to_be_bytes());
    xy[32..].copy_from_slice(&point.y().to_be_bytes());
    Ok(Address::from_slice(&keccak256(xy)[12..]))
}

/// The curve point whose uncompressed coordinates are `x ‖ y` (big-endian), if it is one.
fn point_of(xy: &[u8; 64]) -> Option<Secp256k1Point> {
    let x = Secp256k1Coord::from_be_bytes(&xy[..32])?;
    let y = Secp256k1Coord::from_be_bytes(&xy[32..])?;
    // SAFETY: `from_xy` checks the point is on the curve and skips only the subgroup check,
    // which secp256k1 (cofactor 1) does not need: every curve point is in the group.
    unsafe { Secp256k1Point::from_xy(x, y) }
}

/// Whether `r ‖ s` signs `prehash` under the uncompressed public key `x ‖ y` (big-endian).
/// Every signature verifies under two keys (see [`is_signer`]).
pub fn verify(xy: &[u8; 64], rs: &[u8; 64], prehash: &[u8; 32]) -> bool {
    point_of(xy).is_some_and(|point| {
        ecdsa_verify::<Secp256k1Scalar, _>(&point, &Secp256k1Point::GENERATOR, prehash, rs)
    })
}

/// Whether `x ‖ y` is exactly the key that `r ‖ s` with y-parity `y_odd` (the recovery id of
/// a transaction signature, r not overflowed) recovers for `prehash`: what recovery and a
/// comparison would decide, at the cost of a verification (no square root, no second hash).
///
/// Verification alone accepts two keys, the signer's and the other recovery candidate's. The
/// verification point u1·G + u2·Q is the signature's R for the key recovery gives, −R for the
/// other candidate, and a third key gives neither: so the key is the signer's exactly when the
/// point's x is r as an integer (not r + n) and its y has the signature's parity. High s is
/// accepted here, as recovery accepts it; EIP-2 is the caller's check.
pub fn is_signer(xy: &[u8; 64], rs: &[u8; 64], y_odd: bool, prehash: &[u8; 32]) -> bool {
    let Some(key) = point_of(xy) else {
        return false;
    };
    let Some((point, _)) =
        ecdsa_point::<Secp256k1Scalar, _>(&key, &Secp256k1Point::GENERATOR, prehash, rs)
    else {
        return false;
    };
    point.x().assert_reduced();
    point.y().assert_reduced();
    point.x().to_be_bytes().as_ref() == &rs[..32] && (point.y().to_be_bytes()[31] & 1 == 1) == y_odd
}
