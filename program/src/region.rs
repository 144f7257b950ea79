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

/// A stream of whole words, written to word addresses: the VM's hint stream.
pub trait Hint {
    /// Writes the next `count` words to `dst` (word-aligned, valid for `count` words).
    fn words(&mut self, dst: *mut u32, count: usize);
}

/// A byte [`Source`] over a [`Hint`] stream of words: a read that starts inside a word takes
/// the bytes left of the word read last; a read whose destination is then off the word grid
/// goes through a stack buffer (the hint writes whole words to word addresses only); a read
/// that ends inside a word keeps the rest of it for the next. No word is read before a byte of
/// it is asked for, so a reader that stays within the stream's bytes stays within its words.
pub struct Words<H> {
    hint: H,
    /// The word read last; its last `have` bytes are not yet read.
    carry: [u8; 4],
    have: usize,
}

impl<H: Hint> Words<H> {
    /// A source at the start of `hint`.
    pub fn new(hint: H) -> Self {
        Self {
            hint,
            carry: [0; 4],
            have: 0,
        }
    }
}

impl<H: Hint> Source for Words<H> {
    fn read(&mut self, dst: &mut [core::mem::MaybeUninit<u8>]) {
        use core::mem::MaybeUninit;
        let lead = self.have.min(dst.len());
        for (d, b) in dst[..lead].iter_mut().zip(&self.carry[4 - self.have..]) {
            d.write(*b);
        }
        self.have -= lead;
        let rest = &mut dst[lead..];
        if rest.is_empty() {
            return;
        }
        // Every byte of the last word is read: the stream is on a word boundary.
        let (words, tail) = (rest.len() / 4, rest.len() % 4);
        if words > 0 {
            if (rest.as_ptr() as usize).is_multiple_of(4) {
                self.hint.words(rest.as_mut_ptr().cast::<u32>(), words);
            } else {
                const STAGE: usize = 256;
                let mut stage = [MaybeUninit::<u32>::uninit(); STAGE];
                for chunk in rest[..4 * words].chunks_mut(4 * STAGE) {
                    let n = chunk.len() / 4;
                    self.hint.words(stage.as_mut_ptr().cast::<u32>(), n);
                    // SAFETY: the hint wrote `n` words of `stage`; `chunk` is `4 * n` bytes;
                    // a stack buffer and the destination never overlap.
                    unsafe {
                        core::ptr::copy_nonoverlapping(
                            stage.as_ptr().cast::<MaybeUninit<u8>>(),
                            chunk.as_mut_ptr(),
                            4 * n,
                        )
                    };
                }
            }
        }
        if tail > 0 {
            let mut word = MaybeUninit::<u32>::uninit();
            self.hint.words(word.as_mut_ptr(), 1);
            // SAFETY: the hint wrote the word.
            self.carry = unsafe { word.assume_init() }.to_le_bytes();
            for (d, b) in rest[4 * words..].iter_mut().zip(&self.carry) {
                d.write(*b);
            }
            self.have = 4 - tail;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::MaybeUninit;

    /// A hint stream over bytes (padded to whole words) that refuses to read past its words
    /// or to write off the word grid, as the VM does.
    struct Fake {
        bytes: alloc::vec::Vec<u8>,
        at: usize,
    }

    impl Hint for Fake {
        fn words(&mut self, dst: *mut u32, count: usize) {
            assert!(count > 0, "a hint of no words");
            assert!((dst as usize).is_multiple_of(4), "a hint off the word grid");
            assert!(
                self.at + 4 * count <= self.bytes.len(),
                "read past the stream"
            );
            for k in 0..count {
                let word = &self.bytes[self.at + 4 * k..self.at + 4 * k + 4];
                // SAFETY: the caller gives `count` writable words at `dst`.
                unsafe {
                    dst.add(k)
                        .write(u32::from_le_bytes(word.try_into().unwrap()))
                };
            }
            self.at += 4 * count;
        }
    }

    #[test]
    fn reads_of_any_length_to_any_alignment_give_the_stream_and_stay_in_it() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as usize
        };
        for round in 0..200 {
            let len = next(5000);
            let bytes: alloc::vec::Vec<u8> = (0..len).map(|k| (k * 7 + round) as u8).collect();
            let mut padded = bytes.clone();
            padded.resize(len.next_multiple_of(4), 0);
            let mut source = Words::new(Fake {
                bytes: padded,
                at: 0,
            });
            let mut out = alloc::vec::Vec::new();
            while out.len() < len {
                let n = match next(4) {
                    0 => next(4),
                    1 => next(16),
                    2 => next(1500),
                    _ => next(5000),
                }
                .min(len - out.len());
                // A buffer at every offset from the word grid.
                let skew = next(4);
                let mut buffer =
                    alloc::vec![MaybeUninit::<u32>::uninit(); (n + skew).div_ceil(4) + 1];
                // SAFETY: `u32` storage viewed as bytes, `n + skew` of them within it.
                let view = unsafe {
                    core::slice::from_raw_parts_mut(
                        buffer.as_mut_ptr().cast::<MaybeUninit<u8>>().add(skew),
                        n,
                    )
                };
                source.read(view);
                // SAFETY: `read` initialised all of `view`.
                out.extend(view.iter().map(|b| unsafe { b.assume_init() }));
            }
            assert_eq!(out, bytes, "round {round}");
        }
    }
}
