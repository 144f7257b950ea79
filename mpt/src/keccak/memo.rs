//! A small memo of recent short hashes, for the hashes revm and alloy ask for again.
//!
//! Contracts hash the same short inputs over and over: a mapping's slot is `keccak256(key .
//! slot)`, recomputed by each access to `balances[from]` (a transfer reads it, then writes it);
//! a receipt's bloom hashes each log's address and topics (every `Transfer` log hashes the same
//! event signature and often the same token). In the guest a keccak-f is some 63 K main cells
//! (24 rows of the permutation chip), about what 1,500 RISC-V instructions cost, so finding a
//! repeat among the last few inputs costs far less than hashing it again.
//!
//! Direct-mapped: an input of at most [`MAX_INPUT`] bytes has one slot (from its length and
//! two of its words), which holds the last input that went there with its hash. A hit compares
//! the whole input and its length, so a hash is only ever returned for its own preimage; a
//! slot's collision costs a miss, never a wrong hash. Fixed and small ([`SLOTS`] entries,
//! 6.4 KB), so each proof segment touches few of its pages. On 24171384, with alloy's and
//! revm's hashes through it, 32, 64, 128 and 256 entries saved 0.68%, 0.74%, 0.65% and 0.60%
//! of the main cells: more entries find more repeats, and touch more pages in every segment.
//! With the state trie's keys (slots, addresses) through it as well, 64 entries save 0.92%
//! (`host bench`).

use alloy_primitives::B256;

/// The longest input remembered: a mapping slot's preimage (two words).
pub const MAX_INPUT: usize = 64;

/// Entries (a power of two).
pub const SLOTS: usize = 64;

/// One remembered input and its hash.
#[derive(Clone, Copy)]
#[repr(C, align(4))]
struct Entry {
    /// The input's length; `u32::MAX` when the slot is empty.
    len: u32,
    input: [u8; MAX_INPUT],
    hash: B256,
}

const EMPTY: Entry = Entry {
    len: u32::MAX,
    input: [0; MAX_INPUT],
    hash: B256::ZERO,
};

/// The memo.
pub struct Memo {
    entries: [Entry; SLOTS],
}

impl Default for Memo {
    fn default() -> Self {
        Self::new()
    }
}

impl Memo {
    /// An empty memo.
    pub const fn new() -> Self {
        Self {
            entries: [EMPTY; SLOTS],
        }
    }

    /// `input`'s hash: remembered, or computed by `hash` (and remembered if short).
    #[inline]
    pub fn hash(&mut self, input: &[u8], hash: impl FnOnce(&[u8]) -> B256) -> B256 {
        let len = input.len();
        if len > MAX_INPUT {
            return hash(input);
        }
        let entry = &mut self.entries[slot(input)];
        #[cfg(not(feature = "plant-memo-prefix"))]
        if entry.len as usize == len && entry.input[..len] == *input {
            return entry.hash;
        }
        // Planted bug (test-only mutant): only the input's first word is compared.
        #[cfg(feature = "plant-memo-prefix")]
        if entry.len as usize == len && entry.input[..len.min(32)] == input[..len.min(32)] {
            return entry.hash;
        }
        let out = hash(input);
        entry.len = len as u32;
        entry.input[..len].copy_from_slice(input);
        entry.hash = out;
        out
    }
}

/// The slot of an input of at most [`MAX_INPUT`] bytes: its length mixed with its last four
/// bytes and the four before its second word (a mapping key's low bytes, where an address
/// key's entropy lies; an address's or a topic's last bytes).
fn slot(input: &[u8]) -> usize {
    let word = |at: usize| {
        input
            .get(at..at + 4)
            .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    };
    let len = input.len();
    let last = len.checked_sub(4).map_or(0, word);
    let mixed = last ^ word(28).rotate_left(16) ^ len as u32;
    (mixed.wrapping_mul(0x9e37_79b1) >> (32 - SLOTS.trailing_zeros())) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use rand::{rngs::SmallRng, Rng, SeedableRng};

    fn reference(input: &[u8]) -> B256 {
        let mut out = [0u8; 32];
        let mut hasher = tiny_keccak::Keccak::v256();
        tiny_keccak::Hasher::update(&mut hasher, input);
        tiny_keccak::Hasher::finalize(hasher, &mut out);
        B256::from(out)
    }

    /// Every answer is the input's own hash (tiny-keccak's), over a pool of inputs that repeat,
    /// share slots, differ only in length or in one byte, and run past [`MAX_INPUT`]; repeats
    /// are answered from the memo.
    #[test]
    fn answers_are_each_inputs_own_hash() {
        let mut rng = SmallRng::seed_from_u64(0x3e30);
        let mut pool: Vec<Vec<u8>> = (0..400)
            .map(|_| {
                let len = rng.random_range(0..=MAX_INPUT + 16);
                (0..len).map(|_| rng.random::<u8>()).collect()
            })
            .collect();
        // Near twins: a prefix (same bytes, shorter), one byte changed, zeros of each length.
        for k in 0..100 {
            let mut twin = pool[k].clone();
            match k % 3 {
                0 => {
                    twin.pop();
                }
                1 if !twin.is_empty() => {
                    let at = rng.random_range(0..twin.len());
                    twin[at] ^= 1;
                }
                _ => twin = alloc::vec![0; k % (MAX_INPUT + 1)],
            }
            pool.push(twin);
        }
        let mut memo = Memo::new();
        let (mut calls, mut computed) = (0, 0);
        for _ in 0..50_000 {
            // Most lookups among a few recent inputs, as a contract's are.
            let at = if rng.random_range(0..4) == 0 {
                rng.random_range(0..pool.len())
            } else {
                rng.random_range(0..8)
            };
            let input = &pool[at];
            calls += 1;
            let got = memo.hash(input, |i| {
                computed += 1;
                reference(i)
            });
            assert_eq!(got, reference(input), "{input:02x?}");
        }
        assert!(computed < calls / 2, "{computed} of {calls} computed");
    }
}
