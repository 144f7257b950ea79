//! What the guest reads: the block, the witness and the chain config, in one word-aligned frame
//! format, and nothing after it.
//!
//! ```text
//! input  = frame(block) list(state) list(codes) list(headers) frame(rlp(chain))
//! list   = u32 count, then count frames
//! frame  = u32 length, the bytes, zero bytes up to the next multiple of 4
//! ```
//! (`u32` little-endian.) The block stays the raw RLP an archive node serves (the validator
//! decodes it once).
//!
//! Why not one RLP list, as the input was: the guest reads the input into one 4-aligned buffer
//! and [`StatelessInput::from_shared`] keeps the block and every witness node, code and header
//! as views into it instead of copies. On 24171384 the copies cost 2.5 M instructions of
//! `memcpy` and a second megabytes-large stretch of memory for the first segment to touch, and
//! every touched memory block is paid for in Poseidon2 and Merkle rows. Views into an RLP list
//! start wherever the item headers end, so hashing each node absorbed unaligned input
//! (measured: more instructions than the copies saved); here every frame starts on a word.
//! The encoding is canonical: padding must be zero, and nothing may follow the last frame.

use alloc::vec::Vec;
use alloy_primitives::Bytes;
use alloy_rlp::{Decodable, Encodable};

use crate::chain::ChainConfig;
use crate::validate::{validate_block, BlockOutput};
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
    /// The chain config does not decode.
    #[error("malformed input: chain config: {0}")]
    Rlp(alloy_rlp::Error),
    /// Bytes follow the input's last frame.
    #[error("{0} trailing bytes after the input")]
    TrailingBytes(usize),
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

impl StatelessInput {
    /// Decodes exactly one input from `bytes` (copying it once into a shared buffer).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, InputError> {
        Self::from_shared(Bytes::copy_from_slice(bytes))
    }

    /// Decodes exactly one input; the block and the witness's byte strings are views into
    /// `bytes`, not copies. Trailing bytes are refused, not ignored.
    pub fn from_shared(bytes: Bytes) -> Result<Self, InputError> {
        let mut reader = Reader {
            whole: &bytes,
            at: 0,
        };
        let block = reader.frame("block")?;
        let state = reader.list("witness state")?;
        let codes = reader.list("witness codes")?;
        let headers = reader.list("witness headers")?;
        let chain_rlp = reader.frame("chain config")?;
        let mut chain_buf: &[u8] = &chain_rlp;
        let chain = ChainConfig::decode(&mut chain_buf).map_err(InputError::Rlp)?;
        if !chain_buf.is_empty() {
            return Err(InputError::Rlp(alloy_rlp::Error::UnexpectedLength));
        }
        if reader.at != bytes.len() {
            return Err(InputError::TrailingBytes(bytes.len() - reader.at));
        }
        Ok(Self {
            block,
            witness: ExecutionWitness {
                state,
                codes,
                headers,
            },
            chain,
        })
    }

    /// The bytes the guest reads.
    pub fn to_bytes(&self) -> Vec<u8> {
        let w = &self.witness;
        let size = |items: &[Bytes]| 4 + items.iter().map(|b| 4 + b.len() + 3).sum::<usize>();
        let mut out = Vec::with_capacity(
            4 + self.block.len()
                + 3
                + size(&w.state)
                + size(&w.codes)
                + size(&w.headers)
                + 4
                + self.chain.length()
                + 3,
        );
        put_frame(&mut out, &self.block);
        put_list(&mut out, &w.state);
        put_list(&mut out, &w.codes);
        put_list(&mut out, &w.headers);
        put_frame(&mut out, &alloy_rlp::encode(&self.chain));
        out
    }

    /// Validates the block.
    pub fn validate(&self) -> Result<BlockOutput, ValidationError> {
        validate_block(&self.block, &self.witness, &self.chain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> StatelessInput {
        StatelessInput {
            block: Bytes::from_static(&[0xc0]),
            witness: ExecutionWitness {
                state: alloc::vec![Bytes::from_static(&[1, 2, 3, 4, 5]), Bytes::new()],
                codes: alloc::vec![Bytes::from_static(&[0x60, 0x00])],
                headers: Vec::new(),
            },
            chain: ChainConfig::mainnet(),
        }
    }

    #[test]
    fn inputs_round_trip_with_every_frame_on_a_word() {
        let input = input();
        let bytes = input.to_bytes();
        assert_eq!(bytes.len() % 4, 0);
        let decoded = StatelessInput::from_shared(Bytes::from(bytes.clone())).unwrap();
        assert_eq!(
            (&decoded.block, &decoded.witness),
            (&input.block, &input.witness)
        );
        // (A TTD condition decodes with its activation block only: compare digests.)
        assert_eq!(decoded.chain.digest(), input.chain.digest());
        for view in [
            &decoded.block,
            &decoded.witness.state[0],
            &decoded.witness.codes[0],
        ] {
            assert_eq!(
                (view.as_ptr() as usize - decoded.block.as_ptr() as usize) % 4,
                0
            );
        }
        assert_eq!(StatelessInput::from_bytes(&bytes).unwrap(), decoded);
    }

    #[test]
    fn malformed_inputs_are_typed_errors() {
        let mut bytes = input().to_bytes();
        // Every truncation is refused.
        for len in 0..bytes.len() {
            assert!(StatelessInput::from_bytes(&bytes[..len]).is_err(), "{len}");
        }
        // Nonzero padding (the block's frame: 1 byte, then 3 of padding).
        let mut padded = bytes.clone();
        padded[5] = 1;
        assert_eq!(
            StatelessInput::from_bytes(&padded),
            Err(InputError::Padding("block"))
        );
        // A count beyond the input is a truncation, not an allocation.
        let mut counted = bytes.clone();
        counted[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            StatelessInput::from_bytes(&counted),
            Err(InputError::Truncated("witness state"))
        );
        bytes.extend_from_slice(&[0; 4]);
        assert_eq!(
            StatelessInput::from_bytes(&bytes),
            Err(InputError::TrailingBytes(4))
        );
    }
}
