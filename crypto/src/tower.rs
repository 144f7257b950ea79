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

use core::mem::MaybeUninit;
use core::ptr::{addr_of, addr_of_mut};

/// A quadratic extension field the tower is built on.
pub trait Fp2Arith: Sized + Clone + PartialEq + 'static {
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// ξ, the non-residue `Fp6` is built with, in a `static`: a reference to a generic
    /// associated constant copies it to the stack (a `memcpy` per use); this one does not.
    fn xi() -> &'static Self;
    /// 0 in a `static`, for the same reason.
    fn zero() -> &'static Self;

    /// `*dst = *a + *b`.
    ///
    /// # Safety
    /// `a` and `b` are valid and initialised; `dst` is valid for writes, initialised or not,
    /// and may alias `a` or `b`.
    unsafe fn add_raw(dst: *mut Self, a: *const Self, b: *const Self);
    /// `*dst = *a − *b`.
    ///
    /// # Safety
    /// As [`Fp2Arith::add_raw`].
    unsafe fn sub_raw(dst: *mut Self, a: *const Self, b: *const Self);
    /// `*dst = *a · *b`.
    ///
    /// # Safety
    /// As [`Fp2Arith::add_raw`].
    unsafe fn mul_raw(dst: *mut Self, a: *const Self, b: *const Self);
    /// `*dst = *a / *b`; `*b` must not be zero (the chip's result is unconstrained then).
    ///
    /// # Safety
    /// As [`Fp2Arith::add_raw`].
    unsafe fn div_raw(dst: *mut Self, a: *const Self, b: *const Self);
    /// `self = self̄`, the `p`-power Frobenius map.
    fn conj_assign(&mut self);

    /// `dst = self + b`.
    #[inline(always)]
    fn add_to(&self, b: &Self, dst: &mut Self) {
        // SAFETY: references are valid; dst is distinct from both by borrowing.
        unsafe { Self::add_raw(dst, self, b) }
    }
    /// `dst = self − b`.
    #[inline(always)]
    fn sub_to(&self, b: &Self, dst: &mut Self) {
        // SAFETY: as in `add_to`.
        unsafe { Self::sub_raw(dst, self, b) }
    }
    /// `dst = self · b`.
    #[inline(always)]
    fn mul_to(&self, b: &Self, dst: &mut Self) {
        // SAFETY: as in `add_to`.
        unsafe { Self::mul_raw(dst, self, b) }
    }
    /// `dst = self / b`, `b ≠ 0`.
    #[inline(always)]
    fn div_to(&self, b: &Self, dst: &mut Self) {
        // SAFETY: as in `add_to`.
        unsafe { Self::div_raw(dst, self, b) }
    }
    /// `dst = self · ξ`.
    #[inline(always)]
    fn mul_by_nonresidue_to(&self, dst: &mut Self) {
        self.mul_to(Self::xi(), dst)
    }
    /// `self += b`.
    #[inline(always)]
    fn add_assign(&mut self, b: &Self) {
        let p: *mut Self = self;
        // SAFETY: `p` is valid; the raw operation allows dst to alias an operand.
        unsafe { Self::add_raw(p, p, b) }
    }
    /// `self −= b`.
    #[inline(always)]
    fn sub_assign(&mut self, b: &Self) {
        let p: *mut Self = self;
        // SAFETY: as in `add_assign`.
        unsafe { Self::sub_raw(p, p, b) }
    }
    /// `self = a − self`.
    #[inline(always)]
    fn rsub_assign(&mut self, a: &Self) {
        let p: *mut Self = self;
        // SAFETY: as in `add_assign`.
        unsafe { Self::sub_raw(p, a, p) }
    }
    /// `self ·= b`.
    #[inline(always)]
    fn mul_assign(&mut self, b: &Self) {
        let p: *mut Self = self;
        // SAFETY: as in `add_assign`.
        unsafe { Self::mul_raw(p, p, b) }
    }
    /// `self /= b`, `b ≠ 0`.
    #[inline(always)]
    fn div_assign(&mut self, b: &Self) {
        let p: *mut Self = self;
        // SAFETY: as in `add_assign`.
        unsafe { Self::div_raw(p, p, b) }
    }
    /// `self = self²`.
    #[inline(always)]
    fn square_assign(&mut self) {
        let p: *mut Self = self;
        // SAFETY: as in `add_assign`.
        unsafe { Self::mul_raw(p, p, p) }
    }
    /// `self = −self`.
    #[inline(always)]
    fn neg_assign(&mut self) {
        self.rsub_assign(Self::zero())
    }
    /// `self = src`, as one chip addition (cheaper in the VM than a 64-byte `memcpy`).
    #[inline(always)]
    fn set(&mut self, src: &Self) {
        src.add_to(Self::zero(), self)
    }

    /// `self + b`, by value (for cold code).
    fn add(&self, b: &Self) -> Self {
        let mut r = Self::ZERO;
        self.add_to(b, &mut r);
        r
    }
    /// `self − b`, by value (for cold code).
    fn sub(&self, b: &Self) -> Self {
        let mut r = Self::ZERO;
        self.sub_to(b, &mut r);
        r
    }
    /// `self · b`, by value (for cold code).
    fn mul(&self, b: &Self) -> Self {
        let mut r = Self::ZERO;
        self.mul_to(b, &mut r);
        r
    }
    /// `self / b`, by value (for cold code), `b ≠ 0`.
    fn div(&self, b: &Self) -> Self {
        let mut r = Self::ZERO;
        self.div_to(b, &mut r);
        r
    }
    /// `self^e` for a big-endian exponent.
    fn pow_be(&self, exponent: &[u8]) -> Self {
        let mut acc = Self::ONE;
        for byte in exponent {
            for bit in (0..8).rev() {
                acc.square_assign();
                if (byte >> bit) & 1 == 1 {
                    acc.mul_assign(self);
                }
            }
        }
        acc
    }
}

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

/// A temporary an operation writes before anything reads it. Zero-filling a 64-byte `Fp2`
/// (or a 192-byte `Fp6`) is a `memset` call that costs more guest instructions than the chip
/// operation that then overwrites it.
struct Tmp<T>(MaybeUninit<T>);

impl<T> Tmp<T> {
    #[inline(always)]
    fn new() -> Self {
        Self(MaybeUninit::uninit())
    }
    #[inline(always)]
    fn w(&mut self) -> *mut T {
        self.0.as_mut_ptr()
    }
    #[inline(always)]
    fn r(&self) -> *const T {
        self.0.as_ptr()
    }
}

/// Pointer to coefficient `i` of an `Fp6`.
///
/// # Safety
/// `p` points into an allocation holding an `Fp6` (initialised or not); `i < 3`.
#[inline(always)]
unsafe fn at<F>(p: *const Fp6<F>, i: usize) -> *const F {
    // SAFETY: per the contract; the array's elements are contiguous.
    unsafe { addr_of!((*p).c).cast::<F>().add(i) }
}

/// Mutable pointer to coefficient `i` of an `Fp6`.
///
/// # Safety
/// As [`at`].
#[inline(always)]
unsafe fn at_mut<F>(p: *mut Fp6<F>, i: usize) -> *mut F {
    // SAFETY: per the contract.
    unsafe { addr_of_mut!((*p).c).cast::<F>().add(i) }
}

/// `Fp6` arithmetic on raw pointers, so destinations can be uninitialised temporaries and
/// may alias operands where noted. Every function's safety contract: the pointers are valid,
/// the operands initialised, and the destination writable.
impl<F: Fp2Arith> Fp6<F> {
    const ZERO: Self = Self {
        c: [F::ZERO, F::ZERO, F::ZERO],
    };
    const ONE: Self = Self {
        c: [F::ONE, F::ZERO, F::ZERO],
    };

    /// `*d = *a + *b`; `d` may alias either.
    #[inline(always)]
    unsafe fn add_raw(d: *mut Self, a: *const Self, b: *const Self) {
        for i in 0..3 {
            // SAFETY: per the impl's contract.
            unsafe { F::add_raw(at_mut(d, i), at(a, i), at(b, i)) }
        }
    }

    /// `*d = *a − *b`; `d` may alias either.
    #[inline(always)]
    unsafe fn sub_raw(d: *mut Self, a: *const Self, b: *const Self) {
        for i in 0..3 {
            // SAFETY: per the impl's contract.
            unsafe { F::sub_raw(at_mut(d, i), at(a, i), at(b, i)) }
        }
    }

    /// `*d = −*d`.
    #[inline(always)]
    unsafe fn neg_raw(d: *mut Self) {
        for i in 0..3 {
            // SAFETY: per the impl's contract.
            unsafe { F::sub_raw(at_mut(d, i), F::zero(), at(d, i)) }
        }
    }

    /// `*d = *a + *b·v` (`b·v = ξ·b2 + b0·v + b1·v²`); `d` may alias `a`, not `b`.
    #[inline(always)]
    unsafe fn add_v_raw(d: *mut Self, a: *const Self, b: *const Self) {
        let mut t = Tmp::<F>::new();
        // SAFETY: per the impl's contract; `t` is written before it is read.
        unsafe {
            F::mul_raw(t.w(), at(b, 2), F::xi());
            F::add_raw(at_mut(d, 0), at(a, 0), t.r());
            F::add_raw(at_mut(d, 2), at(a, 2), at(b, 1));
            F::add_raw(at_mut(d, 1), at(a, 1), at(b, 0));
        }
    }

    /// `*d = *d − *b·v`; `d` must not alias `b`.
    #[inline(always)]
    unsafe fn sub_v_raw(d: *mut Self, b: *const Self) {
        let mut t = Tmp::<F>::new();
        // SAFETY: per the impl's contract; `t` is written before it is read.
        unsafe {
            F::mul_raw(t.w(), at(b, 2), F::xi());
            F::sub_raw(at_mut(d, 0), at(d, 0), t.r());
            F::sub_raw(at_mut(d, 1), at(d, 1), at(b, 0));
            F::sub_raw(at_mut(d, 2), at(d, 2), at(b, 1));
        }
    }

    /// `*d = *a · *b`, Karatsuba: 6 `Fp2` products. Everything read from `a` is read before
    /// `d` is written, so `d` may alias `a`; it must not alias `b`.
    unsafe fn mul_raw(d: *mut Self, a: *const Self, b: *const Self) {
        let (mut t0, mut t1, mut t2) = (Tmp::<F>::new(), Tmp::<F>::new(), Tmp::<F>::new());
        let (mut s12, mut s01, mut s02) = (Tmp::<F>::new(), Tmp::<F>::new(), Tmp::<F>::new());
        let mut u = Tmp::<F>::new();
        // SAFETY: per the impl's contract; each temporary is written before it is read.
        unsafe {
            let (a0, a1, a2) = (at(a, 0), at(a, 1), at(a, 2));
            let (b0, b1, b2) = (at(b, 0), at(b, 1), at(b, 2));
            F::mul_raw(t0.w(), a0, b0);
            F::mul_raw(t1.w(), a1, b1);
            F::mul_raw(t2.w(), a2, b2);
            F::add_raw(s12.w(), a1, a2);
            F::add_raw(s01.w(), a0, a1);
            F::add_raw(s02.w(), a0, a2);
            let (d0, d1, d2) = (at_mut(d, 0), at_mut(d, 1), at_mut(d, 2));
            // c0 = t0 + ξ((a1 + a2)(b1 + b2) − t1 − t2)
            F::add_raw(u.w(), b1, b2);
            F::mul_raw(s12.w(), s12.r(), u.r());
            F::sub_raw(s12.w(), s12.r(), t1.r());
            F::sub_raw(s12.w(), s12.r(), t2.r());
            F::mul_raw(d0, s12.r(), F::xi());
            F::add_raw(d0, d0, t0.r());
            // c1 = (a0 + a1)(b0 + b1) − t0 − t1 + ξ t2
            F::add_raw(u.w(), b0, b1);
            F::mul_raw(s01.w(), s01.r(), u.r());
            F::sub_raw(s01.w(), s01.r(), t0.r());
            F::sub_raw(s01.w(), s01.r(), t1.r());
            F::mul_raw(d1, t2.r(), F::xi());
            F::add_raw(d1, d1, s01.r());
            // c2 = (a0 + a2)(b0 + b2) − t0 − t2 + t1
            F::add_raw(u.w(), b0, b2);
            F::mul_raw(s02.w(), s02.r(), u.r());
            F::sub_raw(s02.w(), s02.r(), t0.r());
            F::sub_raw(s02.w(), s02.r(), t2.r());
            F::add_raw(d2, s02.r(), t1.r());
        }
    }

    /// `*d = *x · (b + c·v)`: 6 `Fp2` products; `d` must not alias `x`.
    #[inline(always)]
    unsafe fn mul_by_01_raw(d: *mut Self, x: *const Self, b: &F, c: &F) {
        let mut t = Tmp::<F>::new();
        // SAFETY: per the impl's contract; `t` is written before it is read.
        unsafe {
            let (x0, x1, x2) = (at(x, 0), at(x, 1), at(x, 2));
            let (d0, d1, d2) = (at_mut(d, 0), at_mut(d, 1), at_mut(d, 2));
            F::mul_raw(d0, x0, b);
            F::mul_raw(t.w(), x2, c);
            F::mul_raw(t.w(), t.r(), F::xi());
            F::add_raw(d0, d0, t.r());
            F::mul_raw(d1, x0, c);
            F::mul_raw(t.w(), x1, b);
            F::add_raw(d1, d1, t.r());
            F::mul_raw(d2, x1, c);
            F::mul_raw(t.w(), x2, b);
            F::add_raw(d2, d2, t.r());
        }
    }

    /// The inverse; `self` must not be zero (cold: once per final exponentiation).
    fn inverse(&self) -> Self {
        let [a0, a1, a2] = &self.c;
        let t0 = a0.mul(a0).sub(&a1.mul(a2).mul(F::xi()));
        let t1 = a2.mul(a2).mul(F::xi()).sub(&a0.mul(a1));
        let t2 = a1.mul(a1).sub(&a0.mul(a2));
        let norm = a0.mul(&t0).add(&a2.mul(&t1).add(&a1.mul(&t2)).mul(F::xi()));
        let inv = F::ONE.div(&norm);
        Self {
            c: [t0.mul(&inv), t1.mul(&inv), t2.mul(&inv)],
        }
    }
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

    /// `self · o`, by value.
    pub fn mul(&self, o: &Self) -> Self {
        let mut r = self.clone();
        r.mul_assign(o);
        r
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

    /// Whether this is 1.
    pub fn is_one(&self) -> bool {
        *self == Self::ONE
    }
}

/// Implements [`Fp2Arith`] for a `complex_declare!` type, given ξ and the four extern
/// functions `complex_declare!` declares for it (`complex_{add,sub,mul,div}_extern_func_<T>`):
/// in the zkVM each operation is one Fp2-chip instruction that writes straight to `dst`; on the
/// host, the macro's software arithmetic. Must be invoked in the module that declared the type
/// (it calls the type's private `set_up_once`).
macro_rules! impl_fp2_arith {
    ($fp2:ident, $xi:expr, $add:ident, $sub:ident, $mul:ident, $div:ident) => {
        impl $crate::tower::Fp2Arith for $fp2 {
            const ZERO: Self = $fp2::ZERO;
            const ONE: Self = $fp2::ONE;

            #[inline(always)]
            fn xi() -> &'static Self {
                static XI_STATIC: $fp2 = $xi;
                &XI_STATIC
            }

            #[inline(always)]
            fn zero() -> &'static Self {
                static ZERO_STATIC: $fp2 = $fp2::ZERO;
                &ZERO_STATIC
            }

            #[inline(always)]
            unsafe fn add_raw(dst: *mut Self, a: *const Self, b: *const Self) {
                #[cfg(target_os = "zkvm")]
                {
                    Self::set_up_once();
                    // SAFETY: the chip reads both operands, then writes dst; all are valid.
                    unsafe { $add(dst as usize, a as usize, b as usize) }
                }
                #[cfg(not(target_os = "zkvm"))]
                {
                    // SAFETY: valid per the contract; the borrows end before the write, which
                    // does not read the (possibly uninitialised) old value.
                    let r = unsafe { &*a + &*b };
                    unsafe { dst.write(r) };
                }
            }

            #[inline(always)]
            unsafe fn sub_raw(dst: *mut Self, a: *const Self, b: *const Self) {
                #[cfg(target_os = "zkvm")]
                {
                    Self::set_up_once();
                    // SAFETY: as in `add_raw`.
                    unsafe { $sub(dst as usize, a as usize, b as usize) }
                }
                #[cfg(not(target_os = "zkvm"))]
                {
                    // SAFETY: as in `add_raw`.
                    let r = unsafe { &*a - &*b };
                    unsafe { dst.write(r) };
                }
            }

            #[inline(always)]
            unsafe fn mul_raw(dst: *mut Self, a: *const Self, b: *const Self) {
                #[cfg(target_os = "zkvm")]
                {
                    Self::set_up_once();
                    // SAFETY: as in `add_raw`.
                    unsafe { $mul(dst as usize, a as usize, b as usize) }
                }
                #[cfg(not(target_os = "zkvm"))]
                {
                    // SAFETY: as in `add_raw`.
                    let r = unsafe { &*a * &*b };
                    unsafe { dst.write(r) };
                }
            }

            #[inline(always)]
            unsafe fn div_raw(dst: *mut Self, a: *const Self, b: *const Self) {
                #[cfg(target_os = "zkvm")]
                {
                    Self::set_up_once();
                    // SAFETY: as in `add_raw`.
                    unsafe { $div(dst as usize, a as usize, b as usize) }
                }
                #[cfg(not(target_os = "zkvm"))]
                {
                    // SAFETY: as in `add_raw`.
                    let r = unsafe { openvm_algebra_guest::DivUnsafe::div_unsafe(&*a, &*b) };
                    unsafe { dst.write(r) };
                }
            }

            #[inline(always)]
            fn conj_assign(&mut self) {
                openvm_algebra_guest::field::ComplexConjugate::conjugate_assign(self)
            }
        }
    };
}
pub(crate) use impl_fp2_arith;
