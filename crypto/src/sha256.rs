//! SHA-256 (the `SHA256` precompile, 0x02) over OpenVM's SHA-2 chip.
//!
//! `openvm-sha2-guest` on crates.io exposes only the compression function (OpenVM's `sha2`
//! drop-in lives in its git repository), so the padding and the block loop are here. Each
//! 64-byte block is compressed straight from the input when the input is 4-byte aligned and
//! through a stack buffer otherwise: unlike `zkvm_sha256_impl`'s own fallback, nothing is
//! copied to the heap, which the guest's bump allocator never frees. A 64-byte message (two
//! nodes: what merkleizing the standard guest's request hashes thousands of times) has a fixed
//! padding block, kept ready in a static. Off the zkVM the blocks go through
//! `sha2::compress256`, so the padding is tested natively.

/// The initial hash value (FIPS 180-4, 5.3.3).
const H0: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// A 64-byte block, word-aligned for the chip.
#[repr(C, align(4))]
struct Block([u8; 64]);

/// `state` with `block` compressed into it.
#[cfg(target_os = "zkvm")]
#[inline(always)]
fn compressed(state: &[u32; 8], block: &[u8; 64]) -> [u32; 8] {
    use core::mem::MaybeUninit;
    let mut staged = MaybeUninit::<Block>::uninit();
    let input = if block.as_ptr() as usize % 4 == 0 {
        block.as_ptr()
    } else {
        // SAFETY: `staged` is 64 writable bytes, `block` 64 readable ones; they do not overlap.
        unsafe { core::ptr::copy_nonoverlapping(block.as_ptr(), staged.as_mut_ptr().cast(), 64) };
        staged.as_ptr().cast::<u8>()
    };
    let mut out = MaybeUninit::<[u32; 8]>::uninit();
    // SAFETY: `state` and `out` are 32 word-aligned bytes, `input` 64 word-aligned bytes (the
    // block, or `staged` written above), all live for the call; the chip reads the state and
    // the block, then writes all of `out`.
    unsafe {
        openvm_sha2_guest::zkvm_sha256_impl(state.as_ptr().cast(), input, out.as_mut_ptr().cast());
        out.assume_init()
    }
}

/// `state` with `block` compressed into it.
#[cfg(not(target_os = "zkvm"))]
fn compressed(state: &[u32; 8], block: &[u8; 64]) -> [u32; 8] {
    let mut state = *state;
    sha2::compress256(&mut state, &[(*block).into()]);
    state
}

/// Compresses `block` into `state`.
#[inline(always)]
fn compress(state: &mut [u32; 8], block: &[u8; 64]) {
    *state = compressed(state, block);
}

/// The padding block of a 64-byte message: 0x80, zeros, then its length in bits (512) as a
/// big-endian u64. Merkleization hashes 64-byte messages (two nodes) and little else.
static PAD_64: Block = {
    let mut block = [0u8; 64];
    block[0] = 0x80;
    block[62] = 0x02;
    Block(block)
};

/// [`H0`] where the chip can read it.
static H0_WORDS: [u32; 8] = H0;

/// SHA-256 of a 64-byte message (two nodes, in merkleization): its block, then the fixed
/// padding block, each compressed where it lies.
#[inline(never)]
fn sha256_64(message: &[u8; 64]) -> [u8; 32] {
    let state = compressed(&H0_WORDS, message);
    digest(&compressed(&state, &PAD_64.0))
}

/// The digest of a final `state`: its words, big-endian.
#[inline(always)]
fn digest(state: &[u32; 8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

/// SHA-256 of `input`.
pub fn sha256(input: &[u8]) -> [u8; 32] {
    if let Ok(message) = <&[u8; 64]>::try_from(input) {
        return sha256_64(message);
    }
    let mut state = H0;
    let mut blocks = input.chunks_exact(64);
    for block in blocks.by_ref() {
        compress(&mut state, block.try_into().expect("64 bytes"));
    }
    let rest = blocks.remainder();
    // Padding: 0x80, zeros, then the message length in bits as a big-endian u64, in one
    // block when the rest leaves room for 9 bytes and in two otherwise.
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
    digest(&state)
}

#[cfg(test)]
mod tests {
    use sha2::Digest;

    #[test]
    fn every_length_across_the_padding_edges_is_sha2s_digest() {
        let bytes: alloc::vec::Vec<u8> = (0..300u32).map(|k| (k * 31 + 7) as u8).collect();
        for len in 0..bytes.len() {
            // At every offset from the word grid, as the guest's inputs lie.
            for skew in 0..4 {
                let input = &bytes[skew..skew + len.min(bytes.len() - skew)];
                let want: [u8; 32] = sha2::Sha256::digest(input).into();
                assert_eq!(
                    super::sha256(input),
                    want,
                    "{} bytes at +{skew}",
                    input.len()
                );
            }
        }
    }
}
