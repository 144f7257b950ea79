//! The multi-digit arithmetic against num-bigint, step by step, and `MODEXP` against revm's
//! own software (aurora-engine-modexp), seeded.

use alloc::vec;
use alloc::vec::Vec;

use num_bigint::BigUint;
use rand::{rngs::SmallRng, Rng, SeedableRng};
use revm::precompile::{Crypto, DefaultCrypto};

use super::*;

fn big(d: &[Word]) -> BigUint {
    d.iter().rev().fold(BigUint::default(), |acc, w| {
        (acc << 120u32) + BigUint::from_slice(&w[..])
    })
}

fn random_bytes(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.random()).collect()
}

/// Random digits; some all ones or zero, the carries' extremes.
fn random_digits(rng: &mut SmallRng, len: usize) -> Vec<Word> {
    let shape = rng.random_range(0..4);
    (0..len)
        .map(|_| match shape {
            0 => MASK,
            1 if rng.random_bool(0.5) => ZERO,
            _ => {
                let mut w: Word = rng.random();
                word::and_assign(&mut w, &MASK);
                w
            }
        })
        .collect()
}

#[test]
fn digits_round_trip_bytes() {
    let mut rng = SmallRng::seed_from_u64(1);
    for len in [1, 14, 15, 16, 30, 33, 64, 1024] {
        let bytes = random_bytes(&mut rng, len);
        let d = digits(&bytes, 1);
        assert_eq!(d.len(), len.div_ceil(DIGIT_BYTES));
        assert_eq!(big(&d), BigUint::from_bytes_be(&bytes));
        assert_eq!(to_be_bytes(&d, len), bytes);
    }
    assert_eq!(digits(&[], 3), vec![ZERO; 3]);
}

#[test]
fn products_and_squares_match_num_bigint() {
    let mut rng = SmallRng::seed_from_u64(2);
    for _ in 0..200 {
        let (la, lb) = (rng.random_range(1..40), rng.random_range(1..40));
        let (a, b) = (random_digits(&mut rng, la), random_digits(&mut rng, lb));
        let mut out = vec![ZERO; la + lb];
        mul(&mut out, &a, &b);
        assert_eq!(big(&out), big(&a) * big(&b));
        assert!(out.iter().all(is_digit));
        let mut sq = vec![ZERO; 2 * la];
        square(&mut sq, &a);
        assert_eq!(big(&sq), big(&a) * big(&a), "{la}");
        assert!(sq.iter().all(is_digit));
    }
    // 69 digits of 2^120 − 1 (the longest EIP-7823 operand): the fullest columns.
    let a = vec![MASK; 69];
    let mut sq = vec![ZERO; 138];
    square(&mut sq, &a);
    assert_eq!(big(&sq), big(&a) * big(&a));
}

/// A modulus of `len` bytes: odd or even, its top byte anything from 1 up.
fn random_modulus(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    let mut m = random_bytes(rng, len);
    m[0] = match rng.random_range(0..3) {
        0 => 1,
        1 => 0xff,
        _ => rng.random_range(1..=0xff),
    };
    m
}

#[test]
fn remainders_match_num_bigint() {
    let mut rng = SmallRng::seed_from_u64(3);
    for _ in 0..300 {
        let len = rng.random_range(1..200);
        let modulus = random_modulus(&mut rng, len);
        let m = Modulus::new(&modulus);
        let n = m.v.len();
        let x_len = rng.random_range(n..3 * n + 2);
        let mut x = random_digits(&mut rng, x_len);
        let expected = big(&x) % BigUint::from_bytes_be(&modulus);
        x.push(ZERO);
        let mut out = vec![ZERO; n];
        m.reduce(&mut x, &mut out);
        assert_eq!(
            big(&out),
            expected,
            "{}",
            alloy_primitives::hex::encode(&modulus)
        );
        assert!(x[n..].iter().all(|d| *d == ZERO));
    }
}

/// The window's true quotient digit by `v`.
fn true_digit(m: &Modulus, u: &[Word]) -> BigUint {
    big(u) / big(&m.v)
}

#[test]
fn estimates_are_the_digit_or_one_above_and_subtraction_adds_back() {
    let mut rng = SmallRng::seed_from_u64(4);
    let mut above = 0;
    for case in 0..2000 {
        let len = rng.random_range(1..100);
        let m = Modulus::new(&random_modulus(&mut rng, len));
        let n = m.v.len();
        // A window whose top n digits are below v: the top digit v_top or just under it, the
        // estimate's hard cases, or random.
        let mut u = random_digits(&mut rng, n + 1);
        u[n] = match case % 3 {
            0 => m.v[n - 1],
            1 => word::sub(&m.v[n - 1], &ONE),
            _ => word::shr(&m.v[n - 1], &amount(rng.random_range(0..120))),
        };
        if big(&u[1..]) >= big(&m.v) {
            u[n] = word::sub(&m.v[n - 1], &ONE);
        }
        let q = true_digit(&m, &u);
        let estimate = m.estimate(&u);
        let got = big(&[estimate]);
        assert!(got == q || got == &q + 1u32, "case {case}: {got} for {q}");
        above += usize::from(got != q);
        // Subtracting one above the digit goes negative and adds v back.
        let mut window = u.clone();
        let one_above = word::add(
            &word::from_u256(alloy_primitives::U256::from_be_slice(&q.to_bytes_be())),
            &ONE,
        );
        m.subtract(&mut window, &one_above);
        assert_eq!(big(&window), big(&u) - &q * big(&m.v), "case {case}");
        assert!(window.iter().all(is_digit));
    }
    // The second digit's test is what brings the estimate to within one.
    assert!(above < 2000);
}

/// revm's own answer, padded to the modulus' length as the precompile pads it.
fn reference(base: &[u8], exp: &[u8], modulus: &[u8]) -> Vec<u8> {
    let out = DefaultCrypto.modexp(base, exp, modulus).unwrap();
    let mut padded = vec![0; modulus.len() - out.len().min(modulus.len())];
    padded.extend_from_slice(&out[out.len().saturating_sub(modulus.len())..]);
    padded
}

#[test]
fn modexp_matches_revm_on_random_inputs() {
    let mut rng = SmallRng::seed_from_u64(5);
    for case in 0..150 {
        let len = [33, 45, 46, 64, 100, 255, 256, 512][case % 8];
        let modulus = random_modulus(&mut rng, len);
        let base_len = [0, 1, len - 1, len, len + 20, 3 * len][rng.random_range(0..6)];
        let base = random_bytes(&mut rng, base_len);
        let exp_len = [0, 1, 2, 8, 9, 32, 40][rng.random_range(0..7)];
        let exp = random_bytes(&mut rng, exp_len);
        assert_eq!(
            modexp(&base, &exp, &modulus),
            reference(&base, &exp, &modulus),
            "case {case}"
        );
    }
}

#[test]
fn modexp_matches_revm_at_the_edges() {
    let mut rng = SmallRng::seed_from_u64(6);
    // EIP-7823's longest modulus, squared; m − 1 squared and cubed; base m; powers of two;
    // all-ones.
    let m1024 = random_modulus(&mut rng, 1024);
    let mut even = m1024.clone();
    even[1023] &= 0xfe;
    let mut two_k = vec![0u8; 64];
    two_k[0] = 0x80;
    let ones = vec![0xff; 97];
    for modulus in [m1024, even, two_k, ones] {
        let minus_one = {
            let x = BigUint::from_bytes_be(&modulus) - 1u32;
            x.to_bytes_be()
        };
        let base = random_bytes(&mut rng, modulus.len());
        for (b, e) in [
            (&base[..], &[2u8][..]),
            (&minus_one, &[2]),
            (&minus_one, &[3]),
            (&modulus, &[5]),
            (&base, &[0]),
            (&[], &[7]),
            (&base, &[0xff; 12]),
        ] {
            assert_eq!(modexp(b, e, &modulus), reference(b, e, &modulus));
        }
    }
}
