//! Witness items by hash, hashed only when asked for.
//!
//! A witness is an unordered list of byte strings (trie nodes, bytecodes) that the verifier
//! accepts only by their keccak: a node is the preimage of a hash some trusted node or header
//! holds. Hashing them all up front, as a map from hash to item needs, costs a keccak-f per
//! 136 bytes of items the block may never reach, and reads the whole witness in the first
//! segments of a proof, where the prover pays for every memory page touched (again in the later
//! segment that decodes the item).
//!
//! So a [`ByHash`] hashes on demand, in witness order: a lookup that misses hashes the next
//! items until one matches (or none is left, the only way to learn an item is absent). An item
//! is still only ever returned as the preimage of the hash asked for, so this is exactly as
//! sound as hashing everything first; the order only decides the cost. The host writes the
//! witness in the order the native run first asked for each item ([`ByHash::first_uses`], with
//! the `order` feature), so in the guest almost every miss hashes exactly the item it needs,
//! in the segment that uses it, and items the block never reaches are never hashed.
//!
//! The index is small because every segment that hashes or looks up an item touches random
//! pages of it: a map from the hash's first four bytes to the item's position (8-byte
//! entries), the full hashes in a vector in hashing order (which is the order of use, so
//! nearby), and a chain through the items whose prefixes collide. A lookup compares the full
//! hash, so colliding prefixes, even chosen ones, cost only time.

use alloc::vec::Vec;
use core::cell::{Cell, RefCell};

use alloy_primitives::{map::HashMap, B256};

use crate::keccak256;

/// Items (byte strings) by their keccak, hashed lazily in the given order.
#[derive(Debug, Clone, Default)]
pub struct ByHash<T> {
    items: Vec<T>,
    /// `items[..hashed]` are hashed: in `hashes`, `chain` and `index`.
    hashed: Cell<usize>,
    /// The hash of each item hashed so far, by position.
    hashes: RefCell<Vec<B256>>,
    /// Per item hashed so far, the previous item whose hash has the same prefix (`NONE`: none).
    chain: RefCell<Vec<u32>>,
    /// Hash prefix to the last item hashed with that prefix.
    index: RefCell<HashMap<u32, u32>>,
    /// Indices returned by lookups, in order (repeats included).
    #[cfg(feature = "order")]
    uses: RefCell<Vec<u32>>,
}

/// No item.
const NONE: u32 = u32::MAX;

/// The index key of `hash`: its first four bytes (keccak output is uniform).
fn prefix(hash: &B256) -> u32 {
    u32::from_le_bytes([hash[0], hash[1], hash[2], hash[3]])
}

/// The witness's trie nodes (RLP byte strings), borrowing the input bytes.
pub type NodeStore<'a> = ByHash<&'a [u8]>;

impl<T: AsRef<[u8]>> ByHash<T> {
    /// Keeps `items` in this order, hashing none yet.
    pub fn new<I: IntoIterator<Item = T>>(items: I) -> Self {
        let items: Vec<T> = items.into_iter().collect();
        // Room for every item up front: growing would copy the table and touch it again.
        let n = items.len();
        let index = HashMap::with_capacity_and_hasher(n, Default::default());
        Self {
            items,
            hashed: Cell::new(0),
            hashes: RefCell::new(Vec::with_capacity(n)),
            chain: RefCell::new(Vec::with_capacity(n)),
            index: RefCell::new(index),
            #[cfg(feature = "order")]
            uses: RefCell::new(Vec::new()),
        }
    }

    /// The item whose keccak is `hash`.
    pub fn get(&self, hash: &B256) -> Option<&T> {
        let at = match self.find(hash) {
            Some(at) => at,
            None => self.hash_until(Some(hash))?,
        };
        #[cfg(feature = "order")]
        self.uses.borrow_mut().push(at);
        Some(&self.items[at as usize])
    }

    /// The position of a hashed item whose hash is `hash`.
    fn find(&self, hash: &B256) -> Option<u32> {
        let mut at = *self.index.borrow().get(&prefix(hash))?;
        let (hashes, chain) = (self.hashes.borrow(), self.chain.borrow());
        while at != NONE {
            if hashes[at as usize] == *hash {
                return Some(at);
            }
            at = chain[at as usize];
        }
        None
    }

    /// Hashes the next items until one hashes to `hash` (all of them when `None`); `None` once
    /// all are hashed.
    fn hash_until(&self, hash: Option<&B256>) -> Option<u32> {
        let mut index = self.index.borrow_mut();
        let (mut hashes, mut chain) = (self.hashes.borrow_mut(), self.chain.borrow_mut());
        let mut next = self.hashed.get();
        let found = loop {
            let Some(item) = self.items.get(next) else {
                break None;
            };
            let at = next as u32;
            let key = keccak256(item.as_ref());
            next += 1;
            let previous = index.insert(prefix(&key), at).unwrap_or(NONE);
            hashes.push(key);
            chain.push(previous);
            if Some(&key) == hash {
                break Some(at);
            }
        };
        self.hashed.set(next);
        found
    }

    /// Whether an item hashes to `hash`.
    pub fn contains(&self, hash: &B256) -> bool {
        self.get(hash).is_some()
    }

    /// Number of items given (duplicates included).
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no item was given.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Number of distinct items (hashes every item not hashed yet).
    pub fn distinct(&self) -> usize {
        self.hash_until(None);
        let mut hashes = self.hashes.borrow().clone();
        hashes.sort_unstable();
        hashes.dedup();
        hashes.len()
    }

    /// The indices of the items lookups returned, each once, in the order first returned.
    #[cfg(feature = "order")]
    pub fn first_uses(&self) -> Vec<u32> {
        let mut seen = alloc::vec![false; self.items.len()];
        self.uses
            .borrow()
            .iter()
            .copied()
            .filter(|&at| !core::mem::replace(&mut seen[at as usize], true))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items() -> [&'static [u8]; 4] {
        [b"zero", b"one", b"two", b"one"]
    }

    #[test]
    fn a_lookup_hashes_only_up_to_the_item_it_needs() {
        let store = ByHash::new(items());
        assert_eq!(store.hashed.get(), 0);
        assert_eq!(store.get(&keccak256(b"one")), Some(&&b"one"[..]));
        assert_eq!(store.hashed.get(), 2, "zero and one, not two");
        // A hit hashes nothing more.
        assert_eq!(store.get(&keccak256(b"zero")), Some(&&b"zero"[..]));
        assert_eq!(store.hashed.get(), 2);
        assert_eq!(store.get(&keccak256(b"two")), Some(&&b"two"[..]));
        assert_eq!(store.hashed.get(), 3);
    }

    #[test]
    fn only_preimages_are_returned_and_absence_needs_every_item_hashed() {
        let store = ByHash::new(items());
        assert_eq!(store.get(&B256::repeat_byte(7)), None);
        assert_eq!(store.hashed.get(), 4);
        assert!(!store.contains(&keccak256(b"three")));
        for item in items() {
            assert_eq!(store.get(&keccak256(item)), Some(&item));
        }
        assert_eq!(store.len(), 4);
        assert_eq!(store.distinct(), 3);
    }

    #[test]
    fn colliding_prefixes_are_told_apart_by_the_full_hash() {
        let store = ByHash::new(items());
        store.get(&B256::ZERO);
        // Forge an index collision: item 2 chained behind item 0 under item 0's prefix.
        let (h0, h2) = (keccak256(b"zero"), keccak256(b"two"));
        store.chain.borrow_mut()[2] = 0;
        store.index.borrow_mut().insert(prefix(&h0), 2);
        assert_eq!(store.get(&h0), Some(&&b"zero"[..]));
        let mut fake = h0;
        fake[31] ^= 1;
        assert_eq!(store.get(&fake), None, "a shared prefix is not a match");
        assert_eq!(store.get(&h2), Some(&&b"two"[..]));
    }

    #[cfg(feature = "order")]
    #[test]
    fn first_uses_are_in_the_order_first_asked_for() {
        let store = ByHash::new(items());
        for item in [&b"two"[..], b"zero", b"two", b"one"] {
            store.get(&keccak256(item));
        }
        assert_eq!(store.first_uses(), [2, 0, 1]);
    }
}
