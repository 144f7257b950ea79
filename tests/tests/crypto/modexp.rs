//! `MODEXP` cases: every modulus the guest computes on the chips (with leading zero bytes
//! too), the exponents SNARK verifiers use (`p − 2` for inverses, `(p + 1)/4` for square
//! roots), 0 and 1, long exponents, bases longer than the modulus or above it; moduli of up to
//! 32 bytes for the Int256 chip (odd, even, powers of two, carrying tops, every length class);
//! longer ones, odd and even, up to EIP-7823's 1,024 bytes (the Int256 chip's multi-digit
//! path); and the zero modulus, which stays in software.

use alloy_primitives::{hex, U512};
use rand::{rngs::SmallRng, Rng};

/// The moduli on the chips, big-endian.
pub const CHIP_MODULI: [&[u8]; 7] = [
    &hex!("30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47"),
    &hex!("30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001"),
    &hex!("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F"),
    &hex!("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"),
    &hex!("FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF"),
    &hex!("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"),
    &hex!("1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB"),
];

/// base length (u16 BE) ‖ exponent length (u16 BE) ‖ base ‖ exponent ‖ modulus.
pub fn input(base: &[u8], exp: &[u8], modulus: &[u8]) -> Vec<u8> {
    let len = |x: &[u8]| u16::try_from(x.len()).unwrap().to_be_bytes();
    [&len(base)[..], &len(exp), base, exp, modulus].concat()
}

/// A number as big-endian bytes of `len`.
fn bytes(x: U512, len: usize) -> Vec<u8> {
    x.to_be_bytes::<64>()[64 - len..].to_vec()
}

/// `m − k`, as long as m.
fn minus(m: &[u8], k: u64) -> Vec<u8> {
    let mut out = m.to_vec();
    let mut borrow = u128::from(k);
    for byte in out.iter_mut().rev() {
        let x = i128::from(*byte) - (borrow & 0xff) as i128;
        borrow >>= 8;
        *byte = x.rem_euclid(256) as u8;
        borrow += u128::from(x < 0);
    }
    assert_eq!(borrow, 0, "k > m");
    out
}

/// The inputs.
pub fn cases(rng: &mut SmallRng) -> Vec<Vec<u8>> {
    let mut cases = Vec::new();
    for m in CHIP_MODULI {
        let base: Vec<u8> = (0..m.len()).map(|_| rng.random()).collect();
        let random_exp: [u8; 32] = rng.random();
        // (p + 1)/4, a square root's exponent for p ≡ 3 mod 4.
        let quarter = (U512::from_be_slice(m) + U512::from(1)) >> 2;
        for exp in [
            minus(m, 2),
            bytes(quarter, m.len()),
            random_exp.to_vec(),
            vec![],
            vec![0; 3],
            vec![1],
        ] {
            cases.push(input(&base, &exp, m));
        }
        // A base longer than the modulus, one equal to it, zero, empty; a 64-byte exponent.
        let long: Vec<u8> = (0..m.len() + 9).map(|_| rng.random()).collect();
        cases.push(input(&long, &random_exp, m));
        cases.push(input(m, &random_exp, m));
        cases.push(input(&[0; 5], &random_exp, m));
        cases.push(input(&[], &random_exp, m));
        let long_exp: Vec<u8> = (0..64).map(|_| rng.random()).collect();
        cases.push(input(&base, &long_exp, m));
        // The modulus with leading zero bytes.
        cases.push(input(&base, &random_exp, &[&[0, 0][..], m].concat()));
    }
    // Moduli on the Int256 chip (up to 32 bytes), one of each shape per length: odd with the
    // top bit set (REDC's sums carry), odd and small at the top, even (the CRT split).
    for len in [1, 2, 7, 8, 15, 16, 17, 24, 31, 32] {
        let mut odd_top: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        odd_top[0] |= 0x80;
        odd_top[len - 1] |= 1;
        let mut odd_low = odd_top.clone();
        odd_low[0] = 1 + rng.random_range(0..0x10);
        let mut even = odd_top.clone();
        even[len - 1] &= 0xf0;
        even[len - 1] |= 0x10;
        for m in [odd_top, odd_low, even] {
            let base_len = rng.random_range(0..=len + 40);
            let base: Vec<u8> = (0..base_len).map(|_| rng.random()).collect();
            let exp_len = [0, 1, 8, 9, 40][rng.random_range(0..5)];
            let exp: Vec<u8> = (0..exp_len).map(|_| rng.random()).collect();
            cases.push(input(&base, &exp, &m));
            // The largest residue squared and cubed.
            cases.push(input(&minus(&m, 1), &[2], &m));
            cases.push(input(&minus(&m, 1), &[3], &m));
        }
    }
    let base: [u8; 32] = rng.random();
    let long_base: Vec<u8> = (0..70).map(|_| rng.random()).collect();
    let exp: [u8; 32] = rng.random();
    let mut all_ones = [0xff; 32];
    let two_255 = [&[0x80][..], &[0; 31]].concat();
    let two_128_plus_1 = [&[1][..], &[0; 15], &[1]].concat();
    for m in [
        &[1][..],
        &[2],
        &[3],
        &[0x80],
        &[0x0c],
        &two_255,
        &all_ones,
        &[0xff; 16],
        &two_128_plus_1,
        &[&[0x03][..], &[0; 20]].concat(),
    ] {
        cases.push(input(&base, &exp, m));
        cases.push(input(&long_base, &exp, m));
        cases.push(input(&[], &exp, m));
        cases.push(input(&base, &[], m));
    }
    all_ones[0] = 0x7f;
    cases.push(input(&long_base, &[0xff; 70], &all_ones));
    // Moduli that stay in software: zero, empty.
    for m in [&[][..], &[0; 32], &[0, 0, 0], &[0; 40]] {
        cases.push(input(&base, &exp, m));
    }
    // Moduli over 32 bytes (multi-digit, on the Int256 chip), odd and even, up to EIP-7823's
    // 1,024: x², m − 1 squared, an exponent of each schedule (bits, 4-bit windows), a base
    // longer than the modulus, a zero base, a leading zero byte.
    for len in [33, 45, 46, 64, 97, 256, 1024] {
        let mut odd: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        odd[0] |= 1;
        odd[len - 1] |= 1;
        let mut even = odd.clone();
        even[0] = 0xff;
        even[len - 1] &= 0xfc;
        for m in [odd, even] {
            let base: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            let long_base: Vec<u8> = (0..len + 17).map(|_| rng.random()).collect();
            let exp_len = if len > 256 { 3 } else { 12 };
            let long_exp: Vec<u8> = (0..exp_len).map(|_| rng.random()).collect();
            cases.push(input(&base, &[2], &m));
            cases.push(input(&minus(&m, 1), &[2], &m));
            cases.push(input(&base, &[1, 0, 1], &m));
            cases.push(input(&base, &long_exp, &m));
            cases.push(input(&long_base, &[3], &m));
            cases.push(input(&[], &[3], &m));
            cases.push(input(&base, &[], &m));
            cases.push(input(&base, &[5], &[&[0][..], &m].concat()));
        }
    }
    // One off a chip modulus.
    cases.push(input(&base, &exp, &minus(CHIP_MODULI[0], 2)));
    cases
}
