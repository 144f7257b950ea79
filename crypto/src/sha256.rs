//! SHA-256 (the `SHA256` precompile, 0x02) over OpenVM's SHA-2 chip.
//!
//! `openvm-sha2-guest` on crates.io exposes only the compression function (OpenVM's `sha2`
//! drop-in lives in its git repository), so the padding and the block loop are here. Each
//! 64-byte block is compressed straight from the input when the input is 4-byte aligned and
//! through a stack buffer otherwise: unlike `zkvm_sha256_impl`'s own fallback, nothing is
//! copied to the heap, which the guest's bump allocator never frees. Off the zkVM the blocks go
//! through `sha2::compress256`, so the padding is tested natively.

/// The initial hash value (FIPS 180-4, 5.3.3).
const H0: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// A 64-byte block, word-aligned for the chip.
#[repr(C, align(4))]
struct Block([u8; 64]);

/// Compresses `block` into `state`.
#[cfg(target_os = "zkvm")]
#[inline(always)]
fn compress(state: &mut [u32; 8], block: &[u8; 64]) {
    let mut staged = Block([0; 64]);
    let input = if block.as_ptr() as usize % 4 == 0 {
        block.as_ptr()
    } else {
        staged.0 = *block;
        staged.0.as_ptr()
    };
    let mut out = [0u32; 8];
    // SAFETY: `state` and `out` are 32 word-aligned bytes, `input` 64 word-aligned bytes, all
    // live for the call; the chip reads the state and the block, then writes `out`.
    unsafe {
        openvm_sha2_guest::zkvm_sha256_impl(state.as_ptr().cast(), input, out.as_mut_ptr().cast())
    };
    *state = out;
}

/// Compresses `block` into `state`.
#[cfg(not(target_os = "zkvm"))]
fn compress(state: &mut [u32; 8], block: &[u8; 64]) {
    sha2::compress256(state, &[(*block).into()]);
}

/// SHA-256 of `input`.
pub fn sha256(input: &[u8]) -> [u8; 32] {
    let mut state = H0;
    let mut blocks = input.chunks_exact(64);
    for block in blocks.by_ref() {
        compress(&mut state, block.try_into().expect("64 bytes"));
    }
    let rest = blocks.remainder();
    // Padding: 0x80, zeros, then the message length in bits as a big-endian u64, in one block
    // when the rest leaves room for 9 bytes and in two otherwise.
    let mut tail = Block([0; 64]);
    tail.0[..rest.len()].copy_from_slice(rest);
    tail.0[rest.len()] = 0x80;
    let bits = (input.len() as u64).wrapping_mul(8).to_be_bytes();
    if rest.len() + 9 > 64 {
        compress(&mut state, &tail.0);
        tail.0 = [0; 64];
    }
    tail.0[56..].copy_from_slice(&bits);
    compress(&mut state, &tail.0);
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}
