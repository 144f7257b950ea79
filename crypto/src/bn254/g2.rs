//! BN254's G2: points on the sextic twist `y² = x³ + 3/ξ` over `Fp2 = Fp[u]/(u² + 1)`,
//! `ξ = 9 + u`, decoded and checked exactly as revm's `ECPAIRING` does (EIP-197): each
//! coordinate below p, (0, 0) is the point at infinity, anything else must be on the twist
//! and in the order-r subgroup.
//!
//! `Bn254Fp2` is declared with `complex_declare!`, so each `Fp2` product or quotient is one
//! instruction of OpenVM's Fp2 chip. The subgroup check is the one arkworks uses (Section 4.3
//! of <https://eprint.iacr.org/2022/352>): Q is in G2 iff `ψ(Q) = [6x²]Q`, with ψ the
//! untwist-Frobenius-twist endomorphism, a 127-bit scalar multiplication instead of a 254-bit
//! one. The twist has points of small order, so the affine arithmetic here is complete: an
//! adversarial point can make `T = ±Q` or `2T = O` and must get an answer, not a division by
//! zero.
#![allow(missing_docs)] // the macro generates undocumented items

use openvm_algebra_guest::complex_macros::complex_declare;
use openvm_algebra_guest::IntMod;

use super::Bn254Coord;
use crate::le_bytes;
use crate::tower::{Fp2Arith, Frobenius};

complex_declare! {
    Bn254Fp2 { mod_type = Bn254Coord },
}

crate::tower::impl_fp2_arith!(
    Bn254Fp2,
    XI,
    complex_add_extern_func_Bn254Fp2,
    complex_sub_extern_func_Bn254Fp2,
    complex_mul_extern_func_Bn254Fp2,
    complex_div_extern_func_Bn254Fp2
);

/// ξ = 9 + u.
pub const XI: Bn254Fp2 = Bn254Fp2::new(
    Bn254Coord::from_const_bytes(le_bytes(
        b"0000000000000000000000000000000000000000000000000000000000000009",
    )),
    Bn254Coord::from_const_bytes(le_bytes(
        b"0000000000000000000000000000000000000000000000000000000000000001",
    )),
);

/// (p − 1)/6, big-endian: `ξ^((p − 1)/6)` generates the Frobenius constants.
const FROBENIUS_EXPONENT: [u8; 32] = be(le_bytes(
    b"0810b7bdd032f006f40d60f3c0403964ee9591c2e6bda1c234b017592414d4e1",
));

/// BN254's parameter x (positive).
pub const SEED: u64 = 0x44e9_92b4_4a69_09f1;

/// 6x², the scalar of the subgroup check.
const SIX_X_SQUARED: u128 = 6 * (SEED as u128) * (SEED as u128);

const fn be(mut bytes: [u8; 32]) -> [u8; 32] {
    let mut i = 0;
    while i < 16 {
        let t = bytes[i];
        bytes[i] = bytes[31 - i];
        bytes[31 - i] = t;
        i += 1;
    }
    bytes
}

/// The Frobenius constants `ξ^(j(p^k − 1)/6)` (computed on the chip: ~400 `Fp2` operations).
pub fn frobenius() -> Frobenius<Bn254Fp2> {
    Frobenius::new(XI.pow_be(&FROBENIUS_EXPONENT))
}

/// An affine point of the twist, `None` for the point at infinity.
pub type G2 = Option<G2Affine>;

/// Affine coordinates on the twist.
#[derive(Clone, Debug, PartialEq)]
pub struct G2Affine {
    pub x: Bn254Fp2,
    pub y: Bn254Fp2,
}

/// Why a G2 input was refused (revm's `PrecompileHalt` of the same name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum G2Error {
    /// A coordinate is not below p.
    NotAFieldElement,
    /// The point is not (0, 0), and not on the twist or not in the order-r subgroup.
    NotInG2,
}

/// Reads a G2 point from 128 bytes, `x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0`, each 32 bytes big-endian
/// (EIP-197's order: the imaginary part first).
pub fn read(bytes: &[u8; 128], frob: &Frobenius<Bn254Fp2>) -> Result<G2, G2Error> {
    let coord = |i: usize| {
        Bn254Coord::from_be_bytes(&bytes[32 * i..32 * (i + 1)]).ok_or(G2Error::NotAFieldElement)
    };
    let (x1, x0, y1, y0) = (coord(0)?, coord(1)?, coord(2)?, coord(3)?);
    let point = G2Affine {
        x: Bn254Fp2::new(x0, x1),
        y: Bn254Fp2::new(y0, y1),
    };
    if point.x == Bn254Fp2::ZERO && point.y == Bn254Fp2::ZERO {
        return Ok(None);
    }
    if !point.is_on_curve() || !point.is_in_subgroup(frob) {
        return Err(G2Error::NotInG2);
    }
    Ok(Some(point))
}

impl G2Affine {
    /// `y² = x³ + 3/ξ`.
    pub fn is_on_curve(&self) -> bool {
        let b = THREE.div(&XI);
        self.y.mul(&self.y) == self.x.mul(&self.x).mul(&self.x).add(&b)
    }

    /// `ψ(Q) = [6x²]Q`; assumes the point is on the twist.
    pub fn is_in_subgroup(&self, frob: &Frobenius<Bn254Fp2>) -> bool {
        let mut s = Scratch::new();
        // 6x² has 127 bits, the top one set: start from Q.
        let mut acc = self.clone();
        let mut finite = true;
        for bit in (0..126).rev() {
            if finite {
                finite = double_assign(&mut acc, &mut s);
            }
            if (SIX_X_SQUARED >> bit) & 1 == 1 {
                if finite {
                    finite = add_assign(&mut acc, self, &mut s);
                } else {
                    acc = self.clone();
                    finite = true;
                }
            }
        }
        finite && acc == self.psi(frob)
    }

    /// ψ(x, y) = (x̄·ξ^((p−1)/3), ȳ·ξ^((p−1)/2)): untwist, p-power Frobenius, twist.
    pub fn psi(&self, frob: &Frobenius<Bn254Fp2>) -> Self {
        let mut r = self.clone();
        r.x.conj_assign();
        r.x.mul_assign(frob.coeff(1, 2));
        r.y.conj_assign();
        r.y.mul_assign(frob.coeff(1, 3));
        r
    }

    /// −Q.
    pub fn neg(&self) -> Self {
        let mut r = self.clone();
        r.y.neg_assign();
        r
    }

    /// `T = (λ² − x_T − x_other, λ(x_T − x'_T) − y_T)`: the result of a chord or tangent with
    /// slope λ through T and a point with x coordinate `x_other` (T's own for a tangent).
    /// `x` is scratch.
    pub(crate) fn step(&mut self, lambda: &Bn254Fp2, x_other: Option<&Bn254Fp2>, x: &mut Bn254Fp2) {
        lambda.mul_to(lambda, x);
        x.sub_assign(&self.x);
        x.sub_assign(x_other.unwrap_or(&self.x));
        self.x.sub_assign(x);
        self.x.mul_assign(lambda);
        self.x.sub_assign(&self.y);
        self.y.set(&self.x);
        self.x.set(x);
    }

    /// `lambda = 3x²/(2y)`, the tangent's slope; `y ≠ 0`. `d` is scratch.
    pub(crate) fn tangent_to(&self, lambda: &mut Bn254Fp2, d: &mut Bn254Fp2) {
        self.x.mul_to(&self.x, lambda);
        lambda.mul_assign(&THREE);
        self.y.add_to(&self.y, d);
        lambda.div_assign(d);
    }

    /// `lambda = (y_Q − y_T)/(x_Q − x_T)`, the chord's slope; `x_Q ≠ x_T`. `d` is scratch.
    pub(crate) fn chord_to(&self, q: &Self, lambda: &mut Bn254Fp2, d: &mut Bn254Fp2) {
        q.y.sub_to(&self.y, lambda);
        q.x.sub_to(&self.x, d);
        lambda.div_assign(d);
    }
}

/// Temporaries the curve steps reuse: zero-filled once per loop rather than once per step
/// (a 64-byte fill costs more guest instructions than a chip operation).
pub(crate) struct Scratch {
    pub lambda: Bn254Fp2,
    pub t: Bn254Fp2,
    pub b: Bn254Fp2,
    pub c: Bn254Fp2,
}

impl Scratch {
    pub(crate) const fn new() -> Self {
        Self {
            lambda: Bn254Fp2::ZERO,
            t: Bn254Fp2::ZERO,
            b: Bn254Fp2::ZERO,
            c: Bn254Fp2::ZERO,
        }
    }
}

/// `p = 2p`, complete: false when the result is infinity (p has order 2).
fn double_assign(p: &mut G2Affine, s: &mut Scratch) -> bool {
    if p.y == Bn254Fp2::ZERO {
        return false;
    }
    p.tangent_to(&mut s.lambda, &mut s.t);
    p.step(&s.lambda, None, &mut s.t);
    true
}

/// `p = p + q`, complete: false when the result is infinity.
fn add_assign(p: &mut G2Affine, q: &G2Affine, s: &mut Scratch) -> bool {
    if p.x == q.x {
        return p.y == q.y && double_assign(p, s);
    }
    p.chord_to(q, &mut s.lambda, &mut s.t);
    p.step(&s.lambda, Some(&q.x), &mut s.t);
    true
}

/// 3.
pub(crate) const THREE: Bn254Fp2 = Bn254Fp2::new(
    Bn254Coord::from_const_bytes(le_bytes(
        b"0000000000000000000000000000000000000000000000000000000000000003",
    )),
    Bn254Coord::from_const_bytes(le_bytes(
        b"0000000000000000000000000000000000000000000000000000000000000000",
    )),
);

#[cfg(test)]
mod tests {
    #[test]
    fn six_x_squared_has_127_bits() {
        assert_eq!(super::SIX_X_SQUARED >> 126, 1);
    }
}
