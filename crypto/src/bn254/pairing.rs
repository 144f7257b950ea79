//! The BN254 optimal-ate pairing check, the `ECPAIRING` (0x08) precompile of EIP-197, on the
//! modular and Fp2 chips.
//!
//! In software it costs ~94 M guest instructions for a 2-pair check (arkworks), the largest
//! single cost of mainnet block 24171384; here each `Fp` and `Fp2` operation is one chip
//! instruction.
//!
//! - **Miller loop** over `6x + 2` in signed binary (OpenVM's `BN254_PSEUDO_BINARY_ENCODING`),
//!   affine on the twist: a division costs the chip what a product does, so affine steps are
//!   cheaper than projective ones here. Lines are divided by `y_P`, so a line is
//!   `1 + b·(x_P/y_P)·w + c·(1/y_P)·w³` (the factor `y_P` is in `Fp` and the final
//!   exponentiation erases it), and multiplying by it is a sparse product. The loop ends with
//!   the lines through `π(Q)` and `−π²(Q)`.
//! - **Final exponentiation**: the easy part `(p⁶ − 1)(p² + 1)`, then arkworks' hard-part
//!   chain (Fuentes-Castañeda et al.) with three exponentiations by x, so the output is the
//!   same `Fp12` element arkworks' `Bn254::pairing` returns (the tests compare them).
//!
//! OpenVM's hinted final exponentiation (its `PairingExtension` phantom) would be cheaper still;
//! its guest side is not on crates.io.

use alloc::vec::Vec;

use openvm_algebra_guest::IntMod;

use super::g2::{self, Bn254Fp2, G2Affine, G2Error, SEED};
use super::{read_point, Bn254Coord, Bn254G1Affine, G1Error};
use crate::miller::{add_step, double_step, Prepared, Twist};
use crate::tower::{Fp12, Frobenius};
use crate::twist::Scratch;
use openvm_ecc_guest::Group;

/// `6x + 2 = Σ d_i 2^i` with `d_i ∈ {−1, 0, 1}`, least significant digit first.
const LOOP_DIGITS: [i8; 66] = [
    0, 0, 0, 1, 0, 1, 0, -1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, -1, 0, 0, 0, 1, 0, -1, 0, 0, 0, 0,
    -1, 0, 0, 1, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, -1, 0, 0, -1, 0, 1, 0, -1, 0, 0, 0, -1, 0, -1, 0,
    0, 0, 1, 0, -1, 0, 1,
];

/// Why a pairing input was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairingError {
    /// A G1 point was refused.
    G1(G1Error),
    /// A G2 point was refused.
    G2(G2Error),
}

/// `Π e(P_i, Q_i) == 1` for 64-byte G1 and 128-byte G2 encodings; every point is decoded and
/// checked first, in order, as revm does; pairs with a point at infinity contribute 1.
pub fn pairing_check(pairs: &[(&[u8; 64], &[u8; 128])]) -> Result<bool, PairingError> {
    let frob = g2::frobenius();
    let mut prepared = Vec::with_capacity(pairs.len());
    for (g1, g2) in pairs {
        let p = read_point(g1).map_err(PairingError::G1)?;
        let q = g2::read(g2, &frob).map_err(PairingError::G2)?;
        if let (false, Some(q)) = (p.is_identity(), q) {
            prepared.push(prepare(&p, q));
        }
    }
    if prepared.is_empty() {
        return Ok(true);
    }
    Ok(final_exponentiation(&miller_loop(&prepared, &frob), &frob).is_one())
}

/// `e(P, Q)`, the `Fp12` element arkworks' `Bn254::pairing` returns (for the differential
/// tests); `None` when a point is infinity.
pub fn pairing(g1: &[u8; 64], g2: &[u8; 128]) -> Result<Option<Fp12<Bn254Fp2>>, PairingError> {
    let frob = g2::frobenius();
    let p = read_point(g1).map_err(PairingError::G1)?;
    let Some(q) = g2::read(g2, &frob).map_err(PairingError::G2)? else {
        return Ok(None);
    };
    if p.is_identity() {
        return Ok(None);
    }
    let f = miller_loop(&[prepare(&p, q)], &frob);
    Ok(Some(final_exponentiation(&f, &frob)))
}

/// An `Fp12` element's 12 coefficients, 32 bytes little-endian each, in arkworks' order
/// (c0.c0.c0, c0.c0.c1, c0.c1.c0, ...).
pub fn to_le_bytes(f: &Fp12<Bn254Fp2>) -> Vec<u8> {
    let mut out = Vec::with_capacity(12 * 32);
    for c2 in f.c0.c.iter().chain(&f.c1.c) {
        out.extend_from_slice(c2.c0.as_le_bytes());
        out.extend_from_slice(c2.c1.as_le_bytes());
    }
    out
}

fn prepare(p: &Bn254G1Affine, q: G2Affine) -> Prepared<Bn254Fp2> {
    let x = Bn254Fp2::new(p.x.clone(), Bn254Coord::ZERO);
    let y = Bn254Fp2::new(p.y.clone(), Bn254Coord::ZERO);
    Prepared::new(&x, &y, q)
}

/// `Π f_{6x+2, Q_i}(P_i) · l_{T_i, π(Q_i)}(P_i) · l_{T_i + π(Q_i), −π²(Q_i)}(P_i)`, up to factors
/// the final exponentiation erases.
fn miller_loop(pairs: &[Prepared<Bn254Fp2>], frob: &Frobenius<Bn254Fp2>) -> Fp12<Bn254Fp2> {
    let mut t: Vec<G2Affine> = pairs.iter().map(|p| p.q.clone()).collect();
    let negated: Vec<G2Affine> = pairs.iter().map(|p| p.q.neg()).collect();
    let mut f = Fp12::ONE;
    let mut s = Scratch::new();
    for i in (0..LOOP_DIGITS.len() - 1).rev() {
        if i != LOOP_DIGITS.len() - 2 {
            f.square_assign();
        }
        for (t, pair) in t.iter_mut().zip(pairs) {
            double_step(&mut f, t, pair, &mut s, Twist::D);
        }
        let digit = LOOP_DIGITS[i];
        if digit != 0 {
            for ((t, pair), neg) in t.iter_mut().zip(pairs).zip(&negated) {
                let q = if digit > 0 { &pair.q } else { neg };
                add_step(&mut f, t, q, pair, &mut s, Twist::D);
            }
        }
    }
    for (t, pair) in t.iter_mut().zip(pairs) {
        let q1 = g2::psi(&pair.q, frob);
        // π²(Q) = ψ(ψ(Q)); the loop adds its negation.
        let q2 = g2::psi(&q1, frob).neg();
        add_step(&mut f, t, &q1, pair, &mut s, Twist::D);
        add_step(&mut f, t, &q2, pair, &mut s, Twist::D);
    }
    f
}

/// `f^(−x)` on the cyclotomic subgroup (arkworks' `exp_by_neg_x` for positive x).
fn exp_by_neg_x(f: &Fp12<Bn254Fp2>) -> Fp12<Bn254Fp2> {
    f.cyclotomic_pow_neg(SEED)
}

/// `f^((p¹² − 1)/r)` up to arkworks' fixed multiple of the hard part's exponent (coprime to r):
/// 1 exactly when the pairing product is 1.
fn final_exponentiation(f: &Fp12<Bn254Fp2>, frob: &Frobenius<Bn254Fp2>) -> Fp12<Bn254Fp2> {
    let r = f.easy_part(frob);
    // Hard part: arkworks' chain, step for step.
    let mut y1 = exp_by_neg_x(&r);
    y1.square_assign();
    let mut y3 = y1.clone();
    y3.square_assign();
    y3.mul_assign(&y1);
    let y4 = exp_by_neg_x(&y3);
    let mut y5 = y4.clone();
    y5.square_assign();
    let mut y6 = exp_by_neg_x(&y5);
    y6.conj_assign();
    y3.conj_assign();
    let mut y8 = y6;
    y8.mul_assign(&y4);
    y8.mul_assign(&y3);
    let mut y9 = y8.clone();
    y9.mul_assign(&y1);
    let mut y11 = y8.clone();
    y11.mul_assign(&y4);
    y11.mul_assign(&r);
    let mut y13 = y9.clone();
    y13.frobenius_assign(1, frob);
    y13.mul_assign(&y11);
    let mut y14 = y8;
    y14.frobenius_assign(2, frob);
    y14.mul_assign(&y13);
    let mut y16 = r;
    y16.conj_assign();
    y16.mul_assign(&y9);
    y16.frobenius_assign(3, frob);
    y16.mul_assign(&y14);
    y16
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_loop_digits_encode_6x_plus_2() {
        let value: i128 = super::LOOP_DIGITS
            .iter()
            .enumerate()
            .map(|(i, d)| i128::from(*d) << i)
            .sum();
        assert_eq!(value, 6 * i128::from(super::SEED) + 2);
    }
}
