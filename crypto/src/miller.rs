//! The Miller loop's steps, shared by BN254 (a D-type twist) and BLS12-381 (an M-type one):
//! for a pair (P, Q), T runs through multiples of Q on the twist and each chord or tangent
//! through T, evaluated at P, multiplies the accumulator `f`.
//!
//! Lines are divided by `y_P` (a factor in `Fp`, which the final exponentiation erases), so
//! with λ the slope on the twist, `b = −λ·(x_P/y_P)` and `c = (λ·x_T − y_T)·(1/y_P)`:
//! - D-type (untwist `(x, y) ↦ (x·w², y·w³)`): the line is `1 + b·w + c·w³`;
//! - M-type (untwist `(x, y) ↦ (x/w², y/w³)`), multiplied by `w³` (a factor in `Fp4`, also
//!   erased): `c + b·w² + w³`.

use crate::tower::{Fp12, Fp2Arith};
use crate::twist::{Affine, Scratch};

/// Which way the twist maps to the curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Twist {
    /// `y² = x³ + b/ξ` (BN254).
    D,
    /// `y² = x³ + b·ξ` (BLS12-381).
    M,
}

/// One pair, ready for the loop: `−x_P/y_P` and `1/y_P` as `Fp2` elements (so scaling a line
/// coefficient by them is one Fp2-chip product), and Q.
pub struct Prepared<F> {
    /// `−x_P/y_P`.
    pub neg_x_over_y: F,
    /// `1/y_P`.
    pub inv_y: F,
    /// Q, on the twist, in the order-r subgroup.
    pub q: Affine<F>,
}

impl<F: Fp2Arith> Prepared<F> {
    /// From P's coordinates embedded in `Fp2` (`y ≠ 0`: both curves' G1 has odd order).
    pub fn new(x: &F, y: &F, q: Affine<F>) -> Self {
        let inv_y = F::ONE.div(y);
        let mut neg_x_over_y = x.mul(&inv_y);
        neg_x_over_y.neg_assign();
        Self {
            neg_x_over_y,
            inv_y,
            q,
        }
    }
}

/// `f ·=` the line with slope `s.lambda` through T, evaluated at P.
fn apply_line<F: Fp2Arith>(
    f: &mut Fp12<F>,
    t: &Affine<F>,
    pair: &Prepared<F>,
    s: &mut Scratch<F>,
    twist: Twist,
) {
    s.lambda.mul_to(&pair.neg_x_over_y, &mut s.b);
    s.lambda.mul_to(&t.x, &mut s.c);
    s.c.sub_assign(&t.y);
    s.c.mul_assign(&pair.inv_y);
    match twist {
        Twist::D => f.mul_by_line_assign(&s.b, &s.c),
        Twist::M => f.mul_by_m_line_assign(&s.b, &s.c),
    }
}

/// Doubles T and applies the tangent. T is a multiple of Q of odd order, so `y_T ≠ 0`.
pub fn double_step<F: Fp2Arith>(
    f: &mut Fp12<F>,
    t: &mut Affine<F>,
    pair: &Prepared<F>,
    s: &mut Scratch<F>,
    twist: Twist,
) {
    t.tangent_to(&mut s.lambda, &mut s.t);
    apply_line(f, t, pair, s, twist);
    t.step(&s.lambda, None, &mut s.t);
}

/// Adds Q to T and applies the chord; the caller guarantees `x_T ≠ x_Q`.
pub fn add_step<F: Fp2Arith>(
    f: &mut Fp12<F>,
    t: &mut Affine<F>,
    q: &Affine<F>,
    pair: &Prepared<F>,
    s: &mut Scratch<F>,
    twist: Twist,
) {
    t.chord_to(q, &mut s.lambda, &mut s.t);
    apply_line(f, t, pair, s, twist);
    t.step(&s.lambda, Some(&q.x), &mut s.t);
}
