//! The degree-12 extension tower a pairing lives in, over any quadratic field `Fp2`:
//! `Fp6 = Fp2[v] / (v³ − ξ)`, `Fp12 = Fp6[w] / (w² − v)` (so `w⁶ = ξ`).
//!
//! OpenVM's Fp2 chip does one `Fp2` addition, product or quotient per instruction, but its
//! tower (`openvm-pairing`'s `Fp12`) is only in OpenVM's git repository, not on crates.io; so
//! the tower is written here, generic over [`Fp2Arith`] so BN254 and BLS12-381 can share it.
//! It is the same tower as arkworks' (`ark-ff`'s `Fp6_3over2` / `Fp12_2over3over2`), which
//! lets the tests compare whole pairing outputs coefficient by coefficient.
//!
//! **Destination passing.** A chip instruction writes its result to memory at an address it
//! is given. An operation that returns its `Fp2` by value makes the compiler write it to a
//! temporary and `memcpy` the 64 bytes to where it is wanted, ~80 guest instructions around a
//! one-instruction product (measured: ~200 instructions per `Fp2` operation in a pairing).
//! So every hot operation here writes into its destination (`*_to`, `*_assign`), and the
//! chip's read-both-then-write semantics lets a destination alias an operand.
//!
//! Formulas: Karatsuba for `Fp6` and `Fp12` products, the "complex" squaring for `Fp12`, and
//! a sparse product for the Miller loop's lines `1 + b·w + c·w³`.

mod fp2;
mod fp6;

pub(crate) use fp2::impl_fp2_arith;
pub use fp2::Fp2Arith;
use fp6::{at, at_mut, Tmp};

/// `c0 + c1·v + c2·v²`.
#[derive(Clone, Debug, PartialEq)]
pub struct Fp6<F> {
    /// Coefficients of 1, v, v².
    pub c: [F; 3],
}

/// `c0 + c1·w` with `c0`, `c1` in [`Fp6`].
#[derive(Clone, Debug, PartialEq)]
pub struct Fp12<F> {
    /// Coefficient of 1.
    pub c0: Fp6<F>,
    /// Coefficient of w.
    pub c1: Fp6<F>,
}

/// `ξ^((p^k − 1)/6)` and its powers 1..=5, for k = 1, 2, 3: the constants the `p^k`-power
/// Frobenius map multiplies the coefficients of `w^j` by.
#[derive(Clone, Debug)]
pub struct Frobenius<F> {
    powers: [[F; 5]; 3],
}

impl<F: Fp2Arith> Frobenius<F> {
    /// From `g = ξ^((p − 1)/6)`: `ξ^((p² − 1)/6) = g·ḡ` and `ξ^((p³ − 1)/6) = g·ḡ·g`, since
    /// `p`-th powers of `Fp2` elements are their conjugates.
    pub fn new(g: F) -> Self {
        let mut conj = g.clone();
        conj.conj_assign();
        let g2 = g.mul(&conj);
        let g3 = g2.mul(&g);
        let powers = |g: F| {
            let p2 = g.mul(&g);
            let p3 = p2.mul(&g);
            let p4 = p2.mul(&p2);
            let p5 = p4.mul(&g);
            [g, p2, p3, p4, p5]
        };
        Self {
            powers: [powers(g), powers(g2), powers(g3)],
        }
    }

    /// `ξ^(j(p^k − 1)/6)` for `k` in 1..=3 and `j` in 1..=5.
    pub fn coeff(&self, k: usize, j: usize) -> &F {
        &self.powers[k - 1][j - 1]
    }
}

impl<F: Fp2Arith> Fp12<F> {
    /// 1.
    pub const ONE: Self = Self {
        c0: Fp6::ONE,
        c1: Fp6::ZERO,
    };

    /// `self ·= o`: Karatsuba, 18 `Fp2` products.
    pub fn mul_assign(&mut self, o: &Self) {
        let (mut t0, mut t1, mut u) = (Tmp::<Fp6<F>>::new(), Tmp::new(), Tmp::new());
        let (a0, a1): (*mut Fp6<F>, *mut Fp6<F>) = (&mut self.c0, &mut self.c1);
        // SAFETY: `a0`, `a1`, `o`'s halves are valid and initialised and `o` is not `self`;
        // each temporary is written before it is read; `mul_raw` may write over its first
        // operand, never its second.
        unsafe {
            Fp6::mul_raw(t0.w(), a0, &o.c0);
            Fp6::mul_raw(t1.w(), a1, &o.c1);
            // c1 = (a0 + a1)(b0 + b1) − t0 − t1
            Fp6::add_raw(a1, a1, a0);
            Fp6::add_raw(u.w(), &o.c0, &o.c1);
            Fp6::mul_raw(a1, a1, u.r());
            Fp6::sub_raw(a1, a1, t0.r());
            Fp6::sub_raw(a1, a1, t1.r());
            // c0 = t0 + v·t1
            Fp6::add_v_raw(a0, t0.r(), t1.r());
        }
    }

    /// `self = self²`: the complex method, 12 `Fp2` products.
    pub fn square_assign(&mut self) {
        let (mut ab, mut s1, mut s2) = (Tmp::<Fp6<F>>::new(), Tmp::new(), Tmp::new());
        let (a, b): (*mut Fp6<F>, *mut Fp6<F>) = (&mut self.c0, &mut self.c1);
        // SAFETY: `a` and `b` are valid and initialised; each temporary is written before it
        // is read, and no destination aliases an operand it must not.
        unsafe {
            Fp6::mul_raw(ab.w(), a, b);
            Fp6::add_raw(s1.w(), a, b);
            Fp6::add_v_raw(s2.w(), a, b);
            // c1 = 2ab; c0 = (a + b)(a + v·b) − ab − v·ab
            Fp6::add_raw(b, ab.r(), ab.r());
            Fp6::mul_raw(a, s1.r(), s2.r());
            Fp6::sub_raw(a, a, ab.r());
            Fp6::sub_v_raw(a, ab.r());
        }
    }

    /// `self ·= 1 + b·w + c·w³`, a Miller-loop line (`w³ = v·w`, so the line is
    /// `1 + (b + c·v)·w` and `(x + y·w)(1 + B·w) = (x + v·yB) + (y + xB)·w`): 12 `Fp2`
    /// products.
    pub fn mul_by_line_assign(&mut self, b: &F, c: &F) {
        let (mut xb, mut yb) = (Tmp::<Fp6<F>>::new(), Tmp::new());
        let (x, y): (*mut Fp6<F>, *mut Fp6<F>) = (&mut self.c0, &mut self.c1);
        // SAFETY: `x` and `y` are valid and initialised; the temporaries are written before
        // they are read.
        unsafe {
            Fp6::mul_by_01_raw(xb.w(), x, b, c);
            Fp6::mul_by_01_raw(yb.w(), y, b, c);
            Fp6::add_v_raw(x, x, yb.r());
            Fp6::add_raw(y, y, xb.r());
        }
    }

    /// `self ·= c + b·w² + w³`, an M-type twist's line (`A + v·w` with `A = c + b·v`:
    /// `(x + y·w)(A + v·w) = (x·A + y·v²) + (x·v + y·A)·w`): 12 `Fp2` products.
    pub fn mul_by_m_line_assign(&mut self, b: &F, c: &F) {
        let (mut xa, mut ya, mut t) = (Tmp::<Fp6<F>>::new(), Tmp::new(), Tmp::new());
        let (x, y): (*mut Fp6<F>, *mut Fp6<F>) = (&mut self.c0, &mut self.c1);
        // SAFETY: `x` and `y` are valid, initialised and distinct; every temporary is written
        // before it is read; `y` is overwritten only after its last read, `x` last.
        unsafe {
            Fp6::mul_by_01_raw(xa.w(), x, c, b);
            Fp6::mul_by_01_raw(ya.w(), y, c, b);
            // t = y·v² = (ξ·y1, ξ·y2, y0)
            F::mul_raw(at_mut(t.w(), 0), at(y, 1), F::xi());
            F::mul_raw(at_mut(t.w(), 1), at(y, 2), F::xi());
            F::add_raw(at_mut(t.w(), 2), at(y, 0), F::zero());
            // y = yA + x·v, then x = xA + y·v²
            Fp6::add_v_raw(y, ya.r(), x);
            Fp6::add_raw(x, xa.r(), t.r());
        }
    }

    /// `self = self^(p⁶)`, which is the inverse on the cyclotomic subgroup.
    pub fn conj_assign(&mut self) {
        // SAFETY: `c1` is valid and initialised.
        unsafe { Fp6::neg_raw(&mut self.c1) }
    }

    /// The inverse; `self` must not be zero.
    pub fn inverse(&self) -> Self {
        let mut t = Fp6::ZERO;
        let mut b2 = Fp6::ZERO;
        // SAFETY: all valid and initialised; no destination aliases an operand.
        unsafe {
            Fp6::mul_raw(&mut t, &self.c0, &self.c0);
            Fp6::mul_raw(&mut b2, &self.c1, &self.c1);
            Fp6::sub_v_raw(&mut t, &b2);
        }
        let t = t.inverse();
        let mut r = Self {
            c0: Fp6::ZERO,
            c1: Fp6::ZERO,
        };
        // SAFETY: as above.
        unsafe {
            Fp6::mul_raw(&mut r.c0, &self.c0, &t);
            Fp6::mul_raw(&mut r.c1, &self.c1, &t);
        }
        r.conj_assign();
        r
    }

    /// `self = self^(p^k)`, `k` in 1..=3: each `Fp2` coefficient of `w^j` is raised to `p^k`
    /// (conjugated when k is odd) and multiplied by `ξ^(j(p^k − 1)/6)`.
    pub fn frobenius_assign(&mut self, k: usize, consts: &Frobenius<F>) {
        // w^j: c0 holds j = 0, 2, 4; c1 holds j = 1, 3, 5.
        let coeffs = self.c0.c.iter_mut().zip([0, 2, 4]);
        for (x, j) in coeffs.chain(self.c1.c.iter_mut().zip([1, 3, 5])) {
            if k % 2 == 1 {
                x.conj_assign();
            }
            if j > 0 {
                x.mul_assign(consts.coeff(k, j));
            }
        }
    }

    /// `self^e` for an exponent given as big-endian bytes (its leading zero bits cost nothing).
    pub fn pow_be(&self, exponent: &[u8]) -> Self {
        let mut acc = Self::ONE;
        let mut started = false;
        for byte in exponent {
            for bit in (0..8).rev() {
                if started {
                    acc.square_assign();
                }
                if (byte >> bit) & 1 == 1 {
                    if started {
                        acc.mul_assign(self);
                    } else {
                        acc = self.clone();
                        started = true;
                    }
                }
            }
        }
        acc
    }

    /// `self^((p⁶ − 1)(p² + 1))`, the final exponentiation's easy part, which lands in the
    /// cyclotomic subgroup; `self ≠ 0` (a Miller loop's output is a product of non-zero lines).
    pub fn easy_part(&self, frob: &Frobenius<F>) -> Self {
        let mut r = self.inverse();
        let mut conj = self.clone();
        conj.conj_assign();
        r.mul_assign(&conj);
        let mut t = r.clone();
        t.frobenius_assign(2, frob);
        r.mul_assign(&t);
        r
    }

    /// `self^(−e)` for `self` in the cyclotomic subgroup, where the inverse is the conjugate:
    /// the pairings' exponentiation by their curve parameter.
    pub fn cyclotomic_pow_neg(&self, e: u64) -> Self {
        let mut r = self.pow_be(&e.to_be_bytes());
        r.conj_assign();
        r
    }

    /// Whether this is 1.
    pub fn is_one(&self) -> bool {
        *self == Self::ONE
    }
}
