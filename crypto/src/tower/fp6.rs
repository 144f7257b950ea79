//! `Fp6 = Fp2[v] / (v³ − ξ)` on raw pointers, so destinations can be uninitialised
//! temporaries (see the parent module on destination passing).

use core::mem::MaybeUninit;
use core::ptr::{addr_of, addr_of_mut};

use super::{Fp2Arith, Fp6};

/// A temporary an operation writes before anything reads it. Zero-filling a 64-byte `Fp2`
/// (or a 192-byte `Fp6`) is a `memset` call that costs more guest instructions than the chip
/// operation that then overwrites it.
pub(super) struct Tmp<T>(MaybeUninit<T>);

impl<T> Tmp<T> {
    #[inline(always)]
    pub(super) fn new() -> Self {
        Self(MaybeUninit::uninit())
    }
    #[inline(always)]
    pub(super) fn w(&mut self) -> *mut T {
        self.0.as_mut_ptr()
    }
    #[inline(always)]
    pub(super) fn r(&self) -> *const T {
        self.0.as_ptr()
    }
}

/// Pointer to coefficient `i` of an `Fp6`.
///
/// # Safety
/// `p` points into an allocation holding an `Fp6` (initialised or not); `i < 3`.
#[inline(always)]
pub(super) unsafe fn at<F>(p: *const Fp6<F>, i: usize) -> *const F {
    // SAFETY: per the contract; the array's elements are contiguous.
    unsafe { addr_of!((*p).c).cast::<F>().add(i) }
}

/// Mutable pointer to coefficient `i` of an `Fp6`.
///
/// # Safety
/// As [`at`].
#[inline(always)]
pub(super) unsafe fn at_mut<F>(p: *mut Fp6<F>, i: usize) -> *mut F {
    // SAFETY: per the contract.
    unsafe { addr_of_mut!((*p).c).cast::<F>().add(i) }
}

/// `Fp6` arithmetic on raw pointers, so destinations can be uninitialised temporaries and
/// may alias operands where noted. Every function's safety contract: the pointers are valid,
/// the operands initialised, and the destination writable.
impl<F: Fp2Arith> Fp6<F> {
    pub(super) const ZERO: Self = Self {
        c: [F::ZERO, F::ZERO, F::ZERO],
    };
    pub(super) const ONE: Self = Self {
        c: [F::ONE, F::ZERO, F::ZERO],
    };

    /// `*d = *a + *b`; `d` may alias either.
    #[inline(always)]
    pub(super) unsafe fn add_raw(d: *mut Self, a: *const Self, b: *const Self) {
        for i in 0..3 {
            // SAFETY: per the impl's contract.
            unsafe { F::add_raw(at_mut(d, i), at(a, i), at(b, i)) }
        }
    }

    /// `*d = *a − *b`; `d` may alias either.
    #[inline(always)]
    pub(super) unsafe fn sub_raw(d: *mut Self, a: *const Self, b: *const Self) {
        for i in 0..3 {
            // SAFETY: per the impl's contract.
            unsafe { F::sub_raw(at_mut(d, i), at(a, i), at(b, i)) }
        }
    }

    /// `*d = −*d`.
    #[inline(always)]
    pub(super) unsafe fn neg_raw(d: *mut Self) {
        for i in 0..3 {
            // SAFETY: per the impl's contract.
            unsafe { F::sub_raw(at_mut(d, i), F::zero(), at(d, i)) }
        }
    }

    /// `*d = *a + *b·v` (`b·v = ξ·b2 + b0·v + b1·v²`); `d` may alias `a`, not `b`.
    #[inline(always)]
    pub(super) unsafe fn add_v_raw(d: *mut Self, a: *const Self, b: *const Self) {
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
    pub(super) unsafe fn sub_v_raw(d: *mut Self, b: *const Self) {
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
    pub(super) unsafe fn mul_raw(d: *mut Self, a: *const Self, b: *const Self) {
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
    pub(super) unsafe fn mul_by_01_raw(d: *mut Self, x: *const Self, b: &F, c: &F) {
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
    pub(super) fn inverse(&self) -> Self {
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
