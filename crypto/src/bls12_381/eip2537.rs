//! The EIP-2537 (Prague) BLS12-381 precompiles on the chips: G1 and G2 addition (`0x0B`,
//! `0x0D`), multi-scalar multiplication (`0x0C`, `0x0E`) and the pairing check (`0x0F`), with
//! revm's decoding rules and halts: coordinates below p, `(0, 0)` for infinity, points on
//! the curve, and in the order-r subgroup for MSM and pairing inputs.
//!
//! revm hands these methods the coordinates already unpadded (48 bytes each). The map-to-curve
//! precompiles (`0x10`, `0x11`) are in [`super::map`].

use alloc::vec::Vec;

use openvm_algebra_guest::IntMod;
use openvm_ecc_guest::weierstrass::WeierstrassPoint;
use openvm_ecc_guest::Group;
use revm::precompile::bls12_381::{G1Point, G1PointScalar, G2Point, G2PointScalar};
use revm::precompile::PrecompileHalt;

use super::g2::{Bls12381Fp2, G2Affine, XI};
use super::{mul_be, to_uncompressed, Bls12381Coord, Bls12381G1Affine, ORDER_BE};
use crate::tower::Fp2Arith;
use crate::twist::{self, Affine};

pub(super) fn read_fp(bytes: &[u8; 48]) -> Result<Bls12381Coord, PrecompileHalt> {
    Bls12381Coord::from_be_bytes(bytes).ok_or(PrecompileHalt::NonCanonicalFp)
}

/// A G1 point, the identity for `(0, 0)`; on the curve, and in G1 when `subgroup`.
fn read_g1((x, y): &G1Point, subgroup: bool) -> Result<Bls12381G1Affine, PrecompileHalt> {
    let (x, y) = (read_fp(x)?, read_fp(y)?);
    if x == Bls12381Coord::ZERO && y == Bls12381Coord::ZERO {
        return Ok(<Bls12381G1Affine as WeierstrassPoint>::IDENTITY);
    }
    // SAFETY: `from_xy` checks the point is on the curve; the subgroup is checked below.
    let point =
        unsafe { Bls12381G1Affine::from_xy(x, y) }.ok_or(PrecompileHalt::Bls12381G1NotOnCurve)?;
    if subgroup && !mul_be(&point, &ORDER_BE).is_identity() {
        return Err(PrecompileHalt::Bls12381G1NotInSubgroup);
    }
    Ok(point)
}

/// A G2 point, `None` for `(0, 0)`; on the twist `y² = x³ + 4ξ`, and in G2 when `subgroup`
/// (`[r]Q = O`, with the complete twist arithmetic).
fn read_g2((x0, x1, y0, y1): &G2Point, subgroup: bool) -> Result<Option<G2Affine>, PrecompileHalt> {
    let x = Bls12381Fp2::new(read_fp(x0)?, read_fp(x1)?);
    let y = Bls12381Fp2::new(read_fp(y0)?, read_fp(y1)?);
    if x == Bls12381Fp2::ZERO && y == Bls12381Fp2::ZERO {
        return Ok(None);
    }
    let point = Affine { x, y };
    let four = Bls12381Fp2::new(Bls12381Coord::from_u8(4), Bls12381Coord::ZERO);
    if !point.is_on_curve(&four.mul(&XI)) {
        return Err(PrecompileHalt::Bls12381G2NotOnCurve);
    }
    if subgroup && point.mul_be(&ORDER_BE).is_some() {
        return Err(PrecompileHalt::Bls12381G2NotInSubgroup);
    }
    Ok(Some(point))
}

pub(super) fn write_g2(point: &Option<G2Affine>) -> [u8; 192] {
    let mut out = [0u8; 192];
    if let Some(p) = point {
        for (i, c) in [&p.x.c0, &p.x.c1, &p.y.c0, &p.y.c1].into_iter().enumerate() {
            c.assert_reduced();
            out[48 * i..48 * (i + 1)].copy_from_slice(c.to_be_bytes().as_ref());
        }
    }
    out
}

/// `0x0B`: a + b, no subgroup check.
pub fn g1_add(a: &G1Point, b: &G1Point) -> Result<[u8; 96], PrecompileHalt> {
    let mut sum = read_g1(a, false)?;
    sum += &read_g1(b, false)?;
    Ok(to_uncompressed(&sum))
}

/// `0x0C`: Σ kᵢ·Pᵢ; points in G1, pairs with a zero scalar skipped.
pub fn g1_msm(
    pairs: &mut dyn Iterator<Item = Result<G1PointScalar, PrecompileHalt>>,
) -> Result<[u8; 96], PrecompileHalt> {
    let mut sum = <Bls12381G1Affine as WeierstrassPoint>::IDENTITY;
    for pair in pairs {
        let (point, scalar) = pair?;
        let point = read_g1(&point, true)?;
        if scalar.iter().any(|b| *b != 0) {
            sum += &mul_be(&point, &scalar);
        }
    }
    Ok(to_uncompressed(&sum))
}

/// `0x0D`: a + b, no subgroup check.
pub fn g2_add(a: &G2Point, b: &G2Point) -> Result<[u8; 192], PrecompileHalt> {
    let (a, b) = (read_g2(a, false)?, read_g2(b, false)?);
    Ok(write_g2(&twist::add(&a, &b)))
}

/// `0x0E`: Σ kᵢ·Qᵢ; points in G2, pairs with a zero scalar skipped.
pub fn g2_msm(
    pairs: &mut dyn Iterator<Item = Result<G2PointScalar, PrecompileHalt>>,
) -> Result<[u8; 192], PrecompileHalt> {
    let mut sum: Option<G2Affine> = None;
    for pair in pairs {
        let (point, scalar) = pair?;
        let point = read_g2(&point, true)?;
        if let (Some(point), true) = (point, scalar.iter().any(|b| *b != 0)) {
            sum = twist::add(&sum, &point.mul_be(&scalar));
        }
    }
    Ok(write_g2(&sum))
}

/// `0x0F`: `Π e(Pᵢ, Qᵢ) == 1`, points in G1 and G2; a pair with an all-zero point is skipped
/// after its other point is checked.
pub fn pairing_check(pairs: &[(G1Point, G2Point)]) -> Result<bool, PrecompileHalt> {
    let mut checked = Vec::with_capacity(pairs.len());
    for (g1, g2) in pairs {
        let p = read_g1(g1, true)?;
        let q = read_g2(g2, true)?;
        checked.push((p, q));
    }
    Ok(super::pairing::product_is_one(&checked))
}
