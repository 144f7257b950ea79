//! Where the guest puts the witness items it reads: packed one after another in a region of
//! their own, each on a word boundary, with the zero padding its reader asks for
//! ([`read_item`]). The block guest reads each item as one input item; the standard guest reads
//! them from its one input's stream ([`stateless_ssz::InputStream`]).

use mpt::trie::Item;
use stateless_ssz::Source;

/// The witness's items, packed one after another in a region of their own.
///
/// Each item read into its own allocation lies among whatever the guest allocated since the
/// last one (revm's state and journal, the tries' tables), so the pages that hold items hold
/// those too, and the other way round. Packed, the items fill their pages, and so do the rest:
/// 0.30% and 0.49% fewer main cells on 24171384 and 21882667 (`host bench`), for the same
/// instructions.
#[cfg(target_os = "zkvm")]
mod items {
    use core::mem::MaybeUninit;

    /// Address space reserved for items; never touched until written (the bump allocator
    /// hands out address space). An item that no longer fits gets its own allocation.
    const REGION: usize = 64 << 20;

    static mut NEXT: usize = 0;
    static mut END: usize = 0;

    /// `capacity` bytes (a multiple of four) on a word boundary, for the rest of the run.
    pub(crate) fn take(capacity: usize) -> &'static mut [MaybeUninit<u8>] {
        // SAFETY: the guest runs one thread; `NEXT..END` is a leaked allocation's unused
        // rest, handed out once each, in order, so no two buffers overlap.
        unsafe {
            if END == 0 {
                let region = alloc::vec::Vec::<u32>::with_capacity(REGION / 4).leak();
                NEXT = region.as_mut_ptr() as usize;
                END = NEXT + REGION;
            }
            if END - NEXT < capacity {
                let mut own = alloc::vec::Vec::<u32>::with_capacity(capacity.div_ceil(4));
                let at = own.as_mut_ptr().cast::<MaybeUninit<u8>>();
                core::mem::forget(own);
                return core::slice::from_raw_parts_mut(at, capacity);
            }
            let at = NEXT;
            NEXT += capacity;
            core::slice::from_raw_parts_mut(at as *mut MaybeUninit<u8>, capacity)
        }
    }
}

#[cfg(target_os = "zkvm")]
pub(crate) use items::take;

/// The next `len` bytes of `source` as an item with `padding` zero bytes after it: in the
/// guest, read straight into the item region, on a word boundary.
pub fn read_item(source: &mut impl Source, len: usize, padding: usize) -> Item {
    #[cfg(target_os = "zkvm")]
    {
        // A stream's items are at most 64 KiB: no sum wraps.
        let capacity = len.next_multiple_of(4) + padding;
        let buffer = take(capacity);
        source.read(&mut buffer[..len]);
        for byte in &mut buffer[len..len + padding] {
            byte.write(0);
        }
        // SAFETY: `read` initialised the first `len` bytes, the loop the `padding` after them.
        let bytes: &'static [u8] =
            unsafe { core::slice::from_raw_parts(buffer.as_ptr().cast::<u8>(), len + padding) };
        Item {
            buffer: alloy_primitives::Bytes::from_static(bytes),
            len,
        }
    }
    #[cfg(not(target_os = "zkvm"))]
    {
        let mut bytes = alloc::vec::Vec::with_capacity(len + padding);
        source.read(&mut bytes.spare_capacity_mut()[..len]);
        // SAFETY: `read` initialised the first `len` bytes of the spare capacity.
        unsafe { bytes.set_len(len) };
        Item::padded(bytes, padding)
    }
}
