//! `MODEXP` for any modulus of at most 32 significant bytes, on the Int256 chip.
//!
//! An odd modulus is Montgomery's ([`Narrow`] below `2^128`, else [`Wide`]). An even one,
//! `m = 2^k·o` with `o` odd, is split as aurora-engine-modexp (revm's software) splits it: the
//! power mod `2^k` is wrapping arithmetic, the power mod `o` is Montgomery's, and the Chinese
//! remainder theorem joins them as `x = r_o + o·((r_2 − r_o)·o⁻¹ mod 2^k)`, which is below
//! `o·2^k = m` without a reduction.

use alloc::vec::Vec;

use super::mont::{inverse_mod_r, pow, Montgomery, Narrow, Pow2, Wide};
use super::word::{self, Word, ONE, ZERO};

/// `base^exp mod m` as big-endian bytes as long as `modulus`, which is non-empty, at most 32
/// bytes and starts with a non-zero byte.
pub(crate) fn modexp(base: &[u8], exp: &[u8], modulus: &[u8]) -> Vec<u8> {
    let m = word::from_be_slice(modulus);
    let r = if m[0] & 1 == 1 {
        odd(base, exp, &m)
    } else {
        even(base, exp, &m)
    };
    word::to_be_bytes(&r, modulus.len())
}

/// `base^exp mod m`, `m` odd.
fn odd(base: &[u8], exp: &[u8], m: &Word) -> Word {
    fn run<M: Montgomery>(ring: M, base: &[u8], exp: &[u8]) -> Word {
        let b = ring.enter(base);
        ring.leave(&pow(&ring, &b, exp))
    }
    if *m == ONE {
        ZERO
    } else if m[4..].iter().all(|l| *l == 0) {
        run(Narrow::new(m), base, exp)
    } else {
        run(Wide::new(m), base, exp)
    }
}

/// `base^exp mod m`, `m` even and non-zero.
fn even(base: &[u8], exp: &[u8], m: &Word) -> Word {
    let k = word::to_u256(m).trailing_zeros();
    let o = word::shr(m, &[k as u32, 0, 0, 0, 0, 0, 0, 0]);
    // `2^k` divides `2^256`: the base's low 32 bytes are all that matter mod `2^k`.
    let low = word::from_be_slice(&base[base.len().saturating_sub(32)..]);
    let mut r2 = pow(&Pow2, &low, exp);
    word::truncate(&mut r2, k);
    if o == ONE {
        return r2;
    }
    let ro = odd(base, exp, &o);
    let mut t = word::sub(&r2, &ro);
    word::mul_assign(&mut t, &inverse_mod_r(&o));
    word::truncate(&mut t, k);
    let mut x = word::mul(&o, &t);
    word::add_assign(&mut x, &ro);
    x
}
