//! A witness bytecode as revm executes it, without copying it.
//!
//! revm's `Bytecode::new_raw` analyses a legacy code's jump destinations and copies the code
//! into a new buffer with zero padding after it, so that reading a `PUSH`'s immediate or the
//! next opcode past the end reads zeros (`STOP`). In the guest that copy is a second
//! megabyte-scale stretch of memory (every code a block runs), which the prover pays for page by
//! page, and `memcpy` instructions. The guest reads each bytecode with [`CODE_PADDING`] zero
//! bytes after it already ([`crate::input`]), so revm runs the code where it lies, and its jump
//! table waits for the code's first jump (a marker table, [`unanalysed`], until [`crate::jumps`]
//! finds the code jumping), built then by the same scan as
//! revm's `analyze_legacy` (which revm does not export). A code with no zeros after it (the
//! standard input's, the host's) is copied with its padding, as revm would; EIP-7702
//! delegations go through `new_raw`. The tests check every path gives revm's code and jump
//! table.

use alloc::vec::Vec;

use alloy_primitives::Bytes;
use mpt::trie::Item;
use revm::bytecode::bitvec::{order::Lsb0, vec::BitVec};
use revm::bytecode::eip7702::EIP7702_MAGIC_BYTES;
use revm::bytecode::{opcode, Bytecode, BytecodeDecodeError, JumpTable};

/// Zero bytes the guest reads after each bytecode: at least revm's largest padding (a trailing
/// `PUSH32` with no immediate: 32 bytes, then a `STOP`), rounded up to a word.
pub const CODE_PADDING: usize = 36;

/// The longest code given the marker table (a longer one, possible only in a custom
/// pre-state, is analysed on load): twice EIP-7954's 64 KiB code limit.
pub const MAX_UNANALYSED: usize = 0x20000;

/// The marker table: all clear, one bit per byte of the longest marked code, so that no
/// destination is valid in it: a marked code's first jump fails revm's check, and only then
/// do [`crate::jumps`]' `JUMP` and `JUMPI` look for the marker (by address) and swap in the analysed code.
static UNANALYSED: [u8; MAX_UNANALYSED / 8] = [0; MAX_UNANALYSED / 8];

/// A code for revm with the marker table: `bytes` is the code (`len` bytes) followed by at
/// least [`CODE_PADDING`] zero bytes. `None` when the code is longer than [`MAX_UNANALYSED`].
pub(crate) fn unanalysed(bytes: Bytes, len: usize) -> Option<Bytecode> {
    if len > MAX_UNANALYSED || bytes.len() < len + CODE_PADDING {
        return None;
    }
    let table = JumpTable::from_static_slice(&UNANALYSED[..len.div_ceil(8)], len);
    // SAFETY: `bytes` holds the code and then `CODE_PADDING` zero bytes (the caller's
    // contract), at least the padding revm's analysis would append (a trailing `PUSH32`'s
    // missing immediate and a `STOP`), so execution reads within the buffer and reads zeros
    // past the code, as with revm's copy. The table (`len` bits) marks no destination: a
    // frame's first jump in this code fails, and `jump_to` then swaps in the analysed code.
    Some(unsafe { Bytecode::new_analyzed(bytes, len, table) })
}

/// Whether `code` carries the marker table.
#[inline(always)]
pub(crate) fn is_unanalysed(code: &Bytecode) -> bool {
    code.legacy_jump_table()
        .is_some_and(|table| core::ptr::eq(table.as_slice().as_ptr(), UNANALYSED.as_ptr()))
}

/// The bytecode `item` holds, as revm would run it from `item.buffer[..item.len]`; an error
/// for a code that starts as an EIP-7702 delegation (`0xef01`) but is not one, which revm
/// cannot represent (its `new_raw` panics on it). A custom pre-state can hold such a code.
///
/// A legacy code comes with the marker table ([`unanalysed`]), to be analysed when it first
/// jumps ([`crate::jumps`]); a code longer than [`MAX_UNANALYSED`] is analysed here.
pub fn bytecode(item: Item) -> Result<Bytecode, BytecodeDecodeError> {
    let Item { buffer, len } = item;
    let code = &buffer[..len];
    if code.is_empty() || code.starts_with(EIP7702_MAGIC_BYTES) {
        return Bytecode::new_raw_checked(buffer.slice(..len));
    }
    let bytes = padded(buffer, len);
    if let Some(code) = unanalysed(bytes.clone(), len) {
        return Ok(code);
    }
    Ok(analysed(bytes, len))
}

/// `buffer[..len]` followed by `CODE_PADDING` zero bytes: the buffer itself when the zeros
/// follow the code there (the block guest's input pads every code), else a padded copy (the
/// standard input's codes lie end to end, and the host's items have no padding), as revm would
/// copy it.
fn padded(buffer: Bytes, len: usize) -> Bytes {
    let zeros = buffer
        .get(len..len + CODE_PADDING)
        .is_some_and(|pad| pad.iter().all(|&b| b == 0));
    if zeros {
        return buffer.slice(..len + CODE_PADDING);
    }
    let mut copy = Vec::with_capacity(len + CODE_PADDING);
    copy.extend_from_slice(&buffer[..len]);
    copy.resize(len + CODE_PADDING, 0);
    copy.into()
}

/// The legacy code `bytes[..len]` with its jump table, run from `bytes` in place when the
/// padding follows the code there (checked again: `CODE_PADDING` byte reads per analysed code):
/// the one place an analysed code is built, for a code too long for the marker table and for a
/// marked code on its first jump.
pub(crate) fn analysed(bytes: Bytes, len: usize) -> Bytecode {
    let bytes = padded(bytes, len);
    let jumps = analyze(&bytes[..len]);
    // SAFETY: `bytes` is the code followed by `CODE_PADDING` zero bytes (`padded`), at least
    // the padding `analyze_legacy` would append, so execution reads within the buffer, and
    // reads the same bytes, as with revm's copy.
    unsafe { Bytecode::new_analyzed(bytes, len, JumpTable::new(jumps)) }
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

/// revm's `analyze_legacy` scan: the `JUMPDEST`s outside `PUSH` immediates. (revm also
/// derives the padding the code needs from where the scan ends; [`bytecode`] gives every code
/// [`CODE_PADDING`], at least the most any code needs.)
///
/// Byte by byte as revm, with two shortcuts after a `JUMPDEST`, the byte the byte loop pays
/// most for (a bit set each). A `PUSH` right after it (as after most `JUMPDEST`s in real code)
/// is stepped over there, with its immediate, without a turn of the loop. Otherwise, when the
/// `JUMPDEST` ends an aligned word, the following words with no `PUSH` byte in them are four
/// one-byte opcodes each, and their `JUMPDEST`s are found with a few word operations
/// ([`jumpdests_in`]; two and four words at a time in long runs). Real code rarely has such
/// runs, and pays one alignment test per `JUMPDEST` for the shortcut (measured on the mainnet
/// blocks, BENCHMARKS.md).
// Not inlined: inside revm's code loader, its loop spills registers (measured: +27% instructions).
#[inline(never)]
pub(crate) fn analyze(code: &[u8]) -> BitVec<u8> {
    let len = code.len();
    // One byte more than the table: a word's four bits may straddle two bytes of it.
    let mut table = alloc::vec![0u8; len.div_ceil(8) + 1];
    let bits = table.as_mut_ptr();
    let range = code.as_ptr_range();
    let (start, end) = (range.start, range.end);
    let mut at = start;
    // A pointer walk, as revm's: indexing costs the guest more instructions per opcode.
    while at < end {
        // SAFETY (the block): `start <= at < end`, inside `code`; a bit set for a byte of
        // `code` lies in byte `offset / 8 < table.len()`.
        unsafe {
            let op = *at;
            if op == opcode::JUMPDEST {
                let i = at.offset_from_unsigned(start);
                *bits.add(i >> 3) |= 1 << (i & 7);
                at = at.add(1);
                if at < end {
                    // A `PUSH` next (as after most `JUMPDEST`s in real code, and in the byte
                    // scan's dearest mix) is stepped over here, with its immediate, without a
                    // turn of the loop; and only where it is not does the word scan try the
                    // word (which it would refuse for the `PUSH` byte).
                    let push = (*at).wrapping_sub(opcode::PUSH1);
                    if push < 32 {
                        // Past the end for a trailing `PUSH`, as below.
                        at = at.wrapping_add(push as usize + 2);
                    } else if (at as usize).is_multiple_of(4) {
                        at = jumpdests_in(at, end, start, bits);
                    }
                }
                continue;
            }
            // A trailing `PUSH` steps past `end`: `wrapping_add` keeps that defined, and the
            // loop condition stops before any read.
            at = at.wrapping_add(STEP[op as usize] as usize);
        }
    }
    table.truncate(len.div_ceil(8));
    let mut jumps = BitVec::<u8, Lsb0>::from_vec(table);
    jumps.truncate(len);
    jumps
}

/// From the opcode boundary `at` (word-aligned), the `JUMPDEST`s of each following word that
/// holds no `PUSH` byte (so four one-byte opcodes), marked in `bits` (the table of the code at
/// `start`); returns where the first other word (or the code's last bytes) begins.
///
/// # Safety
/// `start <= at <= end`, all in one code; `at` is 4-aligned; `bits` has a bit for every byte
/// of the code and one byte more.
// Not inlined: in the byte loop it costs registers there (measured: +0.5% instructions on the
// mainnet blocks against this), and it runs only after some `JUMPDEST`s.
#[inline(never)]
unsafe fn jumpdests_in(
    mut at: *const u8,
    end: *const u8,
    start: *const u8,
    bits: *mut u8,
) -> *const u8 {
    // SAFETY (the block): `at + 4 <= end` before each read, `at` stays 4-aligned; `runs_in`
    // gets an offset that is a multiple of 8.
    unsafe {
        let mut words = 0u32;
        while end.offset_from_unsigned(at) >= 4 {
            let word = (at as *const u32).read();
            if has_push(word) != 0 {
                break;
            }
            mark_word(word, at, start, bits);
            at = at.add(4);
            words += 1;
            // A run of at least two words (real code's are mostly shorter, and pay only this
            // test) goes on two words at a time where the code offset is a multiple of 8.
            if words >= 2 && at.offset_from_unsigned(start) & 7 == 0 {
                return runs_in(at, end, start, bits);
            }
        }
    }
    at
}

/// The `JUMPDEST`s of `word`, the code's word at `at` (4-aligned, holding no `PUSH` byte),
/// marked in `bits` (the table of the code at `start`).
///
/// # Safety
/// `at` lies in the code at `start`, with 4 bytes of it from `at`; `bits` has a bit for every
/// byte of the code and one byte more.
#[inline(always)]
unsafe fn mark_word(word: u32, at: *const u8, start: *const u8, bits: *mut u8) {
    let dest = jumpdests(word);
    if dest != 0 {
        // SAFETY: bits `i..i + 4` are bytes of the code; `placed`'s high byte lands in the
        // extra byte at most.
        unsafe {
            // Bits 7, 15, 23, 31 gathered into bits 28..32, then to the low four.
            let four = ((dest >> 7).wrapping_mul(0x1020_4080) >> 28) as u16;
            let i = at.offset_from_unsigned(start);
            let placed = four << (i & 7);
            *bits.add(i >> 3) |= placed as u8;
            *bits.add((i >> 3) + 1) |= (placed >> 8) as u8;
        }
    }
}

/// [`jumpdests_in`] for a long run, from a code offset that is a multiple of 8: four words at a
/// time, then two; each two words give eight bits, one whole byte of the table, stored
/// without reading it (no bit at or after `at` is set yet: the byte scan and the word steps
/// set only bits of bytes they have passed); where a pair holds a `PUSH`, its first word
/// alone, then the byte scan.
///
/// # Safety
/// As [`jumpdests_in`]'s, and `at - start` is a multiple of 8.
// Not inlined: its constants would cost every call of `jumpdests_in` registers saved and
// loaded (measured: +0.4% instructions on the mainnet blocks), and only long runs reach it.
#[inline(never)]
unsafe fn runs_in(mut at: *const u8, end: *const u8, start: *const u8, bits: *mut u8) -> *const u8 {
    // SAFETY (the block): `at + 16 <= end` before each read of four words, `+ 8` of a pair and
    // `+ 4` of a word; `at` stays 4-aligned and, at each pair or four, a multiple of 8 from
    // `start`, so `byte` (and `byte + 1` for four) covers their bytes, all of the code.
    unsafe {
        let mut byte = bits.add(at.offset_from_unsigned(start) >> 3);
        // Four words a turn while they last (the loop's own tests and steps paid once per two
        // bytes of the table); the pairs below finish the run, and take over at a `PUSH`.
        while end.offset_from_unsigned(at) >= 16 {
            let words = at as *const u32;
            let (a, b) = (words.read(), words.add(1).read());
            let (c, d) = (words.add(2).read(), words.add(3).read());
            if has_push(a) | has_push(b) | has_push(c) | has_push(d) != 0 {
                break;
            }
            *byte = pair(a, b);
            *byte.add(1) = pair(c, d);
            byte = byte.add(2);
            at = at.add(16);
        }
        while end.offset_from_unsigned(at) >= 8 {
            let low = (at as *const u32).read();
            let high = (at as *const u32).add(1).read();
            if has_push(low) | has_push(high) != 0 {
                break;
            }
            *byte = pair(low, high);
            byte = byte.add(1);
            at = at.add(8);
        }
        // The pair's first word, when it holds no `PUSH` (the code's last word, or one before a
        // `PUSH`); the byte scan goes on from there.
        if end.offset_from_unsigned(at) >= 4 {
            let word = (at as *const u32).read();
            if has_push(word) == 0 {
                mark_word(word, at, start, bits);
                at = at.add(4);
            }
        }
    }
    at
}

/// The table's byte for two words of code (`low` first) that hold no `PUSH` byte: bit `k` set
/// where byte `k` of the pair is a `JUMPDEST`.
#[inline(always)]
fn pair(low: u32, high: u32) -> u8 {
    // Bits 7, 15, 23, 31 of `low` to 0, 8, 16, 24 and of `high` to 4, 12, 20, 28; the
    // multiplier's shifts (24, 17, 10, 3) gather them into the top byte in code order, and no
    // two partial products share a bit (no carries).
    let eight = (jumpdests(low) >> 7) | (jumpdests(high) >> 3);
    (eight.wrapping_mul(0x0102_0408) >> 24) as u8
}

/// Non-zero when a byte of `word` is a `PUSH1..=PUSH32` (0x60..=0x7f): the classic test for
/// a zero byte, on the bytes' top three bits against `011`.
#[inline(always)]
fn has_push(word: u32) -> u32 {
    let push = (word & 0xe0e0_e0e0) ^ 0x6060_6060;
    push.wrapping_sub(0x0101_0101) & !push & 0x8080_8080
}

/// 0x80 in each byte of `word` that is a `JUMPDEST`, 0 in the others (exact, unlike
/// [`has_push`]'s test, which may flag a byte above a flagged one).
#[inline(always)]
fn jumpdests(word: u32) -> u32 {
    let x = word ^ 0x5b5b_5b5b;
    !(((x & 0x7f7f_7f7f) + 0x7f7f_7f7f) | x | 0x7f7f_7f7f)
}

// The word scans read a code's bytes as little-endian words (byte `k` of a word is bits
// `8k..8k + 8`), as on RISC-V and x86.
const _: () = assert!(cfg!(target_endian = "little"));

#[cfg(test)]
mod tests;
