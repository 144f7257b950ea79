//! The quadratic extension field the tower is built on, and the implementation of its
//! operations for a `complex_declare!` type (one Fp2-chip instruction each, written straight to
//! the destination).

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
