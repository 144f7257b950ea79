//! The input bytes read once, front to back, each witness item into a buffer its reader
//! chooses ([`InputStream`]): the standard guest's decoder.
//!
//! Why: a guest given the input as one buffer writes all of it (1.9 to 2.6 MB for a mainnet
//! block) in its first segment, and touches each item's pages again in the segment that uses
//! it; the prover pays for every page a segment touches. And SSZ packs the witness's byte
//! lists end to end behind a two-byte schema id, so in that buffer a node or a code starts at
//! any byte (the sponge stages each unaligned one) and no code has the zero padding revm wants
//! after it (each one run is copied). Read as a stream instead, the SSZ offsets give each
//! item's length before its bytes arrive, so the reader puts each one where it will stay: word
//! aligned, a code with its padding, and only when validation first needs it (the item lists
//! come in the order of use, as `host stateless-input` writes them).
//!
//! It accepts exactly the bytes [`crate::decode_input`] accepts, and refuses the others for
//! the same first reason (a differential test holds it), but learns of a fault only when it
//! reaches it: the codes' offsets after every node, the headers and the public keys last.
//! A caller's verdict must therefore wait for [`InputStream::finish`]; until then the input is
//! not known to decode.
//!
//! What it reads the bytes from is a [`Source`] ([`crate::source`]): the guest's hint stream,
//! or memory.

use alloc::vec::Vec;

use libssz::DecodeError;

use crate::input::{InputError, NewPayloadRequest};
use crate::schema::Fork;
use crate::source::{array, read_vec};
pub use crate::source::{InMemory, Source};
use crate::types::*;
use crate::view::{item_count, item_ends, starts};

const OFFSET: usize = 4;

/// Where the stream stands in the witness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// In the trie nodes.
    State,
    /// In the bytecodes.
    Codes,
    /// Past the codes: the headers and the keys are [`InputStream::finish`]'s.
    Rest,
    /// Finished (or failed).
    Done,
}

/// The input, read front to back: the request and the witness's layout when opened
/// ([`InputStream::open`]), then each witness item as its reader asks
/// ([`InputStream::next_item`]), then the headers and the public keys
/// ([`InputStream::finish`]).
#[derive(Debug)]
pub struct InputStream<S> {
    source: S,
    fork: Fork,
    chain_id: u64,
    /// SSZ bytes in all (after the schema id).
    len: usize,
    /// SSZ bytes read.
    at: usize,
    /// Where the codes, the headers and the keys start (absolute SSZ positions).
    codes_at: usize,
    headers_at: usize,
    keys_at: usize,
    /// The current list's items' ends (absolute), and the next item's index.
    ends: Vec<usize>,
    next: usize,
    section: Section,
    /// The first fault found after opening.
    error: Option<DecodeError>,
}

/// What follows the witness's items: the ancestor headers and the signers' public keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tail {
    /// RLP headers, oldest first, the parent last.
    pub headers: Vec<Vec<u8>>,
    /// The signers' public keys, in payload order.
    pub public_keys: Vec<[u8; PUBLIC_KEY_BYTES]>,
}

impl<S: Source> InputStream<S> {
    /// Reads the schema id, the request and the witness's layout (its trie nodes' offsets)
    /// from the `total` bytes of `source`: the request, for the caller to validate while the
    /// nodes are still unread.
    pub fn open(mut source: S, total: usize) -> Result<(Self, NewPayloadRequest), InputError> {
        if total < 2 {
            return Err(InputError::Short(total));
        }
        let id = u16::from_be_bytes(array::<2>(&mut source));
        let fork = Fork::from_schema_id(id).ok_or(InputError::Schema(id))?;
        let mut stream = Self {
            source,
            fork,
            chain_id: 0,
            len: total - 2,
            at: 0,
            codes_at: 0,
            headers_at: 0,
            keys_at: 0,
            ends: Vec::new(),
            next: 0,
            section: Section::State,
            error: None,
        };
        let request = stream.head().map_err(|why| stream.fault(why))?;
        Ok((stream, request))
    }

    fn fault(&self, why: DecodeError) -> InputError {
        InputError::Ssz {
            fork: self.fork.name(),
            why,
        }
    }

    /// The outer container's fixed part, the request, the witness's fixed part and its nodes'
    /// offsets: in the order `crate::InputView` checks them.
    fn head(&mut self) -> Result<NewPayloadRequest, DecodeError> {
        // request offset, witness offset, chain_id, public_keys offset.
        const FIXED: usize = 3 * OFFSET + 8;
        if self.len < FIXED {
            return Err(DecodeError::InvalidByteLength {
                expected: FIXED,
                got: self.len,
            });
        }
        let fixed = array::<FIXED>(&mut self.source);
        self.at = FIXED;
        let [request_at, witness_at, keys_at] = starts(&fixed, FIXED, self.len, [0, 4, 16])?;
        self.chain_id = u64::from_le_bytes(fixed[8..16].try_into().expect("8 bytes"));
        let request = read_vec(&mut self.source, witness_at - request_at);
        self.at = witness_at;
        let request = NewPayloadRequest::decode(self.fork.shape(), &request)?;

        // The witness: state, codes and headers offsets.
        let witness_len = keys_at - witness_at;
        if witness_len < 3 * OFFSET {
            return Err(DecodeError::InvalidByteLength {
                expected: 3 * OFFSET,
                got: witness_len,
            });
        }
        let fixed = array::<{ 3 * OFFSET }>(&mut self.source);
        self.at += 3 * OFFSET;
        let [state, codes, headers] = starts(&fixed, 3 * OFFSET, witness_len, [0, 4, 8])?;
        self.codes_at = witness_at + codes;
        self.headers_at = witness_at + headers;
        self.keys_at = keys_at;
        self.ends = self.list(
            witness_at + state,
            self.codes_at,
            usize::MAX,
            MAX_BYTES_PER_WITNESS_NODE,
        )?;
        Ok(request)
    }

    /// Reads the offsets of the list of byte lists at `[start, end)` (the stream is at
    /// `start`), at most `max` of at most `max_bytes` each: its items' ends, checked as
    /// `crate::InputView` checks them (every offset first, then every size).
    fn list(
        &mut self,
        start: usize,
        end: usize,
        max: usize,
        max_bytes: usize,
    ) -> Result<Vec<usize>, DecodeError> {
        debug_assert_eq!(self.at, start);
        let len = end - start;
        if len == 0 {
            return Ok(Vec::new());
        }
        if len < OFFSET {
            return Err(DecodeError::InvalidByteLength {
                expected: OFFSET,
                got: len,
            });
        }
        let first = u32::from_le_bytes(array::<OFFSET>(&mut self.source)) as usize;
        self.at += OFFSET;
        item_count(first, len, max)?;
        // In bounds: `first <= len`.
        let table = read_vec(&mut self.source, first - OFFSET);
        self.at += first - OFFSET;
        let ends = item_ends(first, &table, len, max_bytes)?;
        Ok(ends.into_iter().map(|end| start + end).collect())
    }

    /// The schema's fork.
    pub fn fork(&self) -> Fork {
        self.fork
    }

    /// The chain id.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// How many trie nodes the witness holds.
    pub fn node_count(&self) -> usize {
        if self.section == Section::State {
            self.ends.len()
        } else {
            0
        }
    }

    /// The next witness item, trie nodes first, then bytecodes: `read(source, len, is_code)`
    /// reads its `len` bytes from `source`, wherever it puts them. `None` after the last code,
    /// or where the codes' offsets are malformed ([`InputStream::finish`] says so).
    pub fn next_item<T>(&mut self, read: impl FnOnce(&mut S, usize, bool) -> T) -> Option<T> {
        loop {
            match self.section {
                Section::State | Section::Codes if self.next < self.ends.len() => {
                    let end = self.ends[self.next];
                    let len = end - self.at;
                    self.next += 1;
                    self.at = end;
                    let code = self.section == Section::Codes;
                    return Some(read(&mut self.source, len, code));
                }
                Section::State => {
                    self.next = 0;
                    match self.list(
                        self.codes_at,
                        self.headers_at,
                        usize::MAX,
                        MAX_BYTES_PER_CODE,
                    ) {
                        Ok(ends) => {
                            self.ends = ends;
                            self.section = Section::Codes;
                        }
                        Err(why) => {
                            self.ends = Vec::new();
                            self.error = Some(why);
                            self.section = Section::Done;
                        }
                    }
                }
                Section::Codes => {
                    self.section = Section::Rest;
                    return None;
                }
                Section::Rest | Section::Done => return None,
            }
        }
    }

    /// The headers and the public keys, once every item is read (any left are read and
    /// dropped), and so whether the input decodes at all. Call it once.
    pub fn finish(&mut self) -> Result<Tail, InputError> {
        while self
            .next_item(|source, len, _| drop(read_vec(source, len)))
            .is_some()
        {}
        let tail = self.tail();
        self.section = Section::Done;
        tail.map_err(|why| self.fault(why))
    }

    fn tail(&mut self) -> Result<Tail, DecodeError> {
        if let Some(why) = self.error.take() {
            return Err(why);
        }
        if self.section != Section::Rest {
            return Err(DecodeError::InvalidByteLength {
                expected: self.len,
                got: self.at,
            });
        }
        let ends = self.list(
            self.headers_at,
            self.keys_at,
            MAX_WITNESS_HEADERS,
            MAX_BYTES_PER_HEADER,
        )?;
        let headers = ends
            .into_iter()
            .map(|end| {
                let header = read_vec(&mut self.source, end - self.at);
                self.at = end;
                header
            })
            .collect();
        let keys = self.len - self.keys_at;
        if !keys.is_multiple_of(PUBLIC_KEY_BYTES) {
            return Err(DecodeError::InvalidByteLength {
                expected: PUBLIC_KEY_BYTES,
                got: keys,
            });
        }
        let public_keys = (0..keys / PUBLIC_KEY_BYTES)
            .map(|_| array::<PUBLIC_KEY_BYTES>(&mut self.source))
            .collect();
        self.at = self.len;
        Ok(Tail {
            headers,
            public_keys,
        })
    }
}

/// Decodes `bytes` through the stream, every item into a vector of its own: the same input as
/// [`crate::decode_input`]'s, or the same error (what the differential tests compare).
pub fn decode_streamed(bytes: &[u8]) -> Result<crate::StatelessInput, InputError> {
    let (mut stream, request) = InputStream::open(InMemory::new(bytes), bytes.len())?;
    let (mut state, mut codes) = (Vec::new(), Vec::new());
    while let Some((item, code)) =
        stream.next_item(|source, len, code| (read_vec(source, len), code))
    {
        if code { &mut codes } else { &mut state }.push(item);
    }
    let tail = stream.finish()?;
    Ok(crate::view::owned(
        stream.fork,
        request,
        [state, codes, tail.headers],
        stream.chain_id,
        tail.public_keys,
    ))
}
