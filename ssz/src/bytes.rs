//! `ProgressiveByteList` (EIP-7916): serialized as `libssz`'s `ProgressiveList<u8>`, held on a
//! word boundary, and rooted without a copy ([`ProgressiveByteList`]).
//!
//! Why by hand: the standard guest merkleizes its request, and a request is mostly its
//! transactions' bytes. `libssz` roots a list of bytes as it roots a list of any basic type: it
//! serializes the list again, one byte at a time, packs that into a vector of chunks, copies the
//! chunks once more to fold them, and zeroes and fills a 64-byte buffer for every pair it hashes.
//! On mainnet block 24171384 that was 1.08 M guest instructions, of which the SHA-256 itself
//! was 0.41 M. Here the bytes are held word-aligned, so the first level hashes each 64 bytes
//! where they lie (the guest's SHA-256 compresses an aligned block in place), and the levels
//! above are folded in place in a vector of word-aligned nodes, each pair hashed where it lies.
//! The root is the same by definition (EIP-7916's progressive merkleization of `pack(bytes)`,
//! mixed in with the length); ssz/tests/reference.rs compares it with `libssz`'s and with the
//! EIP written out over `tree_hash`, at every length across the subtrees' edges.

use alloc::vec::Vec;
use core::ops::Deref;

use libssz::{DecodeError, SszDecode, SszEncode};
use libssz_merkle::{HashTreeRoot, Node, Sha256Hasher, ZERO_HASHES};

/// `ProgressiveByteList` (EIP-7916): bytes, serialized as themselves, merkleized as their
/// 32-byte chunks in progressive subtrees of 1, 4, 16, … chunks, mixed in with the length.
#[derive(Clone, Default)]
pub struct ProgressiveByteList {
    /// The bytes, then zeros to the word.
    words: Vec<u32>,
    len: usize,
}

impl ProgressiveByteList {
    /// The bytes, owned.
    pub fn into_inner(self) -> Vec<u8> {
        self.to_vec()
    }
}

impl Deref for ProgressiveByteList {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `words` holds `4 * words.len() >= len` initialised bytes, and `u8` has no
        // alignment to keep.
        unsafe { core::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }
}

impl AsRef<[u8]> for ProgressiveByteList {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl From<&[u8]> for ProgressiveByteList {
    fn from(bytes: &[u8]) -> Self {
        let mut words = alloc::vec![0u32; bytes.len().div_ceil(4)];
        // SAFETY: `words` is at least `bytes.len()` writable bytes, a buffer of its own.
        unsafe {
            core::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                words.as_mut_ptr().cast::<u8>(),
                bytes.len(),
            )
        };
        Self {
            words,
            len: bytes.len(),
        }
    }
}

impl From<Vec<u8>> for ProgressiveByteList {
    fn from(bytes: Vec<u8>) -> Self {
        Self::from(&bytes[..])
    }
}

impl PartialEq for ProgressiveByteList {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for ProgressiveByteList {}

impl core::hash::Hash for ProgressiveByteList {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl core::fmt::Debug for ProgressiveByteList {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("ProgressiveByteList")
            .field(&&**self)
            .finish()
    }
}

impl SszEncode for ProgressiveByteList {
    fn is_fixed_size() -> bool {
        false
    }

    fn fixed_size() -> usize {
        0
    }

    fn encoded_len(&self) -> usize {
        self.len
    }

    fn ssz_append(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(self)
    }
}

impl SszDecode for ProgressiveByteList {
    fn is_fixed_size() -> bool {
        false
    }

    fn fixed_size() -> usize {
        0
    }

    /// Any bytes are a list of bytes (it has no limit).
    fn from_ssz_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self::from(bytes))
    }
}

impl HashTreeRoot for ProgressiveByteList {
    fn hash_tree_root(&self, hasher: &impl Sha256Hasher) -> Node {
        let mut pair = [Aligned::ZERO; 2];
        pair[0] = progressive(hasher, &self.words, self.len, 1);
        pair[1].0[..8].copy_from_slice(&(self.len as u64).to_le_bytes());
        Aligned(hasher.hash(bytes_of(&pair))).0
    }
}

/// A node on a word boundary: two side by side are a block the guest's SHA-256 compresses
/// where it lies.
#[derive(Clone, Copy)]
#[repr(C, align(4))]
struct Aligned(Node);

impl Aligned {
    const ZERO: Self = Self([0; 32]);
}

/// `nodes`' bytes.
fn bytes_of(nodes: &[Aligned]) -> &[u8] {
    // SAFETY: `Aligned` is 32 bytes with no padding; `u8` has no alignment to keep.
    unsafe { core::slice::from_raw_parts(nodes.as_ptr().cast::<u8>(), 32 * nodes.len()) }
}

/// SHA-256 of `left ‖ right`.
fn pair(hasher: &impl Sha256Hasher, left: &Aligned, right: &Aligned) -> Aligned {
    Aligned(hasher.hash(bytes_of(&[*left, *right])))
}

/// EIP-7916's `merkleize_progressive(pack(bytes), leaves)` over the first `len` bytes of
/// `words` (zero after them): the subtree of the first `leaves` chunks, then the rest in
/// subtrees four times as wide; zero where no chunk is left.
fn progressive(hasher: &impl Sha256Hasher, words: &[u32], len: usize, leaves: usize) -> Aligned {
    if len == 0 {
        return Aligned::ZERO;
    }
    let here = len.min(32 * leaves);
    let subtree = subtree(hasher, words, here, leaves);
    // `here` is `len` or a whole number of chunks, so of words.
    let rest = progressive(
        hasher,
        &words[(here / 4).min(words.len())..],
        len - here,
        4 * leaves,
    );
    pair(hasher, &subtree, &rest)
}

/// `merkleize(pack(bytes), limit = leaves)` over the first `len` bytes of `words` (zero after
/// them; `0 < len <= 32 * leaves`, `leaves` a power of two): a binary tree of `leaves` chunks,
/// those past the bytes zero.
fn subtree(hasher: &impl Sha256Hasher, words: &[u32], len: usize, leaves: usize) -> Aligned {
    debug_assert!(len > 0 && len <= 32 * leaves && leaves.is_power_of_two());
    let words = &words[..len.div_ceil(4)];
    // SAFETY: `u32`s viewed as their bytes, all initialised.
    let bytes =
        unsafe { core::slice::from_raw_parts(words.as_ptr().cast::<u8>(), 4 * words.len()) };
    // The words past `len` are zero (the list's padding), so the last chunk, and the last pair
    // of chunks, are zero-padded by copying what there is into a zero node.
    let padded = |part: &[u8]| {
        let mut pair = [Aligned::ZERO; 2];
        for (chunk, node) in part.chunks(32).zip(&mut pair) {
            node.0[..chunk.len()].copy_from_slice(chunk);
        }
        pair
    };
    if leaves == 1 {
        return padded(bytes)[0];
    }
    // Level 1: each pair of chunks is 64 bytes of the list, hashed where they lie (word
    // aligned: every subtree starts at a whole chunk); a short last pair is zero-padded (a
    // missing right chunk is the zero chunk, `ZERO_HASHES[0]`).
    let mut layer: Vec<Aligned> = bytes
        .chunks(64)
        .map(|window| match window.len() {
            64 => Aligned(hasher.hash(window)),
            _ => Aligned(hasher.hash(bytes_of(&padded(window)))),
        })
        .collect();
    // Levels 2 on, folded in place, each pair hashed where it lies: a node without a right
    // sibling pairs with the root of a zero subtree of its level.
    let depth = leaves.trailing_zeros() as usize;
    let mut len = layer.len();
    for zero in &ZERO_HASHES[1..depth] {
        let half = len.div_ceil(2);
        for k in 0..half {
            layer[k] = if 2 * k + 1 < len {
                Aligned(hasher.hash(bytes_of(&layer[2 * k..2 * k + 2])))
            } else {
                pair(hasher, &layer[2 * k], &Aligned(*zero))
            };
        }
        len = half;
    }
    layer[0]
}
