//! SHA-256, `MODEXP` and `BLAKE2F`: the functions that read arbitrary bytes rather than points.
//!
//! - SHA-256: every length up to four blocks and past them (each padding boundary), random
//!   lengths up to 10 KB, constant and random contents.
//! - `MODEXP`: moduli zero (empty, zero bytes), one, small, even, powers of two, all-ones,
//!   each modulus the guest declares as a field and its neighbours, with leading zero bytes,
//!   longer than 32 bytes (the multi-digit path) and, rarely, up to and past EIP-7823's 1,024
//!   bytes (a pre-Osaka call); bases empty, zero, equal to or above the modulus, longer than
//!   it; exponents empty, zero, one, all-ones, longer than 32 bytes. revm's precompile is also
//!   called with malformed headers: lengths the data does not fill (padded with zeros), lengths
//!   past `usize` or EIP-7823's bound, no data at all.
//! - `BLAKE2F`: round counts around the message schedule's period of 10 (0, 1, 9–13, 19–21),
//!   random ones up to 2,047; all-zero, all-one and random state, message and counter words;
//!   the final flag 0 and 1 (and, at the precompile, the refused 2 and 255); inputs one byte
//!   short and long.

use alloy_primitives::U256;
use crypto::check::Tag;
use rand::{rngs::SmallRng, Rng};

use super::{bytes, pick, rng, run, scale, Call, Family};

/// SHA-256 inputs: every length up to 260 bytes, then `n` random lengths.
pub fn sha256_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    let mut cases = Vec::new();
    for len in 0..=260 {
        cases.push((Tag::Sha256, content(rng, len)));
    }
    for _ in 0..n {
        let len = if rng.random_bool(0.1) {
            rng.random_range(0..10_000)
        } else {
            rng.random_range(0..600)
        };
        cases.push((Tag::Sha256, content(rng, len)));
    }
    cases
}

#[test]
fn sha256() {
    let cases = sha256_cases(&mut rng("sha256"), 1500 * scale());
    run("SHA-256", &cases, 1, 0);
}

/// `len` bytes: random, or one repeated byte.
fn content(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    match rng.random_range(0..4) {
        0 => vec![pick(rng, &[0u8, 0x80, 0xff]); len],
        _ => bytes(rng, len),
    }
}

/// The moduli the guest computes in declared fields, big-endian.
const FIELDS: [&str; 7] = [
    "30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47",
    "30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001",
    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F",
    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141",
    "FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF",
    "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551",
    "1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB",
];

/// `x + d` (d may be negative) on big-endian bytes, wrapping, in x's length.
fn offset(x: &[u8], d: i64) -> Vec<u8> {
    let mut out = x.to_vec();
    let mut carry = d as i128;
    for byte in out.iter_mut().rev() {
        let v = i128::from(*byte) + carry;
        *byte = v.rem_euclid(256) as u8;
        carry = v.div_euclid(256);
    }
    out
}

fn modulus(rng: &mut SmallRng) -> Vec<u8> {
    let random_len = |rng: &mut SmallRng, lo: usize, hi: usize| rng.random_range(lo..=hi);
    let mut m = match rng.random_range(0..12) {
        0 | 1 => {
            let field = alloy_primitives::hex::decode(pick(rng, &FIELDS)).unwrap();
            let d = pick(rng, &[0, 0, 0, -2, -1, 1, 2]);
            offset(&field, d)
        }
        // Zero, one, two, in any length.
        2 => {
            let len = random_len(rng, 0, 40);
            let mut m = vec![0u8; len];
            if let Some(last) = m.last_mut() {
                *last = pick(rng, &[0, 0, 1, 2]);
            }
            m
        }
        3 => vec![rng.random_range(1..=255u8)],
        // A power of two.
        4 => {
            let len = random_len(rng, 1, 48);
            let mut m = vec![0u8; len];
            m[0] = 1 << rng.random_range(0..8);
            m
        }
        5 => vec![0xff; random_len(rng, 1, 64)],
        // Even, with a run of trailing zero bits.
        6 => {
            let len = random_len(rng, 1, 40);
            let mut m = bytes(rng, len);
            let zeros = rng.random_range(1..=m.len() * 8);
            for bit in 0..zeros {
                let i = m.len() - 1 - bit / 8;
                m[i] &= !(1 << (bit % 8));
            }
            m[0] |= 0x40;
            m
        }
        // Longer than 32 bytes: the multi-digit path; rarely up to and past EIP-7823's bound.
        7 | 8 => {
            let len = match rng.random_range(0..40) {
                0 => random_len(rng, 257, 1024),
                1 => 1025,
                _ => random_len(rng, 33, 160),
            };
            let mut m = bytes(rng, len);
            m[0] |= pick(rng, &[0, 1, 0x80]);
            m
        }
        _ => {
            let len = random_len(rng, 1, 32);
            let mut m = bytes(rng, len);
            m[0] |= pick(rng, &[0, 0x80]);
            m
        }
    };
    if rng.random_bool(0.15) {
        let zeros = rng.random_range(1..=9);
        m.splice(0..0, vec![0; zeros]);
    }
    m
}

fn base(rng: &mut SmallRng, m: &[u8]) -> Vec<u8> {
    let n = m.len();
    match rng.random_range(0..10) {
        0 => Vec::new(),
        1 => vec![0; rng.random_range(1..=n + 2)],
        2 => m.to_vec(),
        3 => offset(m, -1),
        4 => [&[0u8][..], &offset(m, 1)].concat(),
        5 => vec![0xff; rng.random_range(1..=n + 8)],
        6 => {
            let mut b = vec![0; rng.random_range(1..=n + 1)];
            *b.last_mut().unwrap() = pick(rng, &[1, 2]);
            b
        }
        7 => {
            let len = rng.random_range(n + 1..=2 * n + 40);
            bytes(rng, len)
        }
        _ => bytes(rng, n),
    }
}

fn exponent(rng: &mut SmallRng, m: &[u8]) -> Vec<u8> {
    // A long modulus in software is slow: its exponents stay short.
    let max = if m.len() > 256 { 3 } else { 70 };
    let len = pick(rng, &[0, 1, 1, 2, 8, 31, 32, 32, 33, 40, 64, 70]).min(max);
    match rng.random_range(0..8) {
        0 => vec![0; len],
        1 if len > 0 => {
            let mut e = vec![0; len];
            e[len - 1] = pick(rng, &[1, 2, 3]);
            e
        }
        2 => vec![0xff; len],
        3 if m.len() == len && len > 0 => offset(m, -2),
        _ => bytes(rng, len),
    }
}

/// base length (u16 BE) ‖ exponent length (u16 BE) ‖ base ‖ exponent ‖ modulus, as
/// `crypto::check` lays out a `MODEXP` case.
fn modexp_input(base: &[u8], exp: &[u8], m: &[u8]) -> Vec<u8> {
    let len = |x: &[u8]| u16::try_from(x.len()).unwrap().to_be_bytes();
    [&len(base)[..], &len(exp), base, exp, m].concat()
}

/// The `MODEXP` cases, each in `crypto::check`'s layout.
pub fn modexp_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    (0..n)
        .map(|_| {
            let m = modulus(rng);
            let (b, e) = (base(rng, &m), exponent(rng, &m));
            (Tag::Modexp, modexp_input(&b, &e, &m))
        })
        .collect()
}

#[test]
fn modexp() {
    let mut rng = rng("modexp");
    let cases = modexp_cases(&mut rng, 2500 * scale());
    let mut family = Family::new("MODEXP");
    for (tag, input) in &cases {
        family.case(*tag, input);
    }
    // Malformed headers, at the precompile only: each a well-formed call with one length
    // replaced, or its data cut short.
    let word = |x: U256| x.to_be_bytes::<32>().to_vec();
    for (_, input) in cases.iter().take(300 * scale()) {
        let mut call = super::call_of(Tag::Modexp, input).unwrap();
        let data = &mut call.input;
        match rng.random_range(0..4) {
            0 => {
                let cut = rng.random_range(0..=data.len());
                data.truncate(cut);
            }
            _ => {
                let field = rng.random_range(0..3);
                let len = pick(
                    &mut rng,
                    &[
                        U256::ZERO,
                        U256::from(1),
                        U256::from(32),
                        U256::from(1024),
                        U256::from(1025),
                        U256::from(u64::MAX),
                        U256::from(1) << 64,
                        U256::MAX,
                    ],
                );
                data[32 * field..32 * field + 32].copy_from_slice(&word(len));
            }
        }
        family.call(&call);
    }
    for data in [
        Vec::new(),
        vec![0; 95],
        [
            word(U256::from(1)),
            word(U256::from(1)),
            word(U256::from(1)),
        ]
        .concat(),
        [word(U256::ZERO), word(U256::ZERO), word(U256::from(32))].concat(),
        [
            word(U256::from(5)),
            word(U256::ZERO),
            word(U256::ZERO),
            vec![7; 5],
        ]
        .concat(),
    ] {
        family.call(&Call::osaka(0x05, data));
    }
    family.finish();
}

/// The `BLAKE2F` cases: EIP-152's 213-byte input, `crypto::check`'s layout too.
pub fn blake2f_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    let word = |rng: &mut SmallRng| -> u64 {
        let random = rng.random();
        pick(
            rng,
            &[
                0,
                1,
                u64::MAX,
                1 << 63,
                0xffff_ffff,
                1 << 32,
                random,
                random,
            ],
        )
    };
    (0..n)
        .map(|_| {
            let rounds: u32 = match rng.random_range(0..10) {
                0..=3 => pick(rng, &[0, 1, 9, 10, 11, 12, 13, 19, 20, 21]),
                4 => rng.random_range(0..2048),
                _ => rng.random_range(0..64),
            };
            let mut input = rounds.to_be_bytes().to_vec();
            let style = rng.random_range(0..3);
            for _ in 0..8 + 16 + 2 {
                let w = match style {
                    0 => word(rng),
                    _ => rng.random(),
                };
                input.extend_from_slice(&w.to_le_bytes());
            }
            input.push(rng.random_range(0..2));
            (Tag::Blake2f, input)
        })
        .collect()
}

#[test]
fn blake2f() {
    let mut rng = rng("blake2f");
    let cases = blake2f_cases(&mut rng, 3000 * scale());
    let mut family = Family::new("BLAKE2F");
    for (tag, input) in &cases {
        family.case(*tag, input);
    }
    // At the precompile: a refused final flag, and wrong lengths.
    for (_, input) in cases.iter().take(50) {
        let mut bad_flag = input.clone();
        bad_flag[212] = pick(&mut rng, &[2, 0x80, 0xff]);
        family.call(&Call::osaka(0x09, bad_flag));
        let len = pick(&mut rng, &[0, 1, 212, 214, 300]);
        let mut data = input.clone();
        data.resize(len, 0);
        family.call(&Call::osaka(0x09, data));
    }
    family.finish();
}
