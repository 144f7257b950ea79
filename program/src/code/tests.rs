//! The scan and the code loader against revm's.

use super::*;
use alloc::format;
use alloy_primitives::Bytes;

fn padded(code: &[u8]) -> Item {
    let mut buffer = code.to_vec();
    buffer.resize(code.len() + CODE_PADDING, 0);
    Item {
        buffer: Bytes::from(buffer),
        len: code.len(),
    }
}

/// `ours` runs as revm's code for the same bytes: the same code, revm's padding then only
/// zeros, and (once analysed, as its first jump does) revm's jump table.
fn runs_as_revm(ours: &Bytecode, code: &[u8]) {
    let revm = Bytecode::new_raw(Bytes::copy_from_slice(code));
    assert_eq!(ours.original_byte_slice(), code);
    assert_eq!(ours.len(), revm.len());
    let (head, tail) = ours.bytes_slice().split_at(revm.bytes_slice().len());
    assert_eq!(head, revm.bytes_slice(), "{code:02x?}");
    assert!(tail.iter().all(|&b| b == 0), "{code:02x?}");
    let analysed = crate::jumps::JumpDests::default().analysed(ours);
    assert_eq!(analysed.bytes_slice(), ours.bytes_slice());
    assert_eq!(analysed.legacy_jump_table(), revm.legacy_jump_table());
}

fn same_as_revm(code: &[u8]) {
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
        runs_as_revm(&bytecode(item).unwrap(), code);
    }
}

/// `analyze` gives revm's jump table for `slice`, and one bit per byte of it.
fn analyses_as_revm(slice: &[u8], what: &str) {
    let revm = Bytecode::new_raw(Bytes::copy_from_slice(slice));
    let bits = analyze(slice);
    assert_eq!(bits.len(), slice.len(), "{what}");
    assert_eq!(
        Some(&JumpTable::new(bits)),
        revm.legacy_jump_table(),
        "{what}"
    );
}

/// The word path against revm's scan: codes mostly of one-byte opcodes (so words without a
/// `PUSH` are common), at every alignment of their start.
#[test]
fn the_word_scan_finds_revm_s_destinations_at_any_alignment() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let ops = [
        opcode::JUMPDEST,
        opcode::ADD,
        opcode::JUMPDEST,
        opcode::PUSH1,
        opcode::PUSH4,
    ];
    for len in 0..300 {
        let code: alloc::vec::Vec<u8> = (0..len + 3)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if state.is_multiple_of(9) {
                    state as u8
                } else {
                    ops[(state >> 40) as usize % ops.len()]
                }
            })
            .collect();
        for offset in 0..4 {
            let slice = &code[offset..offset + len];
            analyses_as_revm(slice, &format!("{slice:02x?}"));
        }
    }
}

/// A `PUSH` right after a `JUMPDEST` (stepped over by the byte scan's `JUMPDEST` arm) of
/// every width, its immediate all `JUMPDEST` bytes, at every alignment, whole or cut short
/// by the code's end, and then a run that the word scans take.
#[test]
fn a_push_after_a_jumpdest_is_stepped_over_with_its_immediate() {
    for width in 1..=32u8 {
        let mut code = alloc::vec![opcode::JUMPDEST, opcode::PUSH1 + width - 1];
        code.extend(core::iter::repeat_n(opcode::JUMPDEST, width as usize + 40));
        for offset in 0..4 {
            let mut shifted = alloc::vec![opcode::ADD; offset];
            shifted.extend_from_slice(&code);
            for len in 0..=shifted.len() {
                let slice = &shifted[..len];
                analyses_as_revm(slice, &format!("{width} {offset} {len}"));
            }
        }
    }
}

/// The two-word path against revm's scan: long runs of `JUMPDEST`s (and of other one-byte
/// opcodes) broken now and then by a `PUSH` or any byte, so that runs of words without a
/// `PUSH` start and stop at every offset, at every alignment of the code's start.
#[test]
fn the_two_word_scan_finds_revm_s_destinations_in_long_runs() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for len in (0..400).chain([4096, 4099, 65_536]) {
        let code: alloc::vec::Vec<u8> = (0..len + 3)
            .map(|_| match next() % 40 {
                0 => opcode::PUSH1,
                1 => opcode::PUSH2 + (next() % 31) as u8,
                2 => next() as u8,
                3..=8 => opcode::ADD,
                _ => opcode::JUMPDEST,
            })
            .collect();
        for offset in 0..4 {
            let slice = &code[offset..offset + len];
            analyses_as_revm(slice, &format!("{len} at {offset}"));
        }
    }
    // `PUSH1 0x5b JUMPDEST` repeated (every other `0x5b` an immediate), and the same
    // with runs of `JUMPDEST`s between.
    for run in [0usize, 1, 5, 9, 40] {
        let mut unit = alloc::vec![opcode::PUSH1, opcode::JUMPDEST, opcode::JUMPDEST];
        unit.extend(core::iter::repeat_n(opcode::JUMPDEST, run));
        let code: alloc::vec::Vec<u8> = unit.iter().copied().cycle().take(1000).collect();
        for offset in 0..4 {
            for len in [0, 1, 31, 32, 33, 64, 95, 996] {
                let slice = &code[offset..offset + len];
                analyses_as_revm(slice, &format!("{run} {offset} {len}"));
            }
        }
    }
    // All `JUMPDEST`s but one `PUSH` (of every width) at every place in the first words
    // (so in the first quadruples of the four-word loop, and in the pairs after it).
    for at in 0..48 {
        for width in [1usize, 2, 7, 32] {
            let mut code = alloc::vec![opcode::JUMPDEST; 96];
            code[at] = opcode::PUSH1 + width as u8 - 1;
            for offset in 0..4 {
                analyses_as_revm(&code[offset..], &format!("{at} {width} {offset}"));
            }
        }
    }
}

/// A code longer than the marker table is analysed on load, as revm does.
#[test]
fn a_long_code_is_analysed_on_load() {
    let mut code = alloc::vec![opcode::JUMPDEST; MAX_UNANALYSED + 1];
    code[7] = opcode::PUSH2;
    let ours = bytecode(padded(&code)).unwrap();
    let revm = Bytecode::new_raw(code.into());
    assert_eq!(ours.legacy_jump_table(), revm.legacy_jump_table());
    assert_eq!(ours.original_byte_slice(), revm.original_byte_slice());
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
                [opcode::PUSH1, opcode::PUSH32, jumpdest, state as u8][(state >> 40) as usize % 4]
            })
            .collect();
        same_as_revm(&code);
    }
}

#[test]
fn unpadded_or_delegating_codes_are_revm_s() {
    let code = [opcode::PUSH1, 1];
    runs_as_revm(&bytecode(Item::from(code.to_vec())).unwrap(), &code);
    // A nonzero byte in the padding: not trusted, copied as revm does.
    let mut item = padded(&[opcode::PUSH1]);
    let mut buffer = item.buffer.to_vec();
    buffer[3] = 1;
    item.buffer = buffer.into();
    let ours = bytecode(item).unwrap();
    runs_as_revm(&ours, &[opcode::PUSH1]);
    assert!(ours.bytes_slice()[1..].iter().all(|&b| b == 0));
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
