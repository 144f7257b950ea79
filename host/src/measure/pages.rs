//! `host profile --pages`: which memory pages each segment touches, by region and by function.
//!
//! A prover pays for touched memory per segment: OpenVM's metering charges every 512-byte page
//! (64 leaves of 8 bytes) a segment touches with 128 boundary rows, 300 Poseidon2 rows and 172
//! Merkle rows (`openvm-circuit`'s `MemoryCtx::apply_height_updates`), ~98 k main cells, the
//! same page again in every segment that touches it. OpenVM's metering keeps only the count,
//! so this census replays the run in OpenVM's pure interpreter one instruction at a time
//! ([`Vm::trace_states`]), decodes each load, store and custom instruction from the guest ELF
//! and reads its address from the registers.
//!
//! Loads and stores are exact. Custom instructions (keccak, hints, the algebra chips) are
//! approximated: each register operand that holds an address marks 200 bytes from it (a
//! keccak state; a 32-byte operand is within it), so a long `HINT_BUFFER` (the input read) is
//! counted only at its start, and its pages count when the guest reads them.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::profile::Symbols;
use prover::guest::{decode_elf, GuestSpec};
use prover::vm::trace::register;
use prover::vm::{Vm, VmError, VmRunError};

/// Bytes of a metered page (`1 << (DEFAULT_PAGE_BITS + CHUNK_BITS)`).
pub const PAGE_BYTES: u32 = 512;
/// OpenVM's stack top (`openvm_platform::memory::STACK_TOP`); the stack grows down from it.
const STACK_TOP: u32 = 0x0020_0400;

/// One segment's pages.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SegmentPages {
    /// Instructions in the segment.
    pub instructions: u64,
    /// Distinct pages touched.
    pub pages: u64,
    /// Of them, below the stack top.
    pub stack: u64,
    /// Of them, in the ELF's data (up to `_end`).
    pub data: u64,
    /// Of them, in the heap (from `_end`).
    pub heap: u64,
    /// Of them, touched for the first time in the run.
    pub fresh: u64,
}

/// The census of a run.
#[derive(Debug, Clone, Serialize)]
pub struct PageCensus {
    /// Per segment, in order.
    pub segments: Vec<SegmentPages>,
    /// The heap's start (`_end`).
    pub heap_start: u32,
    /// Distinct pages the whole run touched.
    pub distinct: u64,
    /// Functions by the page touches (first in a segment) their instructions made, most first.
    pub functions: Vec<(String, u64)>,
    /// Heap page touches (first in a segment) by MiB of heap offset.
    pub heap_mib: Vec<u64>,
}

/// The guest's instruction words by address, and `_end`.
struct Text {
    base: u32,
    words: Vec<u32>,
    end: u32,
}

impl Text {
    fn from_elf(bytes: &[u8]) -> Result<Self, VmError> {
        use elf::endian::LittleEndian;
        let bad = |e: elf::ParseError| prover::guest::GuestError::Elf(e.to_string());
        let file = elf::ElfBytes::<LittleEndian>::minimal_parse(bytes).map_err(bad)?;
        let text = file
            .segments()
            .ok_or_else(|| prover::guest::GuestError::Elf("no program headers".into()))?
            .iter()
            .find(|p| p.p_type == elf::abi::PT_LOAD && p.p_flags & elf::abi::PF_X != 0)
            .ok_or_else(|| prover::guest::GuestError::Elf("no executable segment".into()))?;
        let data = file.segment_data(&text).map_err(bad)?;
        let words = data
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let (symbols, names) = file
            .symbol_table()
            .map_err(bad)?
            .ok_or_else(|| prover::guest::GuestError::Elf("no symbol table".into()))?;
        let end = symbols
            .iter()
            .find(|s| names.get(s.st_name as usize).is_ok_and(|n| n == "_end"))
            .map(|s| s.st_value as u32)
            .ok_or_else(|| prover::guest::GuestError::Elf("no `_end` symbol".into()))?;
        Ok(Self {
            base: text.p_vaddr as u32,
            words,
            end,
        })
    }

    fn word(&self, pc: u32) -> u32 {
        let index = (pc.wrapping_sub(self.base) / 4) as usize;
        self.words.get(index).copied().unwrap_or(0)
    }
}

/// The byte ranges `[start, start + len)` the instruction `word` touches, given the registers.
fn accesses(word: u32, reg: impl Fn(u32) -> u32, out: &mut Vec<(u32, u32)>) {
    let rs1 = (word >> 15) & 31;
    let size = [1, 2, 4, 0, 1, 2, 0, 0][((word >> 12) & 7) as usize];
    match word & 0x7f {
        0x03 => {
            let imm = (word as i32) >> 20;
            out.push((reg(rs1).wrapping_add(imm as u32), size));
        }
        0x23 => {
            let imm = (((word as i32) >> 25) << 5) | ((word >> 7) & 31) as i32;
            out.push((reg(rs1).wrapping_add(imm as u32), size));
        }
        0x0b | 0x2b => {
            for r in [(word >> 7) & 31, rs1, (word >> 20) & 31] {
                let value = reg(r);
                if (0x400..1 << 29).contains(&value) {
                    out.push((value, 200));
                }
            }
        }
        _ => {}
    }
}

/// Replays guest `spec` on its input items `input` over `segments` (instructions per segment, the metered
/// run's) and counts the pages each segment touches.
pub fn census(
    input: &[Vec<u8>],
    spec: GuestSpec,
    segments: &[u64],
) -> Result<PageCensus, VmRunError> {
    let bytes = spec.build_bytes()?;
    let symbols = Symbols::from_elf(&bytes)?;
    let text = Text::from_elf(&bytes)?;
    let vm = Vm::new(decode_elf(&bytes)?, spec.public_values())?;
    let total: u64 = segments.iter().sum();

    let mut seen_ever: HashSet<u32> = HashSet::new();
    let mut seen: HashSet<u32> = HashSet::new();
    // Leaf helpers (`memcpy`, `memset`, ...) are charged to their caller, read from `ra`.
    let helpers: HashSet<usize> = (0..symbols.len())
        .filter(|&f| {
            symbols
                .name(f)
                .is_some_and(|n| n.starts_with("mem") || n.starts_with("compiler_builtins::mem::"))
        })
        .collect();
    let mut by_function: HashMap<(usize, usize), u64> = HashMap::new();
    let mut heap_mib: Vec<u64> = Vec::new();
    let mut result = Vec::new();
    let mut current = SegmentPages::default();
    let mut bounds = segments.iter().copied();
    let mut left = bounds.next().unwrap_or(total);
    let mut ranges = Vec::new();
    vm.trace_states(&prover::vm::slices(input), total, 1, |state, _| {
        if left == 0 {
            result.push(std::mem::take(&mut current));
            seen.clear();
            left = bounds.next().unwrap_or(u64::MAX);
        }
        left -= 1;
        current.instructions += 1;
        let pc = state.pc();
        ranges.clear();
        accesses(text.word(pc), |r| register(state, r), &mut ranges);
        for &(start, len) in &ranges {
            for page in start / PAGE_BYTES..=(start.saturating_add(len - 1)) / PAGE_BYTES {
                if !seen.insert(page) {
                    continue;
                }
                let address = page * PAGE_BYTES;
                current.pages += 1;
                if address < STACK_TOP {
                    current.stack += 1;
                } else if address < text.end {
                    current.data += 1;
                } else {
                    current.heap += 1;
                    let mib = ((address - text.end) >> 20) as usize;
                    if heap_mib.len() <= mib {
                        heap_mib.resize(mib + 1, 0);
                    }
                    heap_mib[mib] += 1;
                }
                if seen_ever.insert(page) {
                    current.fresh += 1;
                }
                let function = symbols.at(pc).unwrap_or(usize::MAX);
                let caller = if helpers.contains(&function) {
                    symbols
                        .at(register(state, 1).wrapping_sub(4))
                        .unwrap_or(usize::MAX)
                } else {
                    usize::MAX
                };
                *by_function.entry((function, caller)).or_default() += 1;
            }
        }
    })?;
    result.push(current);
    let mut functions: Vec<(String, u64)> = by_function
        .into_iter()
        .map(|((f, caller), n)| {
            let mut name = symbols.name(f).unwrap_or("(unknown)").to_string();
            if caller != usize::MAX {
                name = format!("{name} <- {}", symbols.name(caller).unwrap_or("(unknown)"));
            }
            (name, n)
        })
        .collect();
    functions.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(PageCensus {
        segments: result,
        heap_start: text.end,
        distinct: seen_ever.len() as u64,
        functions,
        heap_mib,
    })
}
