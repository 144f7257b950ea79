//! What the guest reads: a head with the block, its ancestor headers and the chain config; then
//! the witness's byte strings (trie nodes and bytecodes, in any order), one input item each,
//! read only when validation first needs one.
//!
//! ```text
//! head   = frame(block) list(headers) frame(rlp(chain)) u32 items frame(codes)
//! codes  = one bit per item (item k: byte k / 8, bit k % 8), set when the item is a bytecode
//! list   = u32 count, then count frames
//! frame  = u32 length, the bytes, zero bytes up to the next multiple of 4
//! ```
//! (`u32` little-endian.) `items` input items follow the head. The block stays the raw RLP an
//! archive node serves (the validator decodes it once).
//!
//! Why items read on demand: a prover pays for every memory page each segment touches.
//! Reading the whole witness at the start wrote all of it in the first segment, and each item
//! was paid for again in the later segment that used it. Now an item is read into memory by
//! the lookup that needs it ([`mpt::WitnessStore`]), in the segment that uses it; the host
//! sends the items in the order its native run first needed them, so each lookup reads about
//! one item, and items the block never needs are never read. Each bytecode is read with
//! [`CODE_PADDING`] zero bytes after it, so that revm runs it where it lies ([`crate::code`]).
//!
//! Why frames in the head: the guest keeps the block and the headers as views into the one
//! buffer it reads, not copies, and every frame starts on a word. The encoding is canonical:
//! padding must be zero, and nothing may follow the head's last field.

use alloc::boxed::Box;
use alloc::vec::Vec;
use alloy_primitives::Bytes;
use mpt::trie::Item;
use mpt::WitnessStore;

use crate::chain::ChainConfig;
use crate::code::CODE_PADDING;
use crate::validate::{validate_block, validate_block_over, BlockOutput};
use crate::witness::ExecutionWitness;
use crate::ValidationError;

/// Everything a stateless validation needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatelessInput {
    /// `rlp([header, transactions, ommers, withdrawals])`.
    pub block: Bytes,
    /// The execution witness.
    pub witness: ExecutionWitness,
    /// The chain's fork schedule.
    pub chain: ChainConfig,
}

/// Guest input that is not one [`StatelessInput`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The input ends inside a field.
    #[error("malformed input: it ends inside the {0}")]
    Truncated(&'static str),
    /// A frame's padding is not zero.
    #[error("malformed input: nonzero padding after the {0}")]
    Padding(&'static str),
    /// The chain config does not decode, is not in canonical form, or cannot be validated
    /// under: the guest validates only under the very config whose encoding it digests.
    #[error("unusable input: chain config: {0}")]
    Chain(crate::chain::ChainConfigError),
    /// Bytes follow the head's last field.
    #[error("{0} trailing bytes after the input's head")]
    TrailingBytes(usize),
    /// The bytecode bits are not one bit per item, unused bits zero.
    #[error("malformed input: {bytes} bytes of bytecode bits for {items} witness items")]
    CodeBits {
        /// Items the head declares.
        items: usize,
        /// Bytes of bits given.
        bytes: usize,
    },
    /// Not as many witness items follow the head as it declares.
    #[error("malformed input: the head declares {declared} witness items, {given} follow it")]
    ItemCount {
        /// Items the head declares.
        declared: usize,
        /// Items given.
        given: usize,
    },
}

/// Reads frames from a buffer, as views into it.
struct Reader<'a> {
    whole: &'a Bytes,
    at: usize,
}

impl Reader<'_> {
    fn word(&mut self, field: &'static str) -> Result<usize, InputError> {
        let bytes = self
            .whole
            .get(self.at..self.at + 4)
            .ok_or(InputError::Truncated(field))?;
        self.at += 4;
        Ok(u32::from_le_bytes(bytes.try_into().expect("4 bytes")) as usize)
    }

    fn frame(&mut self, field: &'static str) -> Result<Bytes, InputError> {
        let len = self.word(field)?;
        let end = self
            .at
            .checked_add(len)
            .ok_or(InputError::Truncated(field))?;
        let padded = end
            .checked_next_multiple_of(4)
            .ok_or(InputError::Truncated(field))?;
        let padding = self
            .whole
            .get(end..padded)
            .ok_or(InputError::Truncated(field))?;
        if padding.iter().any(|&b| b != 0) {
            return Err(InputError::Padding(field));
        }
        let frame = self.whole.slice(self.at..end);
        self.at = padded;
        Ok(frame)
    }

    fn list(&mut self, field: &'static str) -> Result<Vec<Bytes>, InputError> {
        let count = self.word(field)?;
        // Each frame takes at least a word: a count beyond what is left is a truncation, and
        // never an allocation.
        if count > (self.whole.len() - self.at) / 4 {
            return Err(InputError::Truncated(field));
        }
        (0..count).map(|_| self.frame(field)).collect()
    }
}

fn put_frame(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
    out.resize(out.len().next_multiple_of(4), 0);
}

fn put_list(out: &mut Vec<u8>, items: &[Bytes]) {
    out.extend_from_slice(&(items.len() as u32).to_le_bytes());
    for item in items {
        put_frame(out, item);
    }
}

/// The guest's input as the guest reads it: the head decoded, the witness's items behind a
/// store that reads each one when a lookup first needs it.
#[derive(Debug)]
pub struct GuestInput {
    /// `rlp([header, transactions, ommers, withdrawals])`.
    pub block: Bytes,
    /// RLP ancestor headers, oldest first, parent last.
    pub headers: Vec<Bytes>,
    /// The chain's fork schedule.
    pub chain: ChainConfig,
    /// The witness's trie nodes and bytecodes by hash.
    pub store: WitnessStore,
}

/// The input items for `block` over `headers`, `chain` and the witness's byte strings `items`
/// (trie nodes and bytecodes, each with whether it is a bytecode, in the order the guest should
/// read them): the head, then one item per byte string. The chain config is written in its
/// canonical form, the only one the guest accepts ([`ChainConfig::canonical`]: the same rules).
pub fn guest_items<'a, I>(
    block: &[u8],
    headers: &[Bytes],
    chain: &ChainConfig,
    items: I,
) -> Vec<Vec<u8>>
where
    I: ExactSizeIterator<Item = (&'a [u8], bool)>,
{
    let chain = alloy_rlp::encode(chain.canonical());
    guest_items_with_chain_rlp(block, headers, &chain, items)
}

/// [`guest_items`] with the chain config's frame given as bytes, as they are: how a test hands
/// the guest a config that is not canonical, or not a config at all.
pub fn guest_items_with_chain_rlp<'a, I>(
    block: &[u8],
    headers: &[Bytes],
    chain_rlp: &[u8],
    items: I,
) -> Vec<Vec<u8>>
where
    I: ExactSizeIterator<Item = (&'a [u8], bool)>,
{
    let mut codes = alloc::vec![0u8; items.len().div_ceil(8)];
    let mut head = Vec::with_capacity(
        4 + block.len()
            + 3
            + 4
            + headers.iter().map(|h| 4 + h.len() + 3).sum::<usize>()
            + 4
            + chain_rlp.len()
            + 3
            + 4,
    );
    put_frame(&mut head, block);
    put_list(&mut head, headers);
    put_frame(&mut head, chain_rlp);
    head.extend_from_slice(&(items.len() as u32).to_le_bytes());
    let mut out = Vec::with_capacity(1 + items.len());
    out.push(Vec::new());
    for (k, (item, code)) in items.enumerate() {
        codes[k / 8] |= u8::from(code) << (k % 8);
        out.push(item.to_vec());
    }
    put_frame(&mut head, &codes);
    out[0] = head;
    out
}

impl StatelessInput {
    /// The guest's input items, the witness's nodes and then its codes in their order.
    pub fn to_items(&self) -> Vec<Vec<u8>> {
        let w = &self.witness;
        let nodes = w.state.iter().map(|b| (b.as_ref(), false));
        let items: Vec<_> = nodes
            .chain(w.codes.iter().map(|b| (b.as_ref(), true)))
            .collect();
        guest_items(&self.block, &w.headers, &self.chain, items.into_iter())
    }

    /// Validates the block.
    pub fn validate(&self) -> Result<BlockOutput, ValidationError> {
        validate_block(&self.block, &self.witness, &self.chain)
    }
}

impl GuestInput {
    /// Decodes the `head` (its block and headers stay views into it); the witness's items come
    /// from `read(padding)`, which reads the next item with `padding` zero bytes after it, only
    /// as lookups need them, at most as many as the head declares. Trailing bytes after the head
    /// are refused, not ignored.
    pub fn new(
        head: Bytes,
        mut read: impl FnMut(usize) -> Item + 'static,
    ) -> Result<Self, InputError> {
        let mut reader = Reader {
            whole: &head,
            at: 0,
        };
        let block = reader.frame("block")?;
        let headers = reader.list("witness headers")?;
        let chain_rlp = reader.frame("chain config")?;
        let chain = ChainConfig::decode_canonical(&chain_rlp).map_err(InputError::Chain)?;
        let count = reader.word("witness item count")?;
        let codes = reader.frame("bytecode bits")?;
        if codes.len() != count.div_ceil(8)
            || codes
                .last()
                .is_some_and(|&b| count % 8 != 0 && b >> (count % 8) != 0)
        {
            return Err(InputError::CodeBits {
                items: count,
                bytes: codes.len(),
            });
        }
        if reader.at != head.len() {
            return Err(InputError::TrailingBytes(head.len() - reader.at));
        }
        Ok(Self {
            block,
            headers,
            chain,
            store: WitnessStore::streaming(
                count,
                Box::new((0..count).map(move |k| {
                    let code = codes[k / 8] >> (k % 8) & 1 == 1;
                    read(if code { CODE_PADDING } else { 0 })
                })),
            ),
        })
    }

    /// Decodes input items held in memory (the host's and the tests' side): exactly the items
    /// the head declares must follow it.
    pub fn from_items(items: &[Vec<u8>]) -> Result<Self, InputError> {
        let (head, rest) = items.split_first().ok_or(InputError::Truncated("head"))?;
        let mut items = Vec::from(rest).into_iter();
        let input = Self::new(Bytes::copy_from_slice(head), move |padding| {
            Item::padded(items.next().unwrap_or_default(), padding)
        })?;
        if input.store.len() != rest.len() {
            return Err(InputError::ItemCount {
                declared: input.store.len(),
                given: rest.len(),
            });
        }
        Ok(input)
    }

    /// Validates the block.
    pub fn validate(&self) -> Result<BlockOutput, ValidationError> {
        let valid = validate_block_over(&self.block, &self.headers, &self.store, &self.chain)?;
        let output = valid.output;
        crate::discard(valid);
        Ok(output)
    }
}

#[cfg(test)]
mod tests;
