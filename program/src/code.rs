//! A witness bytecode as revm executes it, without copying it.
//!
//! revm's `Bytecode::new_raw` analyses a legacy code's jump destinations and copies the code
//! into a new buffer with zero padding after it, so that reading a `PUSH`'s immediate or the
//! next opcode past the end reads zeros (`STOP`). In the guest that copy is a second
//! megabyte-scale stretch of memory (every code a block runs), which the prover pays for page by
//! page, and `memcpy` instructions. The guest reads each bytecode with [`CODE_PADDING`] zero
//! bytes after it already ([`crate::input`]), so here only the jump table is built, by the same
//! scan as revm's `analyze_legacy` (which revm does not export), and revm runs the code where
//! it lies. A code with no zeros after it (the standard input's, the host's) is scanned the
//! same way and copied with its padding, as revm would; EIP-7702 delegations go through
//! `new_raw`. The tests check every path gives revm's bytecode exactly.

use alloc::vec::Vec;

use mpt::trie::Item;
use revm::bytecode::bitvec::{bitvec, order::Lsb0, vec::BitVec};
use revm::bytecode::eip7702::EIP7702_MAGIC_BYTES;
use revm::bytecode::{opcode, Bytecode, BytecodeDecodeError, JumpTable};

/// Zero bytes the guest reads after each bytecode: at least revm's largest padding (a trailing
/// `PUSH32` with no immediate: 32 bytes, then a `STOP`), rounded up to a word.
pub const CODE_PADDING: usize = 36;

/// The bytecode `item` holds, as revm would make it from `item.buffer[..item.len]`; an error for
/// a code that starts as an EIP-7702 delegation (`0xef01`) but is not one, which revm cannot
/// represent (its `new_raw` panics on it). A custom pre-state can hold such a code.
pub fn bytecode(item: Item) -> Result<Bytecode, BytecodeDecodeError> {
    let Item { buffer, len } = item;
    let code = &buffer[..len];
    let padded = buffer
        .get(len..len + CODE_PADDING)
        .is_some_and(|pad| pad.iter().all(|&b| b == 0));
    if code.is_empty() || code.starts_with(EIP7702_MAGIC_BYTES) {
        return Bytecode::new_raw_checked(buffer.slice(..len));
    }
    let (jumps, padding) = analyze(code);
    let bytes = if padded || padding == 0 {
        buffer.slice(..len + padding)
    } else {
        // No zeros after it (the standard input's codes lie end to end, and the host's items
        // have none): copied with its padding, as revm would, after our cheaper scan.
        let mut copy = Vec::with_capacity(len + padding);
        copy.extend_from_slice(code);
        copy.resize(len + padding, 0);
        copy.into()
    };
    // SAFETY: `bytes` is the code followed by `padding` zero bytes (checked above for a padded
    // buffer: `padding <= CODE_PADDING`; none needed when `padding == 0`; written so for the
    // copy), which is exactly the padding `analyze_legacy` would append, so execution reads
    // within the buffer, and reads the same bytes, as with revm's copy.
    Ok(unsafe { Bytecode::new_analyzed(bytes, len, JumpTable::new(jumps)) })
}

/// How far the scan moves past each opcode: a `PUSHn` and its `n` immediate bytes, else one.
/// One table load per opcode instead of revm's compare and branch (measured: fewer guest
/// instructions for the same scan).
const STEP: [u8; 256] = {
    let mut step = [1u8; 256];
    let mut n = 1;
    while n <= 32 {
        step[opcode::PUSH1 as usize + n - 1] = n as u8 + 1;
        n += 1;
    }
    step
};

/// revm's `analyze_legacy` scan: the `JUMPDEST`s outside `PUSH` immediates, and how many zero
/// bytes must follow the code (a trailing `PUSH`'s missing immediate, then a `STOP` unless the
/// code ends with one; one more after a trailing `DUPN` / `SWAPN` / `EXCHANGE`).
// Not inlined: inside revm's code loader, its loop spills registers (measured: +27% instructions).
#[inline(never)]
fn analyze(code: &[u8]) -> (BitVec<u8>, usize) {
    let mut jumps: BitVec<u8> = bitvec![u8, Lsb0; 0; code.len()];
    let range = code.as_ptr_range();
    let (start, end) = (range.start, range.end);
    let (mut at, mut prev, mut last) = (start, 0u8, 0u8);
    // A pointer walk, as revm's: indexing costs the guest more instructions per opcode.
    while at < end {
        prev = last;
        // SAFETY: `start <= at < end`, inside `code`.
        last = unsafe { *at };
        if last == opcode::JUMPDEST {
            // SAFETY: `jumps` has `code.len()` bits and `at` is within `code`.
            unsafe { jumps.set_unchecked(at.offset_from_unsigned(start), true) };
        }
        // A trailing `PUSH` steps past `end`: `wrapping_add` keeps that defined, and the loop
        // condition stops before any read.
        at = at.wrapping_add(STEP[last as usize] as usize);
    }
    let overflow = at as usize - end as usize;
    let immediates = |op: u8| usize::from(op.wrapping_sub(opcode::DUPN) < 3);
    let tail = if last == opcode::STOP {
        immediates(prev)
    } else {
        1 + immediates(last)
    };
    (jumps, overflow + tail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::Bytes;

    fn padded(code: &[u8]) -> Item {
        let mut buffer = code.to_vec();
        buffer.resize(code.len() + CODE_PADDING, 0);
        Item {
            buffer: Bytes::from(buffer),
            len: code.len(),
        }
    }

    fn same_as_revm(code: &[u8]) {
        let revm = Bytecode::new_raw(Bytes::copy_from_slice(code));
        // Padded, unpadded, and followed by other bytes (as in the standard input).
        let mut followed = code.to_vec();
        followed.extend_from_slice(&[0x5b; 40]);
        for item in [
            padded(code),
            Item::from(code.to_vec()),
            Item {
                buffer: followed.into(),
                len: code.len(),
            },
        ] {
            let ours = bytecode(item).unwrap();
            assert_eq!(ours.bytes_slice(), revm.bytes_slice(), "{code:02x?}");
            assert_eq!(ours.len(), revm.len());
            assert_eq!(ours.legacy_jump_table(), revm.legacy_jump_table());
            assert_eq!(ours.original_byte_slice(), code);
            assert_eq!(ours, revm);
        }
    }

    #[test]
    fn padded_codes_analyse_as_revm_does() {
        let (push1, push32, jumpdest) = (opcode::PUSH1, opcode::PUSH32, opcode::JUMPDEST);
        for code in [
            &[jumpdest, opcode::STOP][..],
            &[push1, jumpdest, jumpdest],
            &[push32],
            &[push1],
            &[jumpdest, opcode::DUPN],
            &[opcode::SWAPN, opcode::STOP],
            &[opcode::ADD],
            &[0xef, 0x00, 0x01],
        ] {
            same_as_revm(code);
        }
        // Pseudo-random codes, dense with pushes and jump destinations.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in 1..400 {
            let code: alloc::vec::Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    [opcode::PUSH1, opcode::PUSH32, jumpdest, state as u8]
                        [(state >> 40) as usize % 4]
                })
                .collect();
            same_as_revm(&code);
        }
    }

    #[test]
    fn unpadded_or_delegating_codes_are_revm_s() {
        let code = Bytes::from_static(&[opcode::PUSH1, 1]);
        let plain = bytecode(Item::from(code.clone())).unwrap();
        assert_eq!(plain, Bytecode::new_raw(code));
        // A nonzero byte in the padding: not trusted, copied as revm does.
        let mut item = padded(&[opcode::PUSH1]);
        let mut buffer = item.buffer.to_vec();
        buffer[3] = 1;
        item.buffer = buffer.into();
        assert_eq!(
            bytecode(item),
            Ok(Bytecode::new_raw(Bytes::from_static(&[opcode::PUSH1])))
        );
        let delegation = [EIP7702_MAGIC_BYTES, &[0], &[7; 20]].concat();
        assert_eq!(
            bytecode(padded(&delegation)),
            Ok(Bytecode::new_raw(delegation.into()))
        );
    }

    /// A code that starts as a delegation but is not one (revm's `new_raw` panics on it): an
    /// error, padded or not, however long.
    #[test]
    fn a_malformed_delegation_is_an_error_not_a_panic() {
        for code in [
            [EIP7702_MAGIC_BYTES, &[0], &[7; 19]].concat(),
            [EIP7702_MAGIC_BYTES, &[0], &[7; 21]].concat(),
            [EIP7702_MAGIC_BYTES, &[1], &[7; 20]].concat(),
            EIP7702_MAGIC_BYTES.to_vec(),
        ] {
            assert!(bytecode(padded(&code)).is_err(), "{code:02x?}");
            assert!(bytecode(Item::from(code.clone())).is_err(), "{code:02x?}");
        }
    }
}
