//! secp256k1: coordinate field, scalar field, point type, key recovery and verification.
//!
//! Every check of a given key here is recovery and a byte comparison: no key a prover gives is
//! ever made a curve point ([`verify`] says why).
//!
//! A guest using it must register the moduli and curves with the VM (`crate::init!`), and the
//! VM config needs the matching modular and Weierstrass extensions (`host::vm`).
#![allow(missing_docs)] // the macros generate undocumented items

use alloy_primitives::{keccak256, Address};
use core::ops::Neg;
use ecdsa::RecoveryId;
use openvm_algebra_guest::{DivUnsafe, IntMod};
use openvm_algebra_moduli_macros::moduli_declare;
use openvm_ecc_guest::weierstrass::WeierstrassPoint;
use openvm_ecc_guest::{CyclicGroup, Group};
use openvm_ecc_sw_macros::sw_declare;

use crate::ecc::double_mul;
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

/// The uncompressed public key `x ‖ y` (big-endian, no prefix) that `r ‖ s` (big-endian) with
/// recovery id `v` (0 or 1; 2 and 3 when r overflowed the order) recovers for `prehash`. High
/// `s` is accepted, as `ecrecover` and alloy's unchecked recovery accept it.
///
/// Q = r⁻¹(s·R − z·G), with R decompressed from r (its square root computed on the chip, and
/// checked). The two scalar multiplications share one doubling chain ([`double_mul`]). A Q
/// at infinity is refused, as every client's recovery refuses it; the key returned is the
/// chip's reduced coordinates, so a caller can compare it byte for byte with a given key.
pub fn recover_key(rs: &[u8; 64], v: u8, prehash: &[u8; 32]) -> Result<[u8; 64], RecoveryError> {
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
    let big_r = decompress(x, u8::from(id.is_y_odd())).ok_or(RecoveryError::Signature)?;
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
    Ok(xy)
}

/// The address whose key signed `prehash` with `r ‖ s` and recovery id `v`: the last 20 bytes
/// of the keccak of [`recover_key`]'s key.
pub fn recover_address(rs: &[u8; 64], v: u8, prehash: &[u8; 32]) -> Result<Address, RecoveryError> {
    recover_key(rs, v, prehash).map(|xy| Address::from_slice(&keccak256(xy)[12..]))
}

/// The curve point with x-coordinate `x` (reduced) and y of parity `odd & 1`, if x³ + 7 is a
/// square.
///
/// Not OpenVM's `FromCompressed::decompress`, which reads the parity of −y's bytes: the
/// modular chips constrain a result only modulo p, not below it, so for the ~2^32 roots y with
/// p − y < 2^256 − p a prover may write −y + p, whose parity is the other one, and make
/// `decompress` say "no point" for a valid R (ECRECOVER then returns nothing and an EIP-7702
/// authority is skipped where every client recovers one: a post-state no client computes).
/// Here only the root's parity is read, and the root is reduced ([`sqrt`]); −y has the other
/// parity since y ≠ 0 (the group's order is prime: no point has y = 0), and is only computed
/// with, never read as bytes.
fn decompress(x: Secp256k1Coord, odd: u8) -> Option<Secp256k1Point> {
    let y_squared = &(&x * &x) * &x + &CURVE_B;
    let y = sqrt(&y_squared)?;
    let y = if y.as_le_bytes()[0] & 1 == odd & 1 {
        y
    } else {
        -y
    };
    // SAFETY: y² = x³ + 7 (`sqrt` checked it): (x, y) is on the curve, and every curve point
    // is in the group (cofactor 1).
    Some(unsafe { Secp256k1Point::from_xy_unchecked(x, y) })
}

/// Whether [`sqrt`] may take OpenVM's hinted root ([`allow_hints`]).
static HINTS: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

/// Lets recovery take OpenVM's hinted square root (a hint, then a check of its square: ~270
/// multiplications fewer than computing it): for a guest that reads no input from the hint
/// stream once validation starts (the block guest, whose every read starts a fresh input item).
///
/// Not by default: a hint replaces the VM's one hint stream, from which the standard guest
/// reads its one input as validation needs each part (`program::standard::stream`), so a hint
/// in the middle of validation would clear the rest of its input. Nothing else in this crate
/// hints (BLS12-381's roots and both pairings are computed, not hinted).
pub fn allow_hints() {
    HINTS.store(true, core::sync::atomic::Ordering::Relaxed);
}

/// A square root of `a`, reduced (its bytes canonical), or `None` when `a` is not a square.
///
/// By default a^((p + 1)/4) (p ≡ 3 mod 4), on the chip in the VM and in software off it, one
/// code path, asserted reduced and checked by its square. In the VM after [`allow_hints`],
/// OpenVM's hinted `Sqrt`: the host hints a root (or a root of `a` times a fixed non-residue,
/// to show there is none), and the guest asserts it reduced and checks its square on the chip;
/// a hint that fails its check never yields an answer (the guest loops, and no proof ends).
fn sqrt(a: &Secp256k1Coord) -> Option<Secp256k1Coord> {
    #[cfg(target_os = "zkvm")]
    if HINTS.load(core::sync::atomic::Ordering::Relaxed) {
        use openvm_algebra_guest::Sqrt;
        return a.sqrt();
    }
    let y = pow_p_plus_1_over_4(a);
    y.assert_reduced();
    (&(&y * &y) == a).then_some(y)
}

/// a^((p + 1)/4) by libsecp256k1's addition chain (`secp256k1_fe_sqrt`): the exponent's bits
/// are runs of 223, 22 and 2 ones, reached by 253 squarings and 13 multiplications, where
/// square-and-multiply over its bits takes 254 and 247.
fn pow_p_plus_1_over_4(a: &Secp256k1Coord) -> Secp256k1Coord {
    // `x` squared `times` times, then times `by`: each step one chip operation in place (a
    // product into a new value is then moved, eight words more a step).
    fn chain(x: &Secp256k1Coord, times: usize, by: &Secp256k1Coord) -> Secp256k1Coord {
        let mut y = x.clone();
        for _ in 0..times {
            y.square_assign();
        }
        y *= by;
        y
    }
    // x_k = a^(2^k − 1).
    let x2 = chain(a, 1, a);
    let x3 = chain(&x2, 1, a);
    let x6 = chain(&x3, 3, &x3);
    let x9 = chain(&x6, 3, &x3);
    let x11 = chain(&x9, 2, &x2);
    let x22 = chain(&x11, 11, &x11);
    let x44 = chain(&x22, 22, &x22);
    let x88 = chain(&x44, 44, &x44);
    let x176 = chain(&x88, 88, &x88);
    let x220 = chain(&x176, 44, &x44);
    let x223 = chain(&x220, 3, &x3);
    let t = chain(&x223, 23, &x22);
    let mut t = chain(&t, 6, &x2);
    t.square_assign();
    t.square_assign();
    t
}

/// Whether `r ‖ s` signs `prehash` under the uncompressed public key `x ‖ y` (big-endian):
/// whether `x ‖ y` is, byte for byte, a key the signature recovers under one of its four
/// recovery ids.
///
/// That is ECDSA verification for every key but the point at infinity: if u1·G + u2·Q is a
/// point R' whose x is r mod n, then R' is one of the (up to) four points recovery starts
/// from and Q = r⁻¹(s·R' − z·G) is what recovery gives for it. It is written this way so that
/// the given key never enters the verification equation as a point: it is only compared with
/// a key the chip computed (OpenVM's `from_xy` would read (0, 0) as the point at infinity,
/// which verification then accepts for R = (z/s)·G). Used by alloy's verify hook only, never
/// on the guest's path.
pub fn verify(xy: &[u8; 64], rs: &[u8; 64], prehash: &[u8; 32]) -> bool {
    (0..4).any(|v| recover_key(rs, v, prehash).is_ok_and(|key| key == *xy))
}

#[cfg(test)]
mod chain_tests {
    use super::*;
    use openvm_algebra_guest::{ExpBytes, IntMod};

    #[test]
    fn the_addition_chain_is_the_exponent() {
        const EXPONENT: [u8; 32] = alloy_primitives::hex!(
            "3FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFBFFFFF0C"
        );
        let mut x = [7u8; 32];
        for round in 0..40u8 {
            x[31] = round;
            x[0] = round.wrapping_mul(37) & 0x7f;
            let a = Secp256k1Coord::from_be_bytes(&x).expect("below p");
            assert_eq!(
                pow_p_plus_1_over_4(&a),
                a.exp_bytes(true, &EXPONENT),
                "{round}"
            );
        }
    }
}
