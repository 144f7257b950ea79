//! Affine points on a pairing curve's sextic twist over `Fp2`, generic over [`Fp2Arith`]:
//! the chord-and-tangent steps the Miller loop shares with plain curve arithmetic, and
//! complete doubling, addition and scalar multiplication for subgroup checks and scalar
//! multiples (an adversarial input can make `T = ±Q` or `2T = O`, which must get an answer,
//! not a division by zero).
//!
//! Affine, because the Fp2 chip divides in one instruction; everything writes into its
//! destination (see [`crate::tower`]), with temporaries zero-filled once per loop in
//! [`Scratch`] rather than once per step.

use crate::tower::Fp2Arith;

/// Affine coordinates on the twist (a curve `y² = x³ + b'`, so a = 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Affine<F> {
    /// x.
    pub x: F,
    /// y.
    pub y: F,
}

/// Temporaries the steps reuse.
pub struct Scratch<F> {
    /// The current slope.
    pub lambda: F,
    /// Scratch.
    pub t: F,
    /// A line's first coefficient.
    pub b: F,
    /// A line's second coefficient.
    pub c: F,
}

impl<F: Fp2Arith> Scratch<F> {
    /// Zero-filled.
    pub const fn new() -> Self {
        Self {
            lambda: F::ZERO,
            t: F::ZERO,
            b: F::ZERO,
            c: F::ZERO,
        }
    }
}

impl<F: Fp2Arith> Default for Scratch<F> {
    fn default() -> Self {
        Self::new()
    }
}

impl<F: Fp2Arith> Affine<F> {
    /// `y² = x³ + b`.
    pub fn is_on_curve(&self, b: &F) -> bool {
        self.y.mul(&self.y) == self.x.mul(&self.x).mul(&self.x).add(b)
    }

    /// −P.
    pub fn neg(&self) -> Self {
        let mut r = self.clone();
        r.y.neg_assign();
        r
    }

    /// `T = (λ² − x_T − x_other, λ(x_T − x'_T) − y_T)`: the result of a chord or tangent with
    /// slope λ through T and a point with x coordinate `x_other` (T's own for a tangent).
    /// `x` is scratch.
    pub fn step(&mut self, lambda: &F, x_other: Option<&F>, x: &mut F) {
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
    pub fn tangent_to(&self, lambda: &mut F, d: &mut F) {
        self.x.mul_to(&self.x, d);
        d.add_to(d, lambda);
        lambda.add_assign(d);
        self.y.add_to(&self.y, d);
        lambda.div_assign(d);
    }

    /// `lambda = (y_Q − y_T)/(x_Q − x_T)`, the chord's slope; `x_Q ≠ x_T`. `d` is scratch.
    pub fn chord_to(&self, q: &Self, lambda: &mut F, d: &mut F) {
        q.y.sub_to(&self.y, lambda);
        q.x.sub_to(&self.x, d);
        lambda.div_assign(d);
    }

    /// `self = 2·self`, complete: false when the result is infinity (`y = 0`).
    pub fn double_assign(&mut self, s: &mut Scratch<F>) -> bool {
        if self.y == F::ZERO {
            return false;
        }
        self.tangent_to(&mut s.lambda, &mut s.t);
        self.step(&s.lambda, None, &mut s.t);
        true
    }

    /// `self = self + q`, complete: false when the result is infinity.
    pub fn add_assign(&mut self, q: &Self, s: &mut Scratch<F>) -> bool {
        if self.x == q.x {
            return self.y == q.y && self.double_assign(s);
        }
        self.chord_to(q, &mut s.lambda, &mut s.t);
        self.step(&s.lambda, Some(&q.x), &mut s.t);
        true
    }

    /// `k·self` for a big-endian scalar (any bits), `None` for infinity; complete.
    pub fn mul_be(&self, scalar: &[u8]) -> Option<Self> {
        let mut s = Scratch::new();
        let mut acc: Option<Self> = None;
        for byte in scalar {
            for bit in (0..8).rev() {
                if let Some(a) = acc.as_mut() {
                    if !a.double_assign(&mut s) {
                        acc = None;
                    }
                }
                if (byte >> bit) & 1 == 1 {
                    match acc.as_mut() {
                        Some(a) => {
                            if !a.add_assign(self, &mut s) {
                                acc = None;
                            }
                        }
                        None => acc = Some(self.clone()),
                    }
                }
            }
        }
        acc
    }
}

/// `a + b` on points that may be infinity (`None`), complete.
pub fn add<F: Fp2Arith>(a: &Option<Affine<F>>, b: &Option<Affine<F>>) -> Option<Affine<F>> {
    match (a, b) {
        (None, _) => b.clone(),
        (_, None) => a.clone(),
        (Some(a), Some(b)) => {
            let mut r = a.clone();
            r.add_assign(b, &mut Scratch::new()).then_some(r)
        }
    }
}
