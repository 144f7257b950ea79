//! EIP-2537's map-to-curve precompiles on the chips: `MAP_FP_TO_G1` (`0x10`) and
//! `MAP_FP2_TO_G2` (`0x11`), RFC 9380's `map_to_curve` and `clear_cofactor` as revm's arkworks
//! backend computes them:
//! - the simplified SWU map onto the isogenous curve E' (Z = 11 over Fp, Z = −(2 + u) over
//!   Fp2), with y's sign that of the input (`sgn0`), which makes the point unique whichever
//!   square root is found;
//! - the 11-isogeny (G1) or 3-isogeny (G2) onto E, constants in [`super::iso`];
//! - multiplication by the effective cofactor `h_eff` on the chips.
//!
//! Square roots are exponentiations by `(p + 1)/4` (p ≡ 3 mod 4). An Fp2 root is assembled from
//! Fp roots through the norm, so the same code runs natively, where the tests compare it with
//! arkworks.

use core::ops::Neg;

use openvm_algebra_guest::{DivUnsafe, IntMod};
use openvm_ecc_guest::weierstrass::WeierstrassPoint;
use revm::precompile::PrecompileHalt;

use super::eip2537::{read_fp, write_g2};
use super::g2::{Bls12381Fp2, G2Affine};
use super::iso::*;
use super::{mul_be, sqrt as sqrt_fp, to_uncompressed, Bls12381Coord, Bls12381G1Affine};
use crate::be;
use crate::tower::Fp2Arith;
use crate::twist::Affine;

type Fp = Bls12381Coord;
type Fp2 = Bls12381Fp2;

/// G1's `h_eff = 1 − x`, big-endian.
const H_EFF_G1: [u8; 8] = be::<8>(b"d201000000010001");

/// G2's `h_eff = 3(x² − 1)·h₂` (RFC 9380, section 8.8.2), big-endian.
const H_EFF_G2: [u8; 80] = be::<80>(
    b"0bc69f08f2ee75b3584c6a0ea91b352888e2a8e9145ad7689986ff031508ffe1329c2f178731db956d82bf015d1212b02ec0ec69d7477c1ae954cbc06689f6a359894c0adebbf6b4e8020005aaa95551",
);

/// `0x10`: the field element, mapped to G1.
pub fn fp_to_g1(fp: &[u8; 48]) -> Result<[u8; 96], PrecompileHalt> {
    let u = read_fp(fp)?;
    let (x, y) = swu(&u);
    let point = iso_g1(&x, &y);
    Ok(to_uncompressed(&mul_be(&point, &H_EFF_G1)))
}

/// `0x11`: the `Fp2` element `c0 + c1·u`, mapped to G2.
pub fn fp2_to_g2((c0, c1): &([u8; 48], [u8; 48])) -> Result<[u8; 192], PrecompileHalt> {
    let u = Fp2::new(read_fp(c0)?, read_fp(c1)?);
    let (x, y) = swu(&u);
    let point = iso_g2(&x, &y).and_then(|p| p.mul_be(&H_EFF_G2));
    Ok(write_g2(&point))
}

/// The field arithmetic the SWU map needs, over Fp and Fp2.
trait SwuField: Sized + Clone + PartialEq {
    /// E′'s A′ and B′, and the map's non-residue Z.
    fn constants() -> (Self, Self, Self);
    fn zero() -> Self;
    fn one() -> Self;
    fn add(&self, b: &Self) -> Self;
    fn mul(&self, b: &Self) -> Self;
    fn div(&self, b: &Self) -> Self;
    fn neg(&self) -> Self;
    /// A square root, `None` for a non-square.
    fn sqrt(&self) -> Option<Self>;
    /// RFC 9380's `sgn0`.
    fn sgn0(&self) -> bool;
}

/// `(x′, y′)` on E′ for `u`: RFC 9380's `map_to_curve_simple_swu`.
fn swu<F: SwuField>(u: &F) -> (F, F) {
    let (a, b, z) = F::constants();
    let zu2 = z.mul(&u.mul(u));
    let ta = zu2.mul(&zu2).add(&zu2);
    // x1 = B(ta + 1) / (−A·ta), or B / (Z·A) when ta = 0.
    let den = if ta == F::zero() {
        z.mul(&a)
    } else {
        SwuField::neg(&a.mul(&ta))
    };
    let x1 = b.mul(&ta.add(&F::one())).div(&den);
    let g = |x: &F| x.mul(x).add(&a).mul(x).add(&b);
    let (x, mut y) = match g(&x1).sqrt() {
        Some(y) => (x1, y),
        // g(Z·u²·x1) = (Z·u²)³·g(x1), a square because Z·g(x1) is.
        None => {
            let x2 = zu2.mul(&x1);
            let y2 = g(&x2).sqrt().expect("g(x2) is a square when g(x1) is not");
            (x2, y2)
        }
    };
    if y.sgn0() != u.sgn0() {
        y = y.neg();
    }
    (x, y)
}

/// `Σ cᵢ·xⁱ` by Horner's rule.
fn horner<F: SwuField>(coefficients: &[F], x: &F) -> F {
    let (last, rest) = coefficients.split_last().expect("non-empty");
    rest.iter()
        .rev()
        .fold(last.clone(), |acc, c| acc.mul(x).add(c))
}

/// `(x_num/x_den, y·y_num/y_den)`, or `None` (the identity) where a denominator vanishes, as
/// RFC 9380's `inv0` makes it.
fn isogeny<F: SwuField>(maps: [&[F]; 4], x: &F, y: &F) -> Option<(F, F)> {
    let [x_num, x_den, y_num, y_den] = maps.map(|c| horner(c, x));
    if x_den == F::zero() || y_den == F::zero() {
        return None;
    }
    Some((x_num.div(&x_den), y.mul(&y_num).div(&y_den)))
}

fn iso_g1(x: &Fp, y: &Fp) -> Bls12381G1Affine {
    let maps = [
        &G1_X_NUMERATOR[..],
        &G1_X_DENOMINATOR,
        &G1_Y_NUMERATOR,
        &G1_Y_DENOMINATOR,
    ];
    match isogeny(maps, x, y) {
        // SAFETY: the 11-isogeny maps E1′ onto E1 (RFC 9380, appendix E.2); the tests check
        // its images against arkworks'.
        Some((x, y)) => unsafe { Bls12381G1Affine::from_xy_unchecked(x, y) },
        None => <Bls12381G1Affine as WeierstrassPoint>::IDENTITY,
    }
}

fn iso_g2(x: &Fp2, y: &Fp2) -> Option<G2Affine> {
    let maps = [
        &G2_X_NUMERATOR[..],
        &G2_X_DENOMINATOR,
        &G2_Y_NUMERATOR,
        &G2_Y_DENOMINATOR,
    ];
    isogeny(maps, x, y).map(|(x, y)| Affine { x, y })
}

impl SwuField for Fp {
    fn constants() -> (Self, Self, Self) {
        (G1_A, G1_B, Fp::from_u8(11))
    }
    fn zero() -> Self {
        Fp::ZERO
    }
    fn one() -> Self {
        Fp::ONE
    }
    fn add(&self, b: &Self) -> Self {
        self + b
    }
    fn mul(&self, b: &Self) -> Self {
        self * b
    }
    fn div(&self, b: &Self) -> Self {
        self.clone().div_unsafe(b)
    }
    fn neg(&self) -> Self {
        Neg::neg(self.clone())
    }
    fn sqrt(&self) -> Option<Self> {
        sqrt_fp(self)
    }
    fn sgn0(&self) -> bool {
        self.assert_reduced();
        self.as_le_bytes()[0] & 1 == 1
    }
}

impl SwuField for Fp2 {
    fn constants() -> (Self, Self, Self) {
        let k = |c0: u8, c1: u8| Fp2::new(Fp::from_u8(c0), Fp::from_u8(c1));
        let thousand_twelve = Fp::from_u32(1012);
        (
            k(0, 240),
            Fp2::new(thousand_twelve.clone(), thousand_twelve),
            SwuField::neg(&k(2, 1)),
        )
    }
    fn zero() -> Self {
        Fp2::ZERO
    }
    fn one() -> Self {
        Fp2::ONE
    }
    fn add(&self, b: &Self) -> Self {
        Fp2Arith::add(self, b)
    }
    fn mul(&self, b: &Self) -> Self {
        Fp2Arith::mul(self, b)
    }
    fn div(&self, b: &Self) -> Self {
        Fp2Arith::div(self, b)
    }
    fn neg(&self) -> Self {
        let mut n = self.clone();
        Fp2Arith::neg_assign(&mut n);
        n
    }
    /// For `a = c0 + c1·u` (u² = −1): a root of `c0` or of `−c0` (one is a square in Fp) when
    /// `c1 = 0`; else `a` is a square iff its norm `c0² + c1²` is, and then exactly one of
    /// `δ = (c0 ± √norm)/2` is a square in Fp, giving the root `√δ + c1/(2√δ)·u`.
    fn sqrt(&self) -> Option<Self> {
        let (c0, c1) = (&self.c0, &self.c1);
        if *c1 == Fp::ZERO {
            return Some(match sqrt_fp(c0) {
                Some(r) => Fp2::new(r, Fp::ZERO),
                None => Fp2::new(Fp::ZERO, sqrt_fp(&SwuField::neg(c0))?),
            });
        }
        let alpha = sqrt_fp(&(&(c0 * c0) + &(c1 * c1)))?;
        let two = Fp::from_u8(2);
        let x0 = sqrt_fp(&(c0 + &alpha).div_unsafe(&two))
            .or_else(|| sqrt_fp(&(c0 - &alpha).div_unsafe(&two)))?;
        let x1 = c1.clone().div_unsafe(&(&x0 + &x0));
        Some(Fp2::new(x0, x1))
    }
    fn sgn0(&self) -> bool {
        let (s0, s1) = (self.c0.sgn0(), self.c1.sgn0());
        s0 || (self.c0 == Fp::ZERO && s1)
    }
}
