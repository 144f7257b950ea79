//! In-VM check of the keccak path (`xorin` and the sponge) of this build's variant.
//!
//! Execution alone does not catch a misused `XORIN` (an unaligned pointer or a ragged length
//! executes, wrongly or silently); only the prover does. This program drives every placement
//! the sponge meets — inputs at each of the 4 misalignments, chunkings covering every residue
//! mod 4 and both sides of the 136-byte rate, and overlapping operands — and asserts the
//! results inside the VM; the host then proves and verifies it. Small on purpose, so it proves
//! in seconds.
#![cfg_attr(target_os = "zkvm", no_main)]
#![cfg_attr(target_os = "zkvm", no_std)]

openvm::entry!(main);

/// keccak256 of `pattern(300)` and of `""`, from tiny-keccak on the host.
const PATTERN_300: [u8; 32] =
    hex32("f10b5f4756f414ea659c96a9104b919d2441dca5c621babd0d26fefa15a64208");
const EMPTY: [u8; 32] = hex32("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");

const fn hex32(s: &str) -> [u8; 32] {
    let b = s.as_bytes();
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = (nibble(b[2 * i]) << 4) | nibble(b[2 * i + 1]);
        i += 1;
    }
    out
}

const fn nibble(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => panic!("not hex"),
    }
}

#[repr(C, align(8))]
struct Buf([u8; 320]);

fn main() {
    let mut buf = Buf([0; 320]);
    for (k, x) in buf.0.iter_mut().enumerate() {
        *x = (k as u8).wrapping_mul(31).wrapping_add(7);
    }
    assert_eq!(mpt::keccak256([]).0, EMPTY, "keccak256 of the empty string");

    // The reference: one aligned one-shot absorb of each length.
    const LENGTHS: [usize; 12] = [0, 1, 3, 4, 5, 20, 33, 135, 136, 137, 140, 273];
    const CHUNKS: [usize; 7] = [1, 2, 3, 4, 5, 136, 137];
    for len in LENGTHS {
        let reference = mpt::keccak256(&buf.0[..len]);
        for misalign in 0..4 {
            // Same bytes at another alignment: shift a copy.
            let mut shifted = Buf([0; 320]);
            shifted.0[misalign..misalign + len].copy_from_slice(&buf.0[..len]);
            let input = &shifted.0[misalign..misalign + len];
            assert_eq!(mpt::keccak256(input), reference, "len {len} at +{misalign}");
            for chunk in CHUNKS {
                if chunk < 4 && len > 40 {
                    continue;
                }
                let mut h = mpt::Keccak256::new();
                for part in input.chunks(chunk) {
                    h.update(part);
                }
                assert_eq!(
                    h.finalize(),
                    reference,
                    "len {len} at +{misalign} in {chunk}-byte chunks"
                );
            }
        }
    }
    assert_eq!(
        mpt::keccak256(&buf.0[..300]).0,
        PATTERN_300,
        "keccak256 of the 300-byte pattern"
    );

    // Overlapping operands: the result must be the instruction's snapshot semantics,
    // state[i] ^= old_input[i]. State offsets 0..4 and input offsets 0..12 around it give every
    // relative placement mod 4, with the input before, on and after the state.
    let mut mem = [0u8; 96];
    for state_at in 0..4 {
        for input_at in 0..12 {
            for len in [4usize, 7, 13, 32, 40] {
                for (k, x) in mem.iter_mut().enumerate() {
                    *x = (k as u8) ^ 0x5a;
                }
                let old = mem;
                let (s, i) = (24 + state_at, 20 + input_at);
                let base = mem.as_mut_ptr();
                // SAFETY: s + len and i + len stay within the 96-byte buffer.
                unsafe { mpt::keccak::xorin(base.add(s), base.add(i), len) };
                for (k, byte) in mem.iter().enumerate() {
                    let want = if (s..s + len).contains(&k) {
                        old[k] ^ old[i + k - s]
                    } else {
                        old[k]
                    };
                    assert_eq!(
                        *byte, want,
                        "overlap s+{state_at} i+{input_at} len {len} byte {k}"
                    );
                }
            }
        }
    }
    openvm::io::reveal_u32(1, 0);
}
