//! A branch's child reference packed into one word.
//!
//! A branch holds 16 child references. As a [`Child`] each takes two words (a tag, then a
//! hash pointer or an arena index), so a branch's children were 128 of an arena node's 184
//! bytes on the 32-bit guest. A prover pays for every memory page each proof segment touches,
//! and the arena is walked by every lookup and again by the state root: packed, a branch's
//! children take 64 bytes and the node 120, so the same nodes lie on two thirds of the pages.
//!
//! The packing: `0` is an empty slot, a word with the top bit set an arena index (below
//! 2^31 on the guest, by far more than its memory holds), and any other word the address of
//! the child's hash. No hash lives at address 0 or in the top half of the address space: the
//! guest's memory is 2^29 bytes, and a 64-bit host's user space ends far below 2^63. Both
//! bounds are asserted when a slot is made, never assumed.

use alloy_primitives::B256;
use core::marker::PhantomData;

use super::{Child, NodeId};

/// The top bit: set for an arena index.
const NODE: usize = 1 << (usize::BITS - 1);

/// One branch child reference in one word: a [`Child`] packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slot<'s>(usize, PhantomData<&'s B256>);

impl<'s> Slot<'s> {
    /// An empty slot.
    pub(super) const EMPTY: Self = Self(0, PhantomData);

    /// `child`, packed.
    #[inline(always)]
    pub(super) fn new(child: Child<'s>) -> Self {
        match child {
            Child::Empty => Self::EMPTY,
            Child::Hash(hash) => {
                let at = core::ptr::from_ref(hash).expose_provenance();
                assert!(
                    at & NODE == 0,
                    "a hash in the top half of the address space"
                );
                Self(at, PhantomData)
            }
            Child::Node(id) => {
                let id = id as usize;
                assert!(id & NODE == 0, "an arena index of 2^31 or more");
                Self(id | NODE, PhantomData)
            }
        }
    }

    /// The reference, unpacked.
    #[inline(always)]
    pub(super) fn get(self) -> Child<'s> {
        if self.0 & NODE != 0 {
            Child::Node((self.0 & !NODE) as NodeId)
        } else if self.0 == 0 {
            Child::Empty
        } else {
            // SAFETY: a nonzero word without the top bit is only ever made by `new` from a
            // `&'s B256` (its exposed address), so it points at that hash, which lives for `'s`.
            Child::Hash(unsafe { &*core::ptr::with_exposed_provenance::<B256>(self.0) })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_reference_round_trips() {
        let hashes = [B256::repeat_byte(1), B256::repeat_byte(2)];
        for child in [
            Child::Empty,
            Child::Hash(&hashes[0]),
            Child::Hash(&hashes[1]),
            Child::Node(0),
            Child::Node(1),
            Child::Node(0x7fff_ffff),
        ] {
            assert_eq!(Slot::new(child).get(), child);
        }
        assert_eq!(Slot::new(Child::Empty), Slot::EMPTY);
        assert_ne!(Slot::new(Child::Node(0)), Slot::EMPTY);
    }
}
