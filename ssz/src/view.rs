//! The input bytes decoded without copying the witness: its trie nodes, codes and headers, and
//! the public keys, stay views into the bytes read ([`InputView`]).
//!
//! Why by hand: `libssz` decodes into owned values, so [`crate::decode_input`] copies every
//! witness item into a list of its own: a few MB for a mainnet block. In the guest each copy
//! touches as much fresh memory again, and the prover pays per page touched per segment; the
//! witness is most of the input, and the validator needs it only as byte strings it hashes and
//! reads. So this module walks the two outer containers (`StatelessInput`, `ExecutionWitness`)
//! and the witness's lists of byte lists itself, and hands the request (small beside the
//! witness) to `libssz`'s decoder of the fork's shape.
//!
//! It accepts exactly the bytes [`crate::decode_input`] accepts, with the same contents
//! ([`InputView::to_owned`]; a differential test over corrupted and over-limit inputs holds it):
//! the first offset of a container is its fixed part's length; offsets never decrease and
//! stay in bounds; a non-empty list of byte lists starts with a whole, non-zero number of
//! offsets; each list and byte list is within its limit; fixed-size items fill their list
//! exactly; nothing follows the container (its last field runs to the end).

use alloc::vec::Vec;

use libssz::DecodeError;
use libssz_types::ProgressiveList;

use crate::input::{InputError, NewPayloadRequest, StatelessInput};
use crate::schema::{Fork, Shape};
use crate::types::*;

/// A decoded input whose witness and public keys are views into its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputView<'a> {
    /// The fork its schema id names (and its payload's shape).
    pub fork: Fork,
    /// The request, of the fork's shape (decoded by `libssz`).
    pub new_payload_request: NewPayloadRequest,
    /// The witness.
    pub witness: WitnessView<'a>,
    /// The chain id.
    pub chain_id: u64,
    /// The signers' public keys, in payload order.
    pub public_keys: &'a [[u8; PUBLIC_KEY_BYTES]],
}

/// An `ExecutionWitness` as views into the input bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WitnessView<'a> {
    /// Trie nodes.
    pub state: Vec<&'a [u8]>,
    /// Bytecodes.
    pub codes: Vec<&'a [u8]>,
    /// RLP headers, oldest first, the parent last.
    pub headers: Vec<&'a [u8]>,
}

const OFFSET: usize = 4;

fn offset(bytes: &[u8], at: usize) -> Result<usize, DecodeError> {
    match bytes.get(at..at + OFFSET) {
        Some(b) => Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize),
        None => Err(DecodeError::OffsetOutOfBounds {
            offset: at,
            length: bytes.len(),
        }),
    }
}

/// The variable fields' starts of a container `len` bytes long whose fixed part, `fixed` bytes
/// (`head` holds at least them), has their offsets at `at` (in field order): checked as
/// `libssz` checks them (the view's and the stream's check).
pub(crate) fn starts<const N: usize>(
    head: &[u8],
    fixed: usize,
    len: usize,
    at: [usize; N],
) -> Result<[usize; N], DecodeError> {
    let mut starts = [0usize; N];
    for (k, &pos) in at.iter().enumerate() {
        let start = offset(head, pos)?;
        if k == 0 && start != fixed {
            return Err(DecodeError::InvalidFirstOffset {
                expected: fixed,
                got: start,
            });
        }
        if k > 0 && start < starts[k - 1] {
            return Err(DecodeError::OffsetsAreNotMonotonicallyIncreasing);
        }
        if start > len {
            return Err(DecodeError::OffsetOutOfBounds {
                offset: start,
                length: len,
            });
        }
        starts[k] = start;
    }
    Ok(starts)
}

/// A container's variable fields, `fixed` bytes of fixed part in all, whose offsets are at
/// `at` (in field order): each field's bytes.
fn fields<const N: usize>(
    bytes: &[u8],
    fixed: usize,
    at: [usize; N],
) -> Result<[&[u8]; N], DecodeError> {
    if bytes.len() < fixed {
        return Err(DecodeError::InvalidByteLength {
            expected: fixed,
            got: bytes.len(),
        });
    }
    let starts = starts(bytes, fixed, bytes.len(), at)?;
    let mut out: [&[u8]; N] = [&[]; N];
    for k in 0..N {
        let end = if k + 1 < N {
            starts[k + 1]
        } else {
            bytes.len()
        };
        out[k] = &bytes[starts[k]..end];
    }
    Ok(out)
}

/// A list of at most `max` byte lists of at most `max_bytes` bytes each.
fn byte_lists(bytes: &[u8], max: usize, max_bytes: usize) -> Result<Vec<&[u8]>, DecodeError> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    if bytes.len() < OFFSET {
        return Err(DecodeError::InvalidByteLength {
            expected: OFFSET,
            got: bytes.len(),
        });
    }
    let first = offset(bytes, 0)?;
    item_count(first, bytes.len(), max)?;
    let ends = item_ends(first, &bytes[OFFSET..first], bytes.len(), max_bytes)?;
    let mut start = first;
    Ok(ends
        .into_iter()
        .map(|end| {
            let item = &bytes[start..end];
            start = end;
            item
        })
        .collect())
}

/// The item count of a list of byte lists `len` bytes long whose first offset is `first`, at
/// most `max`: checked as `libssz` checks it (the view's and the stream's check).
pub(crate) fn item_count(first: usize, len: usize, max: usize) -> Result<usize, DecodeError> {
    if !first.is_multiple_of(OFFSET) {
        return Err(DecodeError::InvalidFirstOffset {
            expected: 0,
            got: first,
        });
    }
    if first > len {
        return Err(DecodeError::OffsetOutOfBounds {
            offset: first,
            length: len,
        });
    }
    let count = first / OFFSET;
    if count == 0 {
        return Err(DecodeError::InvalidFirstOffset {
            expected: OFFSET,
            got: 0,
        });
    }
    if count > max {
        return Err(DecodeError::InvalidByteLength {
            expected: max,
            got: count,
        });
    }
    Ok(count)
}

/// The items' ends (relative to the list) of a list `len` bytes long whose first offset is
/// `first` (checked by [`item_count`]) and whose other offsets are `rest`: every offset first,
/// then every item's size, at most `max_bytes`, the order `libssz` checks them in.
pub(crate) fn item_ends(
    first: usize,
    rest: &[u8],
    len: usize,
    max_bytes: usize,
) -> Result<Vec<usize>, DecodeError> {
    let mut ends = Vec::with_capacity(rest.len() / OFFSET + 1);
    let mut previous = first;
    for k in 0..rest.len() / OFFSET {
        let next = offset(rest, k * OFFSET)?;
        if next < previous {
            return Err(DecodeError::OffsetsAreNotMonotonicallyIncreasing);
        }
        if next > len {
            return Err(DecodeError::OffsetOutOfBounds {
                offset: next,
                length: len,
            });
        }
        ends.push(next);
        previous = next;
    }
    ends.push(len);
    let mut start = first;
    for &end in &ends {
        if end - start > max_bytes {
            return Err(DecodeError::InvalidByteLength {
                expected: max_bytes,
                got: end - start,
            });
        }
        start = end;
    }
    Ok(ends)
}

fn witness(bytes: &[u8]) -> Result<WitnessView<'_>, DecodeError> {
    let [state, codes, headers] = fields(bytes, 3 * OFFSET, [0, 4, 8])?;
    Ok(WitnessView {
        state: byte_lists(state, usize::MAX, MAX_BYTES_PER_WITNESS_NODE)?,
        codes: byte_lists(codes, usize::MAX, MAX_BYTES_PER_CODE)?,
        headers: byte_lists(headers, MAX_WITNESS_HEADERS, MAX_BYTES_PER_HEADER)?,
    })
}

fn request(shape: Shape, bytes: &[u8]) -> Result<NewPayloadRequest, DecodeError> {
    NewPayloadRequest::decode(shape, bytes)
}

fn stateless_input(fork: Fork, bytes: &[u8]) -> Result<InputView<'_>, DecodeError> {
    // request offset, witness offset, chain_id, public_keys offset.
    let [request_bytes, witness_bytes, keys] = fields(bytes, 3 * OFFSET + 8, [0, 4, 16])?;
    let mut chain_id = [0u8; 8];
    chain_id.copy_from_slice(&bytes[8..16]);
    // The fields decode in order, as `libssz`'s derived decoder does, so that an input wrong
    // in several places fails on the same one.
    let new_payload_request = request(fork.shape(), request_bytes)?;
    let witness = witness(witness_bytes)?;
    let (public_keys, rest) = keys.as_chunks::<PUBLIC_KEY_BYTES>();
    if !rest.is_empty() {
        return Err(DecodeError::InvalidByteLength {
            expected: PUBLIC_KEY_BYTES,
            got: keys.len(),
        });
    }
    Ok(InputView {
        fork,
        new_payload_request,
        witness,
        chain_id: u64::from_le_bytes(chain_id),
        public_keys,
    })
}

impl<'a> InputView<'a> {
    /// Decodes input bytes: the same bytes as [`crate::decode_input`] accepts, refused for the
    /// same reasons.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, InputError> {
        let (id, ssz) = match bytes {
            [a, b, rest @ ..] => (u16::from_be_bytes([*a, *b]), rest),
            _ => return Err(InputError::Short(bytes.len())),
        };
        let fork = Fork::from_schema_id(id).ok_or(InputError::Schema(id))?;
        stateless_input(fork, ssz).map_err(|why| InputError::Ssz {
            fork: fork.name(),
            why,
        })
    }

    /// The owned input (copies the witness).
    pub fn to_owned(&self) -> StatelessInput {
        let copy = |items: &[&[u8]]| items.iter().map(|item| item.to_vec()).collect();
        let w = &self.witness;
        owned(
            self.fork,
            self.new_payload_request.clone(),
            [copy(&w.state), copy(&w.codes), copy(&w.headers)],
            self.chain_id,
            self.public_keys.to_vec(),
        )
    }

    /// `hash_tree_root(new_payload_request)`.
    pub fn request_root(&self, hasher: &impl libssz_merkle::Sha256Hasher) -> Bytes32 {
        self.new_payload_request.hash_tree_root(hasher)
    }
}

/// An owned input of decoded parts (lists within their limits: checked on decoding).
pub(crate) fn owned(
    fork: Fork,
    new_payload_request: NewPayloadRequest,
    [state, codes, headers]: [Vec<Vec<u8>>; 3],
    chain_id: u64,
    public_keys: Vec<[u8; PUBLIC_KEY_BYTES]>,
) -> StatelessInput {
    fn lists<const N: usize>(items: Vec<Vec<u8>>) -> Vec<ByteList<N>> {
        items
            .into_iter()
            .map(|item| ByteList::<N>::try_from(item).expect("checked on decoding"))
            .collect()
    }
    StatelessInput {
        fork,
        new_payload_request,
        witness: ExecutionWitness {
            state: ProgressiveList::from(lists(state)),
            codes: ProgressiveList::from(lists(codes)),
            headers: lists(headers).try_into().expect("checked on decoding"),
        },
        chain_id,
        public_keys: ProgressiveList::from(public_keys),
    }
}
