//! BLAKE2b's compression function `F` (EIP-152, the `BLAKE2F` precompile).
//!
//! In the guest the rounds run on this project's BLAKE2b chip (crate `blake2-circuit`, one
//! `BLAKE2B_ROUNDS` instruction per up to 65,530 rounds); only the initialisation of the working
//! vector and the final XOR stay in software. Natively, and as the chip's reference in the
//! tests, the rounds are the software below, written on 32-bit halves for a 32-bit core with no
//! 64-bit ALU.
//!
//! revm's portable `compress` is already unrolled with a constant message schedule; on RV32 the
//! compiler lowers each 64-bit add, XOR and rotation to 32-bit sequences. Here the halves are
//! explicit: a rotation by 32 is a swap of names, by 24 and 16 two shifts and an OR per half,
//! by 63 a rotation left by one; an add carries with one compare. The state is 32 words, more
//! than the core's registers, so each mixing step loads and stores its four words; the message
//! words are loaded at constant offsets. Measured against revm's in BENCHMARKS.md (`host worst
//! --only blake2f`); kept only as long as it is the cheaper of the two.

/// A 64-bit word as its low and high halves.
#[derive(Clone, Copy)]
struct W {
    lo: u32,
    hi: u32,
}

impl W {
    #[inline(always)]
    const fn of(x: u64) -> Self {
        Self {
            lo: x as u32,
            hi: (x >> 32) as u32,
        }
    }

    #[inline(always)]
    const fn get(self) -> u64 {
        (self.hi as u64) << 32 | self.lo as u64
    }

    #[inline(always)]
    const fn add(self, b: Self) -> Self {
        let lo = self.lo.wrapping_add(b.lo);
        let carry = (lo < self.lo) as u32;
        Self {
            lo,
            hi: self.hi.wrapping_add(b.hi).wrapping_add(carry),
        }
    }

    #[inline(always)]
    const fn xor(self, b: Self) -> Self {
        Self {
            lo: self.lo ^ b.lo,
            hi: self.hi ^ b.hi,
        }
    }

    /// Rotation right by 32: the halves swap.
    #[inline(always)]
    const fn rotr32(self) -> Self {
        Self {
            lo: self.hi,
            hi: self.lo,
        }
    }

    /// Rotation right by `N` (`0 < N < 32`).
    #[inline(always)]
    const fn rotr<const N: u32>(self) -> Self {
        Self {
            lo: (self.lo >> N) | (self.hi << (32 - N)),
            hi: (self.hi >> N) | (self.lo << (32 - N)),
        }
    }

    /// Rotation right by 63: left by one.
    #[inline(always)]
    const fn rotr63(self) -> Self {
        Self {
            lo: (self.lo << 1) | (self.hi >> 31),
            hi: (self.hi << 1) | (self.lo >> 31),
        }
    }
}

use blake2_guest::{IV, SIGMA};

/// The mixing function on words `a`, `b`, `c`, `d` of `v` with message words `x`, `y`.
#[inline(always)]
fn g(v: &mut [W; 16], [a, b, c, d]: [usize; 4], x: W, y: W) {
    let (mut va, mut vb, mut vc, mut vd) = (v[a], v[b], v[c], v[d]);
    va = va.add(vb).add(x);
    vd = vd.xor(va).rotr32();
    vc = vc.add(vd);
    vb = vb.xor(vc).rotr::<24>();
    va = va.add(vb).add(y);
    vd = vd.xor(va).rotr::<16>();
    vc = vc.add(vd);
    vb = vb.xor(vc).rotr63();
    (v[a], v[b], v[c], v[d]) = (va, vb, vc, vd);
}

/// Round `R` of the schedule (a constant, so each message index is an immediate offset).
#[inline(always)]
fn round<const R: usize>(m: &[W; 16], v: &mut [W; 16]) {
    let s = &SIGMA[R];
    g(v, [0, 4, 8, 12], m[s[0]], m[s[1]]);
    g(v, [1, 5, 9, 13], m[s[2]], m[s[3]]);
    g(v, [2, 6, 10, 14], m[s[4]], m[s[5]]);
    g(v, [3, 7, 11, 15], m[s[6]], m[s[7]]);
    g(v, [0, 5, 10, 15], m[s[8]], m[s[9]]);
    g(v, [1, 6, 11, 12], m[s[10]], m[s[11]]);
    g(v, [2, 7, 8, 13], m[s[12]], m[s[13]]);
    g(v, [3, 4, 9, 14], m[s[14]], m[s[15]]);
}

/// EIP-152's `F`: `rounds` rounds of BLAKE2b's compression of `h` with message `m`, offset
/// counter `t` and final-block flag `f` (any round count, 0 included).
pub fn compress(rounds: u32, h: &mut [u64; 8], m: &[u64; 16], t: &[u64; 2], f: bool) {
    #[cfg(target_os = "zkvm")]
    {
        let mut v = blake2_guest::working_vector(h, t, f);
        blake2_guest::rounds(&mut v, m, rounds);
        blake2_guest::finish(h, &v);
    }
    #[cfg(not(target_os = "zkvm"))]
    software(rounds, h, m, t, f)
}

/// [`compress`] in software.
#[cfg_attr(target_os = "zkvm", allow(dead_code))]
fn software(rounds: u32, h: &mut [u64; 8], m: &[u64; 16], t: &[u64; 2], f: bool) {
    let m: [W; 16] = core::array::from_fn(|i| W::of(m[i]));
    let mut v: [W; 16] = core::array::from_fn(|i| match i {
        0..8 => W::of(h[i]),
        12 => W::of(IV[4] ^ t[0]),
        13 => W::of(IV[5] ^ t[1]),
        14 => W::of(if f { !IV[6] } else { IV[6] }),
        _ => W::of(IV[i - 8]),
    });
    let mut remaining = rounds;
    macro_rules! rounds {
        ($($r:literal),*) => {
            $(
                if remaining == 0 {
                    break;
                }
                remaining -= 1;
                round::<$r>(&m, &mut v);
            )*
        };
    }
    loop {
        rounds!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    }
    for i in 0..8 {
        h[i] ^= v[i].get() ^ v[i + 8].get();
    }
}

#[cfg(test)]
mod tests {
    use revm::precompile::{Crypto, DefaultCrypto};

    /// The same output as revm's `compress` for round counts around every schedule period
    /// (0, 1, 9–12, 20, a large one), both flag values and words with every bit pattern.
    #[test]
    fn agrees_with_revm() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for rounds in [0, 1, 2, 9, 10, 11, 12, 20, 1000] {
            for f in [false, true] {
                let h0: [u64; 8] = core::array::from_fn(|_| next());
                let m: [u64; 16] = core::array::from_fn(|_| next());
                let t = [next(), next()];
                let (mut ours, mut revm) = (h0, h0);
                super::compress(rounds, &mut ours, &m, &t, f);
                DefaultCrypto.blake2_compress(rounds, &mut revm, &m, &t, f);
                assert_eq!(ours, revm, "{rounds} rounds, f {f}");
            }
        }
    }

    /// EIP-152's test vector 5 (12 rounds, the final block of "abc").
    #[test]
    fn eip152_vector() {
        let mut h = [
            0x6a09e667f2bdc948,
            0xbb67ae8584caa73b,
            0x3c6ef372fe94f82b,
            0xa54ff53a5f1d36f1,
            0x510e527fade682d1,
            0x9b05688c2b3e6c1f,
            0x1f83d9abfb41bd6b,
            0x5be0cd19137e2179,
        ];
        let mut m = [0u64; 16];
        m[0] = 0x0000000000636261;
        super::compress(12, &mut h, &m, &[3, 0], true);
        assert_eq!(h[0], 0x0d4d1c983fa580ba);
        assert_eq!(h[7], 0x239900d4ed8623b9);
    }
}
