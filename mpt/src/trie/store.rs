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

use alloc::vec::Vec;
use core::cell::{Cell, RefCell};

use alloy_primitives::{map::B256Map, B256};

use crate::keccak256;

/// Items (byte strings) by their keccak, hashed lazily in the given order.
#[derive(Debug, Clone, Default)]
pub struct ByHash<T> {
    items: Vec<T>,
    /// `items[..hashed]` are in `index`.
    hashed: Cell<usize>,
    /// Hash to index in `items`.
    index: RefCell<B256Map<u32>>,
    /// Indices returned by lookups, in order (repeats included).
    #[cfg(feature = "order")]
    uses: RefCell<Vec<u32>>,
}

/// The witness's trie nodes (RLP byte strings), borrowing the input bytes.
pub type NodeStore<'a> = ByHash<&'a [u8]>;

impl<T: AsRef<[u8]>> ByHash<T> {
    /// Keeps `items` in this order, hashing none yet.
    pub fn new<I: IntoIterator<Item = T>>(items: I) -> Self {
        let items: Vec<T> = items.into_iter().collect();
        // Room for every item up front: growing would copy the table and touch it again.
        let index = B256Map::with_capacity_and_hasher(items.len(), Default::default());
        Self {
            items,
            hashed: Cell::new(0),
            index: RefCell::new(index),
            #[cfg(feature = "order")]
            uses: RefCell::new(Vec::new()),
        }
    }

    /// The item whose keccak is `hash`.
    pub fn get(&self, hash: &B256) -> Option<&T> {
        let found = self.index.borrow().get(hash).copied();
        let at = match found {
            Some(at) => at,
            None => self.hash_until(Some(hash))?,
        };
        #[cfg(feature = "order")]
        self.uses.borrow_mut().push(at);
        Some(&self.items[at as usize])
    }

    /// Hashes the next items until one hashes to `hash` (all of them when `None`); `None` once
    /// all are hashed.
    fn hash_until(&self, hash: Option<&B256>) -> Option<u32> {
        let mut index = self.index.borrow_mut();
        let mut next = self.hashed.get();
        let found = loop {
            let Some(item) = self.items.get(next) else {
                break None;
            };
            let at = next as u32;
            let key = keccak256(item.as_ref());
            next += 1;
            // A duplicate keeps the first index: both are the same bytes.
            index.entry(key).or_insert(at);
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
        self.index.borrow().len()
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
