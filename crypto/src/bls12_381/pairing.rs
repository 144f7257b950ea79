//! The BLS12-381 optimal-ate pairing on the modular and Fp2 chips.
//!
//! - **Miller loop** over |x| = `0xd201000000010000` (64 bits, 5 additions), affine on the
//!   M-type twist with `y_P`-normalised lines ([`crate::miller`]); x is negative, so the
//!   result is conjugated.
//! - **Final exponentiation**: the easy part `(p⁶ − 1)(p² + 1)`, then arkworks' hard-part
//!   chain (Hayashida–Hayasaka–Teruya) with five exponentiations by x, so the output is the
//!   `Fp12` element arkworks' `Bls12_381::pairing` returns (the tests compare them).

use alloc::vec::Vec;

use openvm_algebra_guest::IntMod;
use openvm_ecc_guest::Group;

use super::g2::{self, Bls12381Fp2, G2Affine};
use super::{Bls12381Coord, Bls12381G1Affine};
use crate::miller::{add_step, double_step, Prepared, Twist};
use crate::tower::{Fp12, Frobenius};
use crate::twist::Scratch;

/// |x|, BLS12-381's parameter x being `−0xd201000000010000`.
const SEED_ABS: u64 = 0xd201_0000_0001_0000;

/// `Π e(P_i, Q_i) == 1` for points already checked (P in G1, Q in G2); pairs with a point at
/// infinity (the identity, or `None`) contribute 1.
pub fn product_is_one(pairs: &[(Bls12381G1Affine, Option<G2Affine>)]) -> bool {
    let prepared: Vec<_> = pairs
        .iter()
        .filter_map(|(p, q)| match q {
            Some(q) if !p.is_identity() => Some(prepare(p, q.clone())),
            _ => None,
        })
        .collect();
    if prepared.is_empty() {
        return true;
    }
    let frob = g2::frobenius();
    final_exponentiation(&miller_loop(&prepared), &frob).is_one()
}

/// `e(P, Q)` for P in G1 (not the identity) and Q in G2: arkworks' `Bls12_381::pairing`
/// value, for the differential tests.
pub fn pairing(p: &Bls12381G1Affine, q: &G2Affine) -> Fp12<Bls12381Fp2> {
    let frob = g2::frobenius();
    final_exponentiation(&miller_loop(&[prepare(p, q.clone())]), &frob)
}

/// An `Fp12` element's 12 coefficients, 48 bytes little-endian each, in arkworks' order
/// (c0.c0.c0, c0.c0.c1, c0.c1.c0, ...).
pub fn to_le_bytes(f: &Fp12<Bls12381Fp2>) -> Vec<u8> {
    let mut out = Vec::with_capacity(12 * 48);
    for c2 in f.c0.c.iter().chain(&f.c1.c) {
        out.extend_from_slice(c2.c0.as_le_bytes());
        out.extend_from_slice(c2.c1.as_le_bytes());
    }
    out
}

fn prepare(p: &Bls12381G1Affine, q: G2Affine) -> Prepared<Bls12381Fp2> {
    let x = Bls12381Fp2::new(p.x.clone(), Bls12381Coord::ZERO);
    let y = Bls12381Fp2::new(p.y.clone(), Bls12381Coord::ZERO);
    Prepared::new(&x, &y, q)
}

/// `Π f_{|x|, Q_i}(P_i)`, conjugated (x < 0), up to factors the final exponentiation erases.
/// T runs through kQ with 1 ≤ k ≤ |x| < r, so no step meets infinity or `x_T = x_Q`.
fn miller_loop(pairs: &[Prepared<Bls12381Fp2>]) -> Fp12<Bls12381Fp2> {
    let mut t: Vec<G2Affine> = pairs.iter().map(|p| p.q.clone()).collect();
    let mut f = Fp12::ONE;
    let mut s = Scratch::new();
    for bit in (0..63).rev() {
        if bit != 62 {
            f.square_assign();
        }
        for (t, pair) in t.iter_mut().zip(pairs) {
            double_step(&mut f, t, pair, &mut s, Twist::M);
        }
        if (SEED_ABS >> bit) & 1 == 1 {
            for (t, pair) in t.iter_mut().zip(pairs) {
                add_step(&mut f, t, &pair.q, pair, &mut s, Twist::M);
            }
        }
    }
    f.conj_assign();
    f
}

/// `f^x` on the cyclotomic subgroup (x < 0), arkworks' `exp_by_x`.
fn exp_by_x(f: &Fp12<Bls12381Fp2>) -> Fp12<Bls12381Fp2> {
    f.cyclotomic_pow_neg(SEED_ABS)
}

/// `f^((p¹² − 1)/r)` up to arkworks' fixed multiple of the hard part's exponent (coprime to r).
fn final_exponentiation(f: &Fp12<Bls12381Fp2>, frob: &Frobenius<Bls12381Fp2>) -> Fp12<Bls12381Fp2> {
    let mut r = f.easy_part(frob);
    // Hard part: arkworks' chain, step for step.
    let mut y0 = r.clone();
    y0.square_assign();
    let mut y1 = exp_by_x(&r);
    let mut y2 = r.clone();
    y2.conj_assign();
    y1.mul_assign(&y2);
    let y2 = exp_by_x(&y1);
    y1.conj_assign();
    y1.mul_assign(&y2);
    let y2 = exp_by_x(&y1);
    y1.frobenius_assign(1, frob);
    y1.mul_assign(&y2);
    r.mul_assign(&y0);
    let y0 = exp_by_x(&y1);
    let y2 = exp_by_x(&y0);
    let mut y0 = y1.clone();
    y0.frobenius_assign(2, frob);
    y1.conj_assign();
    y1.mul_assign(&y2);
    y1.mul_assign(&y0);
    r.mul_assign(&y1);
    r
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_loop_skips_only_the_top_bit() {
        assert_eq!(super::SEED_ABS >> 63, 1);
    }
}
