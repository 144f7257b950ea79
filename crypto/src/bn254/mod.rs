//! BN254 (alt_bn128): G1 addition and scalar multiplication, the `ECADD` (0x06) and `ECMUL`
//! (0x07) precompiles of EIP-196, on the modular-arithmetic and short-Weierstrass chips; G2
//! ([`g2`]) and the pairing check, `ECPAIRING` (0x08) of EIP-197 ([`pairing`]), on the modular
//! and Fp2 chips.
#![allow(missing_docs)] // the macros generate undocumented items

use core::ops::Neg;
use openvm_algebra_guest::IntMod;
use openvm_algebra_moduli_macros::moduli_declare;
use openvm_ecc_guest::weierstrass::WeierstrassPoint;
use openvm_ecc_guest::Group;
use openvm_ecc_sw_macros::sw_declare;

use crate::le_bytes;

pub mod g2;
pub mod pairing;

/// p, the coordinate field's modulus (big-endian hex, as `moduli_init!` takes it).
pub const COORDINATE_MODULUS: &str =
    "0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47";

/// r, the scalar field's modulus (for `MODEXP`, [`crate::modexp`]).
pub const SCALAR_MODULUS: &str =
    "0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001";

moduli_declare! {
    Bn254Coord { modulus = "0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47" },
    Bn254Scalar { modulus = "0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001" },
}

/// b = 3.
const CURVE_B: Bn254Coord = Bn254Coord::from_const_bytes(le_bytes(
    b"0000000000000000000000000000000000000000000000000000000000000003",
));

sw_declare! {
    Bn254G1Affine { mod_type = Bn254Coord, b = CURVE_B },
}

/// Why a G1 input was refused (revm's `PrecompileHalt` of the same name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum G1Error {
    /// A coordinate is not below p.
    NotAFieldElement,
    /// The coordinates are not (0, 0) and not on the curve.
    NotOnCurve,
}

/// Reads a G1 point from 64 big-endian bytes (x ‖ y); (0, 0) is the point at infinity.
/// G1 has prime order (cofactor 1), so every curve point is in the group.
fn read_point(bytes: &[u8; 64]) -> Result<Bn254G1Affine, G1Error> {
    let x = Bn254Coord::from_be_bytes(&bytes[..32]).ok_or(G1Error::NotAFieldElement)?;
    let y = Bn254Coord::from_be_bytes(&bytes[32..]).ok_or(G1Error::NotAFieldElement)?;
    // SAFETY: `from_xy` checks the point is on the curve and skips only the subgroup check,
    // which G1 (cofactor 1) does not need.
    unsafe { Bn254G1Affine::from_xy(x, y) }.ok_or(G1Error::NotOnCurve)
}

/// The point as 64 big-endian bytes, (0, 0) for infinity.
fn write_point(point: &Bn254G1Affine) -> [u8; 64] {
    let mut out = [0u8; 64];
    if !point.is_identity() {
        point.x().assert_reduced();
        point.y().assert_reduced();
        out[..32].copy_from_slice(&point.x().to_be_bytes());
        out[32..].copy_from_slice(&point.y().to_be_bytes());
    }
    out
}

/// `a + b` for two 64-byte encoded points.
pub fn g1_add(a: &[u8; 64], b: &[u8; 64]) -> Result<[u8; 64], G1Error> {
    let mut sum = read_point(a)?;
    sum += &read_point(b)?;
    Ok(write_point(&sum))
}

/// `k · p` for a 64-byte encoded point and a 32-byte big-endian scalar (any 256-bit value:
/// G1's order r divides the result's period, so k need not be reduced).
pub fn g1_mul(point: &[u8; 64], scalar: &[u8; 32]) -> Result<[u8; 64], G1Error> {
    let base = read_point(point)?;
    // Double-and-add from the most significant bit: the chips do each step, and a scalar's
    // leading zero bits cost nothing while the accumulator is still the identity.
    let mut acc = <Bn254G1Affine as WeierstrassPoint>::IDENTITY;
    for byte in scalar {
        for bit in (0..8).rev() {
            acc.double_assign();
            if (byte >> bit) & 1 == 1 {
                acc += &base;
            }
        }
    }
    Ok(write_point(&acc))
}
