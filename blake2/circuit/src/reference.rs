//! BLAKE2b's round function on `u64` words (RFC 7693 §3.2): what the executors run and what
//! the trace generation decomposes. Checked against revm's `BLAKE2F` in the tests.

pub use blake2_guest::SIGMA;

/// The four words each of a round's eight mixings takes: four columns, then four diagonals.
pub const MIXINGS: [[usize; 4]; 8] = [
    [0, 4, 8, 12],
    [1, 5, 9, 13],
    [2, 6, 10, 14],
    [3, 7, 11, 15],
    [0, 5, 10, 15],
    [1, 6, 11, 12],
    [2, 7, 8, 13],
    [3, 4, 9, 14],
];

/// The mixing function `G` on `(a, b, c, d)` with message words `x`, `y`.
#[inline(always)]
pub fn g(a: u64, b: u64, c: u64, d: u64, x: u64, y: u64) -> [u64; 4] {
    let a = a.wrapping_add(b).wrapping_add(x);
    let d = (d ^ a).rotate_right(32);
    let c = c.wrapping_add(d);
    let b = (b ^ c).rotate_right(24);
    let a = a.wrapping_add(b).wrapping_add(y);
    let d = (d ^ a).rotate_right(16);
    let c = c.wrapping_add(d);
    let b = (b ^ c).rotate_right(63);
    [a, b, c, d]
}

/// Round `round` (its schedule is `σ[round mod 10]`) over `v`.
pub fn round(v: &mut [u64; 16], m: &[u64; 16], round: usize) {
    let s = &SIGMA[round % 10];
    for (i, words) in MIXINGS.iter().enumerate() {
        let [a, b, c, d] = words.map(|w| v[w]);
        let out = g(a, b, c, d, m[s[2 * i]], m[s[2 * i + 1]]);
        for (&w, value) in words.iter().zip(out) {
            v[w] = value;
        }
    }
}

/// `count` rounds from round 0: what one `BLAKE2B_ROUNDS` does.
pub fn rounds(v: &mut [u64; 16], m: &[u64; 16], count: u32) {
    for r in 0..count as usize {
        round(v, m, r);
    }
}

/// Sixteen little-endian words from 128 bytes.
pub fn words(bytes: &[u8; 128]) -> [u64; 16] {
    core::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
}

/// 128 little-endian bytes from sixteen words.
pub fn bytes(words: &[u64; 16]) -> [u8; 128] {
    let mut out = [0u8; 128];
    for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// The compression function `F` (RFC 7693 §3.2) from [`rounds`]: for the tests, against
/// revm's.
pub fn compress(rounds_: u32, h: &mut [u64; 8], m: &[u64; 16], t: [u64; 2], f: bool) {
    let mut v = blake2_guest::working_vector(h, &t, f);
    rounds(&mut v, m, rounds_);
    blake2_guest::finish(h, &v);
}
