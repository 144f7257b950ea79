//! `MODEXP` for a modulus of more than 32 significant bytes, on the Int256 chip.
//!
//! Why by hand: revm's software (aurora-engine-modexp) multiplies 64-bit limbs on the 32-bit
//! core, where one 64×64-bit product and its carries take about thirty instructions; a
//! 1,024-byte modulus measured 4.8 times mainnet's main cells per gas under Osaka's pricing
//! (BENCHMARKS.md, "Worst cases"). The chip multiplies two 256-bit words in one instruction, and
//! no crate builds multi-word arithmetic on it.
//!
//! - **Digits of 120 bits, one per chip word.** A digit product is below `2^240`, so a
//!   product's column sums in one word with no carry handling until the column ends (a
//!   1,024-byte number has 69 digits; a word holds `2^16` products), and a term costs two chip
//!   instructions, a multiply and an add, on operands that stay in memory, where the chip reads
//!   and writes them: no loads, stores or copies. A square computes each cross term once.
//! - **Reduction by long division** (Knuth's algorithm D) on the same digits: the divisor is
//!   shifted until its top digit's top bit is set; each quotient digit is estimated from a
//!   reciprocal of that top digit (one software division per call), corrected exactly, refined
//!   with the second digit (then it is the true digit or one above it) and subtracted in one
//!   pass with a signed carry, adding the divisor back in the rare case it was one above.
//! - One algorithm for odd and even moduli alike. Montgomery's reduction would save most of
//!   the division's cost on odd moduli, but entering its form takes a division per call, which
//!   is all a short exponent (`x²`, EIP-7883's cheapest shapes) does.

use alloc::vec;
use alloc::vec::Vec;

use alloy_primitives::U256;

use super::window::{self, Step};
use super::word::{self, Word, ONE, ZERO};

/// Bytes per digit.
const DIGIT_BYTES: usize = 15;
/// `2^120 − 1`: a digit's bits.
const MASK: Word = [u32::MAX, u32::MAX, u32::MAX, 0x00ff_ffff, 0, 0, 0, 0];
/// 120, as a shift amount.
const SHIFT: Word = amount(120);

/// `bits` as a shift amount.
const fn amount(bits: u32) -> Word {
    [bits, 0, 0, 0, 0, 0, 0, 0]
}

/// `base^exp mod m` as big-endian bytes as long as `modulus`, which starts with a non-zero
/// byte and is longer than 32 bytes.
pub(crate) fn modexp(base: &[u8], exp: &[u8], modulus: &[u8]) -> Vec<u8> {
    let m = Modulus::new(modulus);
    let acc = if window::windowed(exp) {
        pow::<4>(&m, base, exp)
    } else {
        pow::<1>(&m, base, exp)
    };
    to_be_bytes(&acc, modulus.len())
}

/// `base^exp mod m` over `WIDTH`-bit exponent digits, as `m`'s digits.
fn pow<const WIDTH: u32>(m: &Modulus, base: &[u8], exp: &[u8]) -> Vec<Word> {
    let n = m.v.len();
    // `table[(d − 1)·n..][..n] = base^d mod m` for each non-zero digit `d`.
    let digits_used = (1 << WIDTH) - 1;
    let mut table = vec![ZERO; digits_used * n];
    let mut b = digits(base, n);
    b.push(ZERO);
    m.reduce(&mut b, &mut table[..n]);
    // A product of two residues, and the spare top digit `reduce` needs.
    let mut x = vec![ZERO; 2 * n + 1];
    for d in 2..=digits_used {
        let (done, next) = table.split_at_mut((d - 1) * n);
        m.mul(&mut x, &done[(d - 2) * n..], &done[..n], &mut next[..n]);
    }
    let mut acc = vec![ZERO; n];
    // base^0 = 1 < m.
    acc[0] = ONE;
    window::walk::<WIDTH>(exp, |step| match step {
        Step::First(d) => acc.copy_from_slice(&table[(d - 1) * n..][..n]),
        Step::Square => {
            square(&mut x[..2 * n], &acc);
            m.reduce(&mut x, &mut acc);
        }
        Step::Mul(d) => {
            mul(&mut x[..2 * n], &acc, &table[(d - 1) * n..][..n]);
            m.reduce(&mut x, &mut acc);
        }
    });
    acc
}

/// The big-endian number `bytes` as digits, least significant first, at least `min` of them.
fn digits(bytes: &[u8], min: usize) -> Vec<Word> {
    let mut d: Vec<Word> = bytes
        .rchunks(DIGIT_BYTES)
        .map(word::from_be_slice)
        .collect();
    if d.len() < min {
        d.resize(min, ZERO);
    }
    d
}

/// The low `len` bytes of the digits `d`, big-endian.
fn to_be_bytes(d: &[Word], len: usize) -> Vec<u8> {
    (0..len)
        .rev()
        .map(|i| {
            let (digit, byte) = (i / DIGIT_BYTES, i % DIGIT_BYTES);
            d.get(digit)
                .map_or(0, |w| (w[byte / 4] >> (8 * (byte % 4))) as u8)
        })
        .collect()
}

/// Writes a column's low digit and keeps its carry: `digit = acc mod 2^120`, `acc >>= 120`.
#[inline(always)]
fn settle(digit: &mut Word, acc: &mut Word) {
    word::and_to(digit, acc, &MASK);
    word::shr_assign(acc, &SHIFT);
}

/// `out = a·b`, `out` of `a.len() + b.len()` digits, by columns. A column sums at most
/// `min(a.len(), b.len())` products below `2^240` and a carry below `2^136`: below `2^256`
/// for fewer than `2^16` digits.
fn mul(out: &mut [Word], a: &[Word], b: &[Word]) {
    let (la, lb) = (a.len(), b.len());
    debug_assert_eq!(out.len(), la + lb);
    let mut acc = ZERO;
    let mut t = ZERO;
    for k in 0..la + lb - 1 {
        let lo = (k + 1).saturating_sub(lb);
        let hi = k.min(la - 1);
        for (x, y) in a[lo..=hi].iter().zip(b[k - hi..=k - lo].iter().rev()) {
            word::mul_to(&mut t, x, y);
            word::add_assign(&mut acc, &t);
        }
        settle(&mut out[k], &mut acc);
    }
    out[la + lb - 1] = acc;
}

/// `out = a²`, `out` of `2·a.len()` digits: each column's cross terms `a_i·a_j` (`i < j`)
/// summed once and doubled, then its square term. The doubled sum stays below `2^248`.
fn square(out: &mut [Word], a: &[Word]) {
    let n = a.len();
    debug_assert_eq!(out.len(), 2 * n);
    let mut acc = ZERO;
    let mut cross = ZERO;
    let mut t = ZERO;
    for k in 0..2 * n - 1 {
        // Pairs `i < j = k − i`, both below n.
        let lo = (k + 1).saturating_sub(n);
        if k >= 1 && lo <= (k - 1) / 2 {
            let top = (k - 1) / 2;
            let mut pairs = a[lo..=top].iter().zip(a[k - top..=k - lo].iter().rev());
            if let Some((x, y)) = pairs.next() {
                word::mul_to(&mut cross, x, y);
            }
            for (x, y) in pairs {
                word::mul_to(&mut t, x, y);
                word::add_assign(&mut cross, &t);
            }
            word::add_assign(&mut acc, &cross);
            word::add_assign(&mut acc, &cross);
        }
        if k % 2 == 0 {
            let x = &a[k / 2];
            word::mul_to(&mut t, x, x);
            word::add_assign(&mut acc, &t);
        }
        settle(&mut out[k], &mut acc);
    }
    out[2 * n - 1] = acc;
}

/// Shifts the digits left by `shift` bits (below 120) in place; `back` is `120 − shift`. The
/// top digit's bits shifted out must be zero.
fn shift_left(x: &mut [Word], shift: &Word, back: &Word) {
    let mut t = ZERO;
    for i in (1..x.len()).rev() {
        let (low, high) = x.split_at_mut(i);
        shl_digit(&mut high[0], shift, &mut t);
        word::shr_to(&mut t, &low[i - 1], back);
        word::add_assign(&mut high[0], &t);
    }
    shl_digit(&mut x[0], shift, &mut t);
}

/// `x = (x << shift) mod 2^120`; `t` is scratch.
#[inline(always)]
fn shl_digit(x: &mut Word, shift: &Word, t: &mut Word) {
    word::shl_to(t, x, shift);
    word::and_to(x, t, &MASK);
}

/// Shifts the digits right by `shift` bits in place; `back` is `120 − shift`.
fn shift_right(x: &mut [Word], shift: &Word, back: &Word) {
    let mut t = ZERO;
    for i in 0..x.len() - 1 {
        let (low, high) = x.split_at_mut(i + 1);
        word::shl_to(&mut t, &high[0], back);
        word::and_assign(&mut t, &MASK);
        word::shr_assign(&mut low[i], shift);
        word::add_assign(&mut low[i], &t);
    }
    if let Some(top) = x.last_mut() {
        word::shr_assign(top, shift);
    }
}

/// Whether a word is below `2^120`.
#[inline(always)]
fn is_digit(w: &Word) -> bool {
    w[3] >> 24 == 0 && w[4..].iter().all(|l| *l == 0)
}

/// A modulus prepared for remainders: shifted left until its top digit's top bit is set
/// (Knuth's normalisation), with a reciprocal of that digit.
struct Modulus {
    /// `m·2^s`, as many digits as `m`.
    v: Vec<Word>,
    /// `s`, as a shift amount.
    shift: Word,
    /// `120 − s`.
    back: Word,
    /// `⌊(2^240 − 1) / v_top⌋`, in `(2^120, 2^121]`.
    inv: Word,
}

impl Modulus {
    /// `modulus` big-endian, starting with a non-zero byte.
    fn new(modulus: &[u8]) -> Self {
        let mut v = digits(modulus, 1);
        let top = word::to_u256(&v[v.len() - 1]);
        let s = top.leading_zeros() as u32 - (256 - 120);
        let (shift, back) = (amount(s), amount(120 - s));
        shift_left(&mut v, &shift, &back);
        let top = word::to_u256(&v[v.len() - 1]);
        let inv = word::from_u256((U256::MAX >> 16) / top);
        Self {
            v,
            shift,
            back,
            inv,
        }
    }

    /// `out = a·b mod m` for residues `a`, `b`; `x` is scratch of `2n + 1` digits.
    fn mul(&self, x: &mut [Word], a: &[Word], b: &[Word], out: &mut [Word]) {
        let n = self.v.len();
        mul(&mut x[..2 * n], a, b);
        self.reduce(x, out);
    }

    /// `out = x mod m` (`n` digits). `x` has at least `n + 1` digits, its top one zero, and is
    /// left all zero but for its low `n` digits.
    fn reduce(&self, x: &mut [Word], out: &mut [Word]) {
        let n = self.v.len();
        debug_assert!(x.len() > n && x[x.len() - 1] == ZERO);
        shift_left(x, &self.shift, &self.back);
        // The window's top n digits are below v: the spare digit holds only the shift's
        // overflow, below 2^s ≤ v's top digit.
        for j in (0..x.len() - n).rev() {
            let window = &mut x[j..=j + n];
            let q = self.estimate(window);
            self.subtract(window, &q);
        }
        shift_right(&mut x[..n], &self.shift, &self.back);
        out.copy_from_slice(&x[..n]);
    }

    /// The quotient digit of the window `u` (`n + 1` digits, the top `n` below `v`) by `v`:
    /// the true digit or one above it (Knuth's theorem B, `v` normalised).
    fn estimate(&self, u: &[Word]) -> Word {
        let n = self.v.len();
        let top = &self.v[n - 1];
        let (mut num, mut q, mut r, mut t) = (ZERO, ZERO, ZERO, ZERO);
        // num = u_n·2^120 + u_{n−1} < 2^240 (u_n ≤ v_top < 2^120).
        word::shl_to(&mut num, &u[n], &SHIFT);
        word::add_assign(&mut num, &u[n - 1]);
        // q = ⌊⌊num/2^119⌋·inv / 2^121⌋ (the product is below 2^242) is ⌊num/v_top⌋ or up to
        // three below: each floor loses less than one, and num/2^240 and inv·v_top/2^240 are
        // below 1 and 2.
        word::shr_to(&mut q, &num, &amount(119));
        word::mul_assign(&mut q, &self.inv);
        word::shr_assign(&mut q, &amount(121));
        word::mul_to(&mut t, &q, top);
        word::sub_to(&mut r, &num, &t);
        while !word::lt(&r, top) {
            word::sub_assign(&mut r, top);
            word::add_assign(&mut q, &ONE);
        }
        // Now q = ⌊num/v_top⌋ ≤ 2^120 + 1 and r = num − q·v_top. Knuth's test against the
        // second digit; a single-digit v needs none (the window's top digit is below v_top,
        // so q is the true digit).
        if n >= 2 {
            loop {
                let too_big = !is_digit(&q) || {
                    word::mul_to(&mut t, &q, &self.v[n - 2]);
                    word::shl_to(&mut num, &r, &SHIFT);
                    word::add_assign(&mut num, &u[n - 2]);
                    word::lt(&num, &t)
                };
                if !too_big {
                    break;
                }
                word::sub_assign(&mut q, &ONE);
                word::add_assign(&mut r, top);
                if !is_digit(&r) {
                    break;
                }
            }
        }
        q
    }

    /// `u −= q·v` on the window `u` (`n + 1` digits), `q` the true quotient digit or one above
    /// it: one pass with a signed carry, then `v` added back if the difference went negative.
    /// Leaves the top digit zero.
    fn subtract(&self, u: &mut [Word], q: &Word) {
        let n = self.v.len();
        let (low, high) = u.split_at_mut(n);
        let (mut c, mut t) = (ZERO, ZERO);
        for (digit, vi) in low.iter_mut().zip(&self.v) {
            // c + u_i − q·v_i lies in (−2^242, 2^120): two's complement in the word.
            word::mul_to(&mut t, q, vi);
            word::add_assign(&mut c, digit);
            word::sub_assign(&mut c, &t);
            word::and_to(digit, &c, &MASK);
            word::sra_assign(&mut c, &SHIFT);
        }
        word::add_assign(&mut c, &high[0]);
        // The difference lies in [−v, v): its top digit c is 0, or −1 when q was one above.
        if c[7] >> 31 == 1 {
            let mut carry = ZERO;
            for (digit, vi) in low.iter_mut().zip(&self.v) {
                word::add_assign(&mut carry, digit);
                word::add_assign(&mut carry, vi);
                settle(digit, &mut carry);
            }
        }
        high[0] = ZERO;
    }
}

#[cfg(test)]
mod tests;
