//! The guest side of the BLAKE2b extension (crate `blake2-circuit`): how the instruction is
//! encoded and the one intrinsic that emits it.
//!
//! `BLAKE2B_ROUNDS rd, rs1, rs2` runs `[rs2]` rounds of BLAKE2b's round function (RFC 7693
//! §3.2, the loop body of `F`) over the working vector `v` in place:
//! - `[rd]` points to `v`, sixteen little-endian `u64` words (128 bytes, 4-byte aligned);
//! - `[rs1]` points to the message block `m`, sixteen little-endian `u64` words (128 bytes,
//!   4-byte aligned), read only;
//! - `[rs2]` is the round count `R`, `1 ≤ R ≤` [`MAX_ROUNDS`]. Round `i` of the call uses the
//!   message schedule `σ[i mod 10]`, so a longer run is split into calls of a multiple of ten
//!   rounds ([`CHUNK_ROUNDS`], see [`rounds`]).
//!
//! The initialisation of `v` from `h`, the counter and the final flag, and the final
//! `h ^= v[..8] ^ v[8..]`, stay in software: they are a few dozen instructions per call,
//! against about a thousand trace cells per round in the chip.
//!
//! The encoding is OpenVM's custom-0 opcode with funct3 `0b100` (shared with keccak and SHA-2,
//! which take funct7 0 to 3) and funct7 [`BLAKE2B_FUNCT7`].
#![no_std]

/// RFC 7693's initialisation vector (BLAKE2b).
pub const IV: [u64; 8] = [
    0x6a09e667f3bcc908,
    0xbb67ae8584caa73b,
    0x3c6ef372fe94f82b,
    0xa54ff53a5f1d36f1,
    0x510e527fade682d1,
    0x9b05688c2b3e6c1f,
    0x1f83d9abfb41bd6b,
    0x5be0cd19137e2179,
];

/// RFC 7693's message schedule (§2.7); period 10.
pub const SIGMA: [[usize; 16]; 10] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

/// `F`'s working vector before its rounds (RFC 7693 §3.2): `h`, the IV, the offset counter `t`
/// folded into words 12 and 13, and word 14 inverted for the final block.
#[inline(always)]
pub fn working_vector(h: &[u64; 8], t: &[u64; 2], f: bool) -> [u64; 16] {
    let mut v = [0u64; 16];
    v[..8].copy_from_slice(h);
    v[8..].copy_from_slice(&IV);
    v[12] ^= t[0];
    v[13] ^= t[1];
    if f {
        v[14] = !v[14];
    }
    v
}

/// `F`'s output after its rounds: `h ^= v[..8] ^ v[8..]`.
#[inline(always)]
pub fn finish(h: &mut [u64; 8], v: &[u64; 16]) {
    for i in 0..8 {
        h[i] ^= v[i] ^ v[i + 8];
    }
}

/// RISC-V custom-0, the opcode OpenVM's keccak and SHA-2 instructions use.
pub const OPCODE: u8 = 0x0b;
/// The funct3 of keccak's and SHA-2's instructions; this one differs in funct7.
pub const BLAKE2B_FUNCT3: u8 = 0b100;
/// Keccak takes 0 and 1, SHA-2 2 and 3.
pub const BLAKE2B_FUNCT7: u8 = 0x10;
/// Bytes of the working vector `v`.
pub const STATE_BYTES: usize = 128;
/// Bytes of a message block `m`.
pub const MESSAGE_BYTES: usize = 128;
/// The most rounds one instruction runs: the count fits 16 bits.
pub const MAX_ROUNDS: u32 = u16::MAX as u32;
/// The rounds of each call but the last in a split run: a multiple of ten (the schedule's
/// period), and small. OpenVM checks a segment's limits only every 1,000 instructions, and a
/// loop of calls is a few instructions each: with 1,000 rounds a call, such a window adds at most
/// a few hundred thousand round rows, far under a segment's height, where 65,530 a call could
/// add more than any segment holds (the block could not be proved). One op row per 1,000 rounds
/// costs under 0.1% of the rounds' cells.
pub const CHUNK_ROUNDS: u32 = 1_000;

/// Runs `count` BLAKE2b rounds over `v` with message `m`, round `i` using `σ[i mod 10]`, on the
/// chip: one instruction per [`CHUNK_ROUNDS`] rounds. Zero rounds leave `v` as it is.
#[cfg(target_os = "zkvm")]
#[inline]
pub fn rounds(v: &mut [u64; 16], m: &[u64; 16], mut count: u32) {
    while count > 0 {
        let n = count.min(CHUNK_ROUNDS);
        // SAFETY: `v` and `m` are 128-byte, 8-byte-aligned arrays the instruction reads (and,
        // for `v`, writes) in place; `1 ≤ n ≤ MAX_ROUNDS`, the range the chip accepts.
        unsafe { blake2b_rounds(v.as_mut_ptr() as *mut u8, m.as_ptr() as *const u8, n) };
        count -= n;
    }
}

/// The instruction itself.
///
/// # Safety
/// `v` and `m` point to 128 readable bytes each, 4-byte aligned, `v`'s also writable;
/// `1 ≤ rounds ≤ MAX_ROUNDS`.
#[cfg(target_os = "zkvm")]
#[inline(always)]
pub unsafe fn blake2b_rounds(v: *mut u8, m: *const u8, rounds: u32) {
    openvm_platform::custom_insn_r!(
        opcode = OPCODE,
        funct3 = BLAKE2B_FUNCT3,
        funct7 = BLAKE2B_FUNCT7,
        rd = In v,
        rs1 = In m,
        rs2 = In rounds
    );
}
