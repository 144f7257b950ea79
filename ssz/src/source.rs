//! Where an input's bytes come from, front to back ([`Source`]): the guest's hint stream (the
//! guest's own), or memory ([`InMemory`]); and the reads [`crate::stream::InputStream`] makes
//! of one.

use alloc::vec::Vec;
use core::mem::MaybeUninit;

/// Where the input's bytes come from, front to back.
pub trait Source {
    /// Writes the next `dst.len()` bytes of the input into `dst`: every byte of it is
    /// initialised after. [`InputStream`] never asks for bytes past the input's end.
    fn read(&mut self, dst: &mut [MaybeUninit<u8>]);
}

/// An input held in memory: the host's source, and the tests'.
#[derive(Debug, Clone)]
pub struct InMemory<B> {
    bytes: B,
    at: usize,
}

impl<B: AsRef<[u8]>> InMemory<B> {
    /// A source of `bytes`.
    pub fn new(bytes: B) -> Self {
        Self { bytes, at: 0 }
    }

    /// The input's length.
    pub fn len(&self) -> usize {
        self.bytes.as_ref().len()
    }

    /// Whether the input is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<B: AsRef<[u8]>> Source for InMemory<B> {
    fn read(&mut self, dst: &mut [MaybeUninit<u8>]) {
        let bytes = &self.bytes.as_ref()[self.at..self.at + dst.len()];
        for (d, b) in dst.iter_mut().zip(bytes) {
            d.write(*b);
        }
        self.at += dst.len();
    }
}

/// The next `n` bytes of `source`, in a vector of their own.
pub fn read_vec(source: &mut impl Source, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n);
    source.read(&mut out.spare_capacity_mut()[..n]);
    // SAFETY: `read` initialised the first `n` bytes of the spare capacity.
    unsafe { out.set_len(n) };
    out
}

pub(crate) fn array<const N: usize>(source: &mut impl Source) -> [u8; N] {
    let mut out = [MaybeUninit::<u8>::uninit(); N];
    source.read(&mut out);
    // SAFETY: `read` initialised all `N` bytes; `MaybeUninit<u8>` and `u8` share a layout.
    out.map(|b| unsafe { b.assume_init() })
}
