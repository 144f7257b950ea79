//! The witness's byte strings (trie nodes and bytecodes) by hash, hashed only when asked for.
//!
//! A witness is an unordered list of byte strings that the verifier accepts only by their
//! keccak: a node or a code is the preimage of a hash some trusted node, account or header
//! holds. Hashing them all up front, as a map from hash to item needs, costs a keccak-f per
//! 136 bytes of items the block may never reach, and reads the whole witness in the first
//! segments of a proof, where the prover pays for every memory page touched (and again in the
//! later segment that decodes the item).
//!
//! So a [`WitnessStore`] hashes on demand, in witness order: a lookup that misses pulls and
//! hashes the next items until one matches (or none is left, the only way to learn an item is
//! absent). Items come from a source that can itself be lazy: in the guest, each is read from
//! the input stream only when pulled, so its memory is first written in the segment that uses
//! it. An item is still only ever returned as the preimage of the hash asked for, so this is
//! exactly as sound as hashing everything first; the order decides the cost alone. The host
//! writes the witness in the order its native run first asked for each item
//! ([`WitnessStore::first_uses`], with the `order` feature), so almost every miss pulls exactly
//! the item it needs, and items the block never reaches are never read or hashed.
//!
//! Trie nodes and bytecodes share one store: a lookup by hash cannot mistake one for the other
//! (equal hashes are equal bytes), and one stream keeps both in the order they are used.
//!
//! Most lookups need no index at all: the items come in the order lookups first ask for them,
//! so a lookup first compares the item at a cursor (the first one pulled that no lookup has
//! claimed in order), pulling it if need be; only a repeat or an item out of order goes
//! through the index (0.9% and 1.7% fewer main cells on 24171384 and 21882667 than looking
//! every item up there first).
//! The index is small because every segment that hashes or looks up an item touches random
//! pages of it: a table of buckets, one per expected item, picked by the low bits of the
//! hash's first four bytes, each holding the position of its newest item (4-byte entries);
//! the full hashes in a vector in pull order (the order of use, so nearby); and a chain through
//! the items of each bucket. A lookup compares the full hash, so colliding buckets, even
//! chosen ones, cost only time.
//!
//! Hashes are kept and compared on word boundaries ([`Key`]): a hash asked for often lies at
//! any byte of a node's RLP, and the guest's `memcmp` (`program::memcmp`) compares operands at
//! different offsets in a word byte by byte. Copying such a hash once per lookup costs less
//! than comparing it unaligned (measured on 24171384, and less than assembling its words from
//! bytes for each comparison).

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::cell::RefCell;

use alloy_primitives::{Bytes, B256};

use crate::keccak256;

/// Where a store's items come from, in witness order.
pub type Source = Box<dyn Iterator<Item = Item>>;

/// One witness byte string as read: `buffer[..len]`. A buffer may go on past the item: the
/// guest reads each bytecode with zero padding after it, which is what revm's jump analysis
/// would otherwise copy the code to get ([`WitnessStore::padded`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The item, and whatever follows it.
    pub buffer: Bytes,
    /// The item's length.
    pub len: usize,
}

impl Item {
    /// `bytes` followed by `padding` zero bytes.
    pub fn padded(mut bytes: Vec<u8>, padding: usize) -> Self {
        let len = bytes.len();
        bytes.resize(len + padding, 0);
        Self {
            buffer: bytes.into(),
            len,
        }
    }
}

impl<B: Into<Bytes>> From<B> for Item {
    fn from(bytes: B) -> Self {
        let buffer = bytes.into();
        Self {
            len: buffer.len(),
            buffer,
        }
    }
}

/// Witness byte strings by their keccak, pulled and hashed lazily in the source's order.
pub struct WitnessStore {
    /// Items pulled (and hashed) so far. Only ever appended to.
    items: RefCell<Vec<Item>>,
    /// The items not pulled yet.
    source: RefCell<Source>,
    /// How many items the source holds in all.
    len: usize,
    /// The hash of each item pulled, by position.
    hashes: RefCell<Vec<Key>>,
    /// Per item pulled, the previous item whose hash has the same prefix (`NONE`: none).
    chain: RefCell<Vec<u32>>,
    /// The last item pulled into each bucket (`NONE`: none), a bucket being the low bits of
    /// a hash's prefix ([`Buckets`]).
    index: RefCell<Buckets>,
    /// The first item pulled that no lookup has claimed in order yet ([`WitnessStore::position`]).
    cursor: core::cell::Cell<u32>,
    /// Positions returned by lookups, in order (repeats included).
    #[cfg(feature = "order")]
    uses: RefCell<Vec<u32>>,
}

impl core::fmt::Debug for WitnessStore {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WitnessStore")
            .field("len", &self.len)
            .field("pulled", &self.items.borrow().len())
            .finish()
    }
}

impl Default for WitnessStore {
    /// A store with no item.
    fn default() -> Self {
        Self::new(Vec::<Bytes>::new())
    }
}

/// No item.
const NONE: u32 = u32::MAX;

/// The most items a store reserves room for before any arrives (and a trie's arena, before
/// any node is decoded): ten times a mainnet block's witness (24171384: ~10 K items), a few MB of
/// tables. A declared count is the prover's word; memory is reserved by what really arrives.
pub const MAX_RESERVED_ITEMS: usize = 1 << 17;

/// A hash on a word boundary, so that comparing two is a word-wise `memcmp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(C, align(4))]
struct Key(B256);

/// The index key of `hash`: its first four bytes (keccak output is uniform).
fn prefix(hash: &Key) -> u32 {
    u32::from_le_bytes([hash.0[0], hash.0[1], hash.0[2], hash.0[3]])
}

/// The index's table: per bucket, the last item pulled into it; the items of one bucket are
/// chained through `chain`, newest first. A keccak's bits are uniform, so a bucket is the
/// prefix's low bits as they are, with no hasher: a lookup is an array read, and the table is
/// 4 bytes per bucket, half a hash map's 8 (a map from prefix to item, as this was, touched
/// 438 of 24171384's 14,153 page touches and cost 107 instructions an insert).
struct Buckets(Vec<u32>);

impl Buckets {
    /// One bucket per expected item, rounded up to a power of two.
    fn new(items: usize) -> Self {
        Self(alloc::vec![NONE; items.next_power_of_two().max(16)])
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn bucket(&self, prefix: u32) -> usize {
        prefix as usize & (self.0.len() - 1)
    }

    /// The last item pulled into `prefix`'s bucket, or `NONE`.
    fn head(&self, prefix: u32) -> u32 {
        self.0[self.bucket(prefix)]
    }

    /// Makes `at` the bucket's newest item; returns the one it now chains to.
    fn insert(&mut self, prefix: u32, at: u32) -> u32 {
        let bucket = self.bucket(prefix);
        core::mem::replace(&mut self.0[bucket], at)
    }

    /// Doubles the table (more items arrived than the input declared) and rechains every item
    /// pulled, oldest first, so chains stay newest first and short.
    fn grow(&mut self, hashes: &[Key], chain: &mut [u32]) {
        *self = Self::new(2 * self.0.len());
        for (at, hash) in hashes.iter().enumerate() {
            chain[at] = self.insert(prefix(hash), at as u32);
        }
    }
}

impl WitnessStore {
    /// A store of `items`, in this order, none hashed yet.
    pub fn new<I, B>(items: I) -> Self
    where
        I: IntoIterator<Item = B>,
        B: Into<Item>,
    {
        let items: Vec<Item> = items.into_iter().map(Into::into).collect();
        let len = items.len();
        Self::streaming(len, Box::new(items.into_iter()))
    }

    /// A store of the `len` items `source` yields, pulled only when a lookup needs them.
    pub fn streaming(len: usize, source: Source) -> Self {
        Self::streaming_with_room(len, len, source)
    }

    /// A store of the items `source` yields, `len` of them declared so far (the index's size),
    /// with room reserved for `room` (a bound on the rest, as the standard input's layout
    /// gives one before its codes' count is read): reserved address space is free until
    /// written, where growing would copy the tables and touch them again.
    pub fn streaming_with_room(len: usize, room: usize, source: Source) -> Self {
        // `len` and `room` are what the input declares, not what it holds: room for at most
        // `MAX_RESERVED_ITEMS`, beyond which the tables grow as items really arrive, so a lying
        // count cannot run the guest out of memory before a single item is read.
        let buckets = len.min(MAX_RESERVED_ITEMS);
        let room = room.max(len).min(MAX_RESERVED_ITEMS);
        Self {
            items: RefCell::new(Vec::with_capacity(room)),
            source: RefCell::new(source),
            len,
            hashes: RefCell::new(Vec::with_capacity(room)),
            chain: RefCell::new(Vec::with_capacity(room)),
            index: RefCell::new(Buckets::new(buckets)),
            cursor: core::cell::Cell::new(0),
            #[cfg(feature = "order")]
            uses: RefCell::new(Vec::new()),
        }
    }

    /// The item whose keccak is `hash`, as a view into the store.
    pub fn get(&self, hash: &B256) -> Option<&[u8]> {
        let at = self.position(hash)?;
        Some(self.view(at as usize))
    }

    /// The hash of the source's first item (pulled and hashed if it is not yet), `None` when
    /// the source has none. Not a lookup: the item is a node only where its hash is asked for.
    pub fn first_hash(&self) -> Option<B256> {
        if self.items.borrow().is_empty() {
            self.pull_one()?;
        }
        Some(self.hashes.borrow()[0].0)
    }

    /// Every item, in the source's order (pulls and hashes those not pulled yet). Not a
    /// lookup: an item is still only a node where its hash is asked for.
    pub fn items(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.pull_until(None);
        let pulled = self.items.borrow().len();
        (0..pulled).map(|at| self.view(at))
    }

    /// The pulled item at `at`, as a view into the store.
    fn view(&self, at: usize) -> &[u8] {
        let items = self.items.borrow();
        let item = &items[at];
        // SAFETY: `Bytes` keeps its bytes at a fixed address however the handle moves, and an
        // item is never removed or replaced once pulled (`items` is only appended to), so its
        // bytes live, unchanged, as long as the store, which `&self` borrows; `len` is within
        // the buffer (checked when pulled).
        unsafe { core::slice::from_raw_parts(item.buffer.as_ptr(), item.len) }
    }

    /// The item whose keccak is `hash` with whatever its buffer holds after it.
    pub fn padded(&self, hash: &B256) -> Option<Item> {
        let at = self.position(hash)?;
        Some(self.items.borrow()[at as usize].clone())
    }

    /// Whether an item hashes to `hash`.
    pub fn contains(&self, hash: &B256) -> bool {
        self.position(hash).is_some()
    }

    fn position(&self, hash: &B256) -> Option<u32> {
        let copy;
        let hash = if (hash.as_ptr() as usize).is_multiple_of(4) {
            // SAFETY: `Key` is `B256` (`repr(C)`, one field) on a word boundary, which `hash` is.
            unsafe { &*(hash as *const B256 as *const Key) }
        } else {
            copy = Key(*hash);
            &copy
        };
        let at = match self.next_in_order(hash) {
            Some(at) => at,
            None => match self.find(hash) {
                Some(at) => at,
                None => self.pull_until(Some(hash))?,
            },
        };
        #[cfg(feature = "order")]
        self.uses.borrow_mut().push(at);
        Some(at)
    }

    /// The next item in source order, if it is the one asked for: the item at the cursor,
    /// pulled first if need be. The host writes the items in the order lookups first ask for
    /// them, so almost every lookup of an item not asked for before is this one, and costs one
    /// comparison with the newest hashes: no index bucket read, and none of the older hashes
    /// a bucket's chain leads to (random pages of the store, touched again in every segment).
    /// Anything else (an item asked for again, or out of order) goes through the index.
    #[inline(always)]
    fn next_in_order(&self, hash: &Key) -> Option<u32> {
        let at = self.cursor.get();
        if at as usize == self.items.borrow().len() {
            // Pulled now: the lookups to come will ask for it if this one does not.
            let pulled = self.pull_one()?;
            // (`plant-cursor`, a test-only mutant: the cursor claims its item uncompared.)
            if pulled != *hash && !cfg!(feature = "plant-cursor") {
                return None;
            }
        } else if self.hashes.borrow()[at as usize] != *hash && !cfg!(feature = "plant-cursor") {
            return None;
        }
        self.cursor.set(at + 1);
        Some(at)
    }

    /// Pulls and hashes the next item; its hash, or `None` when the source is exhausted.
    #[inline(always)]
    fn pull_one(&self) -> Option<Key> {
        let mut source = self.source.borrow_mut();
        let mut items = self.items.borrow_mut();
        let (mut hashes, mut chain) = (self.hashes.borrow_mut(), self.chain.borrow_mut());
        let mut index = self.index.borrow_mut();
        let mut item = source.next()?;
        item.len = item.len.min(item.buffer.len());
        let at = items.len() as u32;
        let key = Key(keccak256(&item.buffer[..item.len]));
        items.push(item);
        hashes.push(key);
        chain.push(index.insert(prefix(&key), at));
        if items.len() > 2 * index.len() {
            index.grow(&hashes, &mut chain);
        }
        Some(key)
    }

    /// The position of a pulled item whose hash is `hash`.
    fn find(&self, hash: &Key) -> Option<u32> {
        let mut at = self.index.borrow().head(prefix(hash));
        let (hashes, chain) = (self.hashes.borrow(), self.chain.borrow());
        while at != NONE {
            if hashes[at as usize] == *hash {
                return Some(at);
            }
            at = chain[at as usize];
        }
        None
    }

    /// Pulls and hashes items until one hashes to `hash` (all of them when `None`); `None` once
    /// the source is exhausted. Always inlined into the hot lookup, whatever else calls it
    /// ([`WitnessStore::items`]).
    #[inline(always)]
    fn pull_until(&self, hash: Option<&Key>) -> Option<u32> {
        loop {
            let key = self.pull_one()?;
            if Some(&key) == hash {
                return Some(self.items.borrow().len() as u32 - 1);
            }
        }
    }

    /// Number of items the source holds (duplicates included).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the store holds no item.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of distinct items (pulls and hashes every item not pulled yet).
    pub fn distinct(&self) -> usize {
        self.pull_until(None);
        let mut hashes = self.hashes.borrow().clone();
        hashes.sort_unstable();
        hashes.dedup();
        hashes.len()
    }

    /// The positions (in the source's order) of the items lookups returned, each once, in the
    /// order first returned.
    #[cfg(feature = "order")]
    pub fn first_uses(&self) -> Vec<u32> {
        let mut seen = alloc::vec![false; self.len.max(self.items.borrow().len())];
        self.uses
            .borrow()
            .iter()
            .copied()
            .filter(|&at| !core::mem::replace(&mut seen[at as usize], true))
            .collect()
    }

    #[cfg(test)]
    fn pulled(&self) -> usize {
        self.items.borrow().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items() -> [&'static [u8]; 4] {
        [b"zero", b"one", b"two", b"one"]
    }

    /// A count the input declares but does not hold reserves only the capped room: before the
    /// cap, `streaming(1 << 40, …)` asked for terabytes up front and aborted the process.
    #[test]
    fn a_lying_count_reserves_only_bounded_room() {
        let items: Vec<Item> = items().iter().map(|b| Item::from(b.to_vec())).collect();
        let store = WitnessStore::streaming(1 << 40, Box::new(items.into_iter()));
        assert!(store.items.borrow().capacity() <= MAX_RESERVED_ITEMS);
        assert!(store.hashes.borrow().capacity() <= MAX_RESERVED_ITEMS);
        assert_eq!(store.len(), 1 << 40);
        assert_eq!(store.get(&keccak256(b"two")), Some(&b"two"[..]));
        // The source ends long before the count: an absent item is found absent.
        assert_eq!(store.get(&keccak256(b"three")), None);
        assert_eq!(store.pulled(), 4);
    }

    #[test]
    fn a_lookup_pulls_only_up_to_the_item_it_needs() {
        let store = WitnessStore::new(items());
        assert_eq!(store.pulled(), 0);
        assert_eq!(store.get(&keccak256(b"one")), Some(&b"one"[..]));
        assert_eq!(store.pulled(), 2, "zero and one, not two");
        // A hit pulls nothing more.
        assert_eq!(store.get(&keccak256(b"zero")), Some(&b"zero"[..]));
        assert_eq!(store.pulled(), 2);
        assert_eq!(store.get(&keccak256(b"two")), Some(&b"two"[..]));
        assert_eq!(store.pulled(), 3);
    }

    /// Lookups in source order claim the item at the cursor; a repeat pulls the next item
    /// early and leaves it unclaimed for the lookup that wants it; out of order goes through
    /// the index, and the cursor still claims the items in order after it.
    #[test]
    fn the_cursor_follows_lookups_in_source_order_through_repeats() {
        let items: [&[u8]; 4] = [b"a", b"b", b"c", b"d"];
        let store = WitnessStore::new(items);
        let steps: [(&[u8], usize, u32); 6] = [
            (b"a", 1, 1),
            (b"b", 2, 2),
            (b"a", 3, 2), // a repeat: "c" pulled, not claimed
            (b"c", 3, 3), // claimed where it lies, nothing pulled
            (b"d", 4, 4),
            (b"b", 4, 4),
        ];
        for (item, pulled, cursor) in steps {
            assert_eq!(store.get(&keccak256(item)), Some(item));
            assert_eq!((store.pulled(), store.cursor.get()), (pulled, cursor));
        }
        assert_eq!(store.get(&keccak256(b"e")), None);

        let store = WitnessStore::new(items);
        assert_eq!(store.get(&keccak256(b"c")), Some(&b"c"[..]));
        assert_eq!((store.pulled(), store.cursor.get()), (3, 0));
        for (k, item) in items.iter().enumerate() {
            assert_eq!(store.get(&keccak256(item)), Some(*item));
            assert_eq!(store.cursor.get(), k as u32 + 1);
        }
        assert_eq!(store.pulled(), 4);
    }

    #[test]
    fn an_item_is_hashed_without_its_padding_which_stays_reachable() {
        let padded = Item::padded(b"code".to_vec(), 4);
        assert_eq!(padded.buffer, Bytes::from_static(b"code\0\0\0\0"));
        let store = WitnessStore::new([padded.clone()]);
        assert_eq!(store.get(&keccak256(b"code")), Some(&b"code"[..]));
        assert_eq!(store.padded(&keccak256(b"code")), Some(padded));
        assert_eq!(store.get(&keccak256(b"code\0\0\0\0")), None);
    }

    #[test]
    fn a_streaming_source_is_read_only_as_far_as_lookups_need() {
        let read = alloc::rc::Rc::new(core::cell::Cell::new(0));
        let counter = read.clone();
        let source = items().into_iter().map(move |item| {
            counter.set(counter.get() + 1);
            Item::from(item)
        });
        let store = WitnessStore::streaming(4, Box::new(source));
        assert_eq!(store.get(&keccak256(b"zero")), Some(&b"zero"[..]));
        assert_eq!(read.get(), 1);
        assert!(!store.contains(&keccak256(b"three")));
        assert_eq!(read.get(), 4);
    }

    #[test]
    fn only_preimages_are_returned_and_absence_needs_every_item_hashed() {
        let store = WitnessStore::new(items());
        assert_eq!(store.get(&B256::repeat_byte(7)), None);
        assert_eq!(store.pulled(), 4);
        assert!(!store.contains(&keccak256(b"three")));
        for item in items() {
            assert_eq!(store.get(&keccak256(item)), Some(item));
        }
        assert_eq!(store.len(), 4);
        assert_eq!(store.distinct(), 3);
    }

    /// A count that understates the items leaves the table small; it doubles as they arrive
    /// (past twice its buckets), and every item, pulled before or after, is found.
    #[test]
    fn more_items_than_declared_grow_the_table() {
        let items: Vec<Vec<u8>> = (0u32..300).map(|k| k.to_le_bytes().to_vec()).collect();
        let source: Vec<Item> = items.iter().cloned().map(Item::from).collect();
        let store = WitnessStore::streaming(1, Box::new(source.into_iter()));
        assert_eq!(store.index.borrow().len(), 16);
        assert_eq!(store.get(&keccak256(&items[299])), Some(&items[299][..]));
        assert_eq!(store.pulled(), 300);
        assert_eq!(store.index.borrow().len(), 256);
        for item in &items {
            assert_eq!(store.get(&keccak256(item)), Some(&item[..]));
        }
        assert_eq!(store.get(&keccak256(b"absent")), None);
    }

    #[test]
    fn colliding_prefixes_are_told_apart_by_the_full_hash() {
        let store = WitnessStore::new(items());
        store.get(&B256::ZERO);
        // Forge an index collision: item 2 chained behind item 0 under item 0's prefix.
        let (h0, h2) = (keccak256(b"zero"), keccak256(b"two"));
        store.chain.borrow_mut()[2] = 0;
        store.index.borrow_mut().insert(prefix(&Key(h0)), 2);
        assert_eq!(store.get(&h0), Some(&b"zero"[..]));
        let mut fake = h0;
        fake[31] ^= 1;
        assert_eq!(store.get(&fake), None, "a shared prefix is not a match");
        assert_eq!(store.get(&h2), Some(&b"two"[..]));
    }

    #[cfg(feature = "order")]
    #[test]
    fn first_uses_are_in_the_order_first_asked_for() {
        let store = WitnessStore::new(items());
        for item in [&b"two"[..], b"zero", b"two", b"one"] {
            store.get(&keccak256(item));
        }
        assert_eq!(store.first_uses(), [2, 0, 1]);
    }
}
