//! Rings of residues on 256-bit chip words, and exponentiation in them.
//!
//! The Int256 chip multiplies two words to the low 256 bits of their product and has no
//! modular product, so reduction is Montgomery's: for an odd `m` and `R` a power of two,
//! `REDC(T) = (T + q·m) / R` with `q = T·(−m⁻¹) mod R` is `T·R⁻¹ mod m` in a handful of
//! chip products and no division.
//! - [`Narrow`] (`m < 2^128`, `R = 2^128`): `a·b` is exact in one word, so a product is
//!   nine chip instructions.
//! - [`Wide`] (`m < 2^256`, `R = 2^256`): the 512-bit product's high word comes from four
//!   products of 128-bit halves; a product is about thirty-five.
//! - [`Pow2`]: residues mod `2^256`, whose product is one wrapping multiply. The even part of
//!   an even modulus lives there.

use alloy_primitives::U256;

use super::window::{self, Step};
use super::word::{self, from_u256, to_u256, Word, HALF_BITS, LOW_MASK, ONE, ZERO};

/// A ring in which [`pow`] exponentiates.
pub(crate) trait Ring {
    /// The ring's 1, in its representation.
    fn one(&self) -> Word;
    /// The product of two elements in the representation.
    fn mul(&self, a: &Word, b: &Word) -> Word;
}

/// `base^exp` in `ring`, `exp` big-endian of any length, in [`window`]'s order.
pub(crate) fn pow<R: Ring>(ring: &R, base: &Word, exp: &[u8]) -> Word {
    if window::windowed(exp) {
        pow_by::<R, 4>(ring, base, exp)
    } else {
        pow_by::<R, 1>(ring, base, exp)
    }
}

/// [`pow`] over `WIDTH`-bit digits.
fn pow_by<R: Ring, const WIDTH: u32>(ring: &R, base: &Word, exp: &[u8]) -> Word {
    // `table[d] = base^d` for every digit `d` (only `base` itself a bit at a time).
    let mut table = [*base; 16];
    if WIDTH > 1 {
        for i in 2..1 << WIDTH {
            table[i] = ring.mul(&table[i - 1], base);
        }
    }
    let mut acc = ring.one();
    window::walk::<WIDTH>(exp, |step| {
        acc = match step {
            Step::First(d) => table[d],
            Step::Square => ring.mul(&acc, &acc),
            Step::Mul(d) => ring.mul(&acc, &table[d]),
        }
    });
    acc
}

/// Residues mod `2^256` (wrapping arithmetic).
pub(crate) struct Pow2;

impl Ring for Pow2 {
    fn one(&self) -> Word {
        ONE
    }

    #[inline(always)]
    fn mul(&self, a: &Word, b: &Word) -> Word {
        word::mul(a, b)
    }
}

/// `m⁻¹ mod 2^256` for an odd `m`, by Newton's iteration `x ← x·(2 − m·x)`: `m` is its own
/// inverse mod 8, and each step doubles the correct bits (3 → 384 in seven).
pub(crate) fn inverse_mod_r(m: &Word) -> Word {
    let two = [2, 0, 0, 0, 0, 0, 0, 0];
    let mut x = *m;
    for _ in 0..7 {
        let t = word::mul(m, &x);
        let e = word::sub(&two, &t);
        word::mul_assign(&mut x, &e);
    }
    x
}

/// `−m⁻¹ mod 2^256`.
fn neg_inverse(m: &Word) -> Word {
    word::sub(&ZERO, &inverse_mod_r(m))
}

/// `2^256 mod m` (`m > 0`), in software: a one-off division per call.
fn two_256_mod(m: &Word) -> U256 {
    let m = to_u256(m);
    (U256::MAX % m + U256::from(1)) % m
}

/// Montgomery form mod an odd `m` with `R = 2^(8·CHUNK)`.
pub(crate) trait Montgomery: Ring {
    /// Bytes per chunk when a long number is brought in: `R = 2^(8·CHUNK)`.
    const CHUNK: usize;
    /// The modulus.
    fn modulus(&self) -> &Word;
    /// `R² mod m`.
    fn r2(&self) -> &Word;

    /// `a + b mod m`, both reduced.
    fn add(&self, a: &Word, b: &Word) -> Word {
        let mut s = word::add(a, b);
        if word::lt(&s, a) || !word::lt(&s, self.modulus()) {
            word::sub_assign(&mut s, self.modulus());
        }
        s
    }

    /// The big-endian number `bytes` (any length) in Montgomery form, by Horner's rule over
    /// `CHUNK`-byte chunks: `x·R + c ↦ REDC(x̃·R²) + REDC(c·R²)`. `c < R` and `R² mod m < m`
    /// keep every product below `m·R`, as REDC needs.
    fn enter(&self, bytes: &[u8]) -> Word {
        let start = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len());
        let bytes = &bytes[start..];
        let head = match bytes.len() % Self::CHUNK {
            0 => Self::CHUNK.min(bytes.len()),
            n => n,
        };
        let (first, rest) = bytes.split_at(head);
        let mut acc = self.mul(&word::from_be_slice(first), self.r2());
        for chunk in rest.chunks(Self::CHUNK) {
            let c = self.mul(&word::from_be_slice(chunk), self.r2());
            acc = self.mul(&acc, self.r2());
            acc = self.add(&acc, &c);
        }
        acc
    }

    /// Leaves Montgomery form: `REDC(x̃)`.
    fn leave(&self, x: &Word) -> Word {
        self.mul(x, &ONE)
    }
}

/// Montgomery arithmetic mod an odd `3 <= m < 2^128`, `R = 2^128`.
pub(crate) struct Narrow {
    m: Word,
    /// `−m⁻¹ mod 2^128`.
    n_prime: Word,
    r2: Word,
    one: Word,
}

impl Narrow {
    pub(crate) fn new(m: &Word) -> Self {
        let mut n_prime = neg_inverse(m);
        word::and_assign(&mut n_prime, &LOW_MASK);
        let r = (U256::from(1) << 128) % to_u256(m);
        Self {
            m: *m,
            n_prime,
            r2: from_u256(two_256_mod(m)),
            one: from_u256(r),
        }
    }
}

impl Ring for Narrow {
    fn one(&self) -> Word {
        self.one
    }

    /// `REDC(a·b)` for `a, b < m`: `a·b < m² < m·R` is exact in a word, `q·m < R·m`, and
    /// `(a·b + q·m)/R < 2m` may carry out of the word, into bit 128 after the shift.
    #[inline(always)]
    fn mul(&self, a: &Word, b: &Word) -> Word {
        let t = word::mul(a, b);
        let mut q = word::mul(&t, &self.n_prime);
        word::and_assign(&mut q, &LOW_MASK);
        let mut s = word::mul(&q, &self.m);
        word::add_assign(&mut s, &t);
        let carry = word::lt(&s, &t);
        word::shr_assign(&mut s, &HALF_BITS);
        if carry {
            s[4] = 1;
        }
        if !word::lt(&s, &self.m) {
            word::sub_assign(&mut s, &self.m);
        }
        s
    }
}

impl Montgomery for Narrow {
    const CHUNK: usize = 16;

    fn modulus(&self) -> &Word {
        &self.m
    }

    fn r2(&self) -> &Word {
        &self.r2
    }
}

/// Montgomery arithmetic mod an odd `3 <= m < 2^256`, `R = 2^256`.
pub(crate) struct Wide {
    m: Word,
    m_lo: Word,
    m_hi: Word,
    /// `−m⁻¹ mod 2^256`.
    n_prime: Word,
    r2: Word,
    one: Word,
}

impl Wide {
    pub(crate) fn new(m: &Word) -> Self {
        let (m_lo, m_hi) = halves(m);
        let r = two_256_mod(m);
        Self {
            m: *m,
            m_lo,
            m_hi,
            n_prime: neg_inverse(m),
            r2: from_u256(r.mul_mod(r, to_u256(m))),
            one: from_u256(r),
        }
    }
}

/// `(x mod 2^128, x >> 128)`.
#[inline(always)]
fn halves(x: &Word) -> (Word, Word) {
    (word::and(x, &LOW_MASK), word::shr(x, &HALF_BITS))
}

/// The high word of `(a1·2^128 + a0)·(b1·2^128 + b0)`, all four halves below `2^128`.
/// `a0·b1 + (a0·b0 >> 128) <= 2^256 − 2^128` cannot wrap; adding `a1·b0` can, and the carry
/// is worth `2^128` after the shift.
#[inline(always)]
fn high(a0: &Word, a1: &Word, b0: &Word, b1: &Word) -> Word {
    let mut low = word::mul(a0, b0);
    let mut mid = word::mul(a0, b1);
    let cross = word::mul(a1, b0);
    let mut hi = word::mul(a1, b1);
    word::shr_assign(&mut low, &HALF_BITS);
    word::add_assign(&mut mid, &low);
    word::add_assign(&mut mid, &cross);
    let carry = word::lt(&mid, &cross);
    word::shr_assign(&mut mid, &HALF_BITS);
    if carry {
        mid[4] = 1;
    }
    word::add_assign(&mut hi, &mid);
    hi
}

impl Ring for Wide {
    fn one(&self) -> Word {
        self.one
    }

    /// `REDC(a·b)` for `a·b < m·R`. With `T = a·b = hi·R + lo`, `lo + (q·m mod R)` is 0 or
    /// exactly `R`, so the quotient is `hi + high(q·m) + (lo ≠ 0)`, below `2m`, which may
    /// carry out of the word when `m > 2^255`.
    fn mul(&self, a: &Word, b: &Word) -> Word {
        let lo = word::mul(a, b);
        let (a0, a1) = halves(a);
        let (b0, b1) = halves(b);
        let hi = high(&a0, &a1, &b0, &b1);
        let q = word::mul(&lo, &self.n_prime);
        let (q0, q1) = halves(&q);
        let qm = high(&q0, &q1, &self.m_lo, &self.m_hi);
        let mut s = word::add(&hi, &qm);
        let mut carry = word::lt(&s, &hi);
        if !word::is_zero(&lo) {
            word::add_assign(&mut s, &ONE);
            carry |= word::is_zero(&s);
        }
        if carry || !word::lt(&s, &self.m) {
            word::sub_assign(&mut s, &self.m);
        }
        s
    }
}

impl Montgomery for Wide {
    const CHUNK: usize = 32;

    fn modulus(&self) -> &Word {
        &self.m
    }

    fn r2(&self) -> &Word {
        &self.r2
    }
}
