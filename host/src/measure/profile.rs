//! `host profile`: where the guest's instructions go, by function, as a flame graph.
//!
//! OpenVM 2.0.2 names functions only with its `function-span` build feature (which also
//! rewrites the names into a side file), so the profile reads the guest ELF's own symbol table
//! (`elf`, demangled with `rustc-demangle`) and the program counter between steps of OpenVM's
//! pure interpreter ([`Vm::trace_pcs`]). Every instruction is attributed by default (exact:
//! the total equals the run's instruction count); `every > 1` samples one PC per step.
//!
//! Call stacks are rebuilt from the PCs alone: entering a function at its first instruction is
//! a call (pushed); reaching a function already on the stack is a return to it (popped to);
//! anything else (a jump into another function's body) replaces the top frame. Tail calls
//! therefore show as calls from the function that made them, which is how they read anyway.

use std::collections::HashMap;

use serde::Serialize;

use prover::guest::{decode_elf, GuestSpec};
use prover::vm::{Vm, VmError, VmRunError};

/// One function's instructions.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionCost {
    /// Its demangled name (without the hash).
    pub name: String,
    /// Instructions executed in its own body.
    pub instructions: u64,
    /// Share of all instructions.
    pub share: f64,
}

/// A block's profile.
#[derive(Debug, Clone, Serialize)]
pub struct Profile {
    /// The block.
    pub block: String,
    /// Instructions attributed (the run's count).
    pub instructions: u64,
    /// Instructions per PC sample (1: exact).
    pub every: u64,
    /// Functions by their own instructions, most first.
    pub functions: Vec<FunctionCost>,
    /// Call stacks (`outer;…;inner`) with the instructions spent in their innermost frame.
    pub stacks: Vec<(String, u64)>,
}

impl Profile {
    /// The instructions spent in `leaf`'s own body, by the function that called it, most
    /// first: who pays for a shared routine (`memcpy`, `memcmp`, `memset`), from the call
    /// stacks. Frames are matched by their whole name; a stack of `leaf` alone counts under
    /// `(none)`.
    pub fn callers(&self, leaf: &str) -> Vec<(String, u64)> {
        let mut by_caller: HashMap<&str, u64> = HashMap::new();
        for (stack, instructions) in &self.stacks {
            let mut frames = stack.rsplit(';');
            if frames.next() != Some(leaf) {
                continue;
            }
            *by_caller
                .entry(frames.next().unwrap_or("(none)"))
                .or_default() += instructions;
        }
        let mut callers: Vec<(String, u64)> = (by_caller.into_iter())
            .map(|(caller, n)| (caller.to_owned(), n))
            .collect();
        callers.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        callers
    }
}

/// The guest's functions, by start address.
pub(crate) struct Symbols {
    /// `(start, end exclusive, name)`, sorted by start.
    functions: Vec<(u32, u32, String)>,
}

impl Symbols {
    pub(crate) fn from_elf(bytes: &[u8]) -> Result<Self, VmError> {
        use elf::endian::LittleEndian;
        let bad = |e: elf::ParseError| prover::guest::GuestError::Elf(e.to_string());
        let file = elf::ElfBytes::<LittleEndian>::minimal_parse(bytes).map_err(bad)?;
        let (symbols, names) = file.symbol_table().map_err(bad)?.ok_or_else(|| {
            prover::guest::GuestError::Elf("the guest ELF has no symbol table".into())
        })?;
        let mut functions: Vec<(u32, u32, String)> = symbols
            .iter()
            .filter(|s| s.st_symtype() == elf::abi::STT_FUNC && s.st_size > 0)
            .filter_map(|s| {
                let name = names.get(s.st_name as usize).ok()?;
                let name = format!("{:#}", rustc_demangle::demangle(name));
                Some((s.st_value as u32, (s.st_value + s.st_size) as u32, name))
            })
            .collect();
        functions.sort();
        functions.dedup_by_key(|f| f.0);
        Ok(Self { functions })
    }

    /// How many functions there are.
    pub(crate) fn len(&self) -> usize {
        self.functions.len()
    }

    /// The name of function `index`.
    pub(crate) fn name(&self, index: usize) -> Option<&str> {
        self.functions.get(index).map(|f| f.2.as_str())
    }

    /// The function whose body holds `pc`, as an index; `None` outside every symbol.
    pub(crate) fn at(&self, pc: u32) -> Option<usize> {
        let k = self
            .functions
            .partition_point(|f| f.0 <= pc)
            .checked_sub(1)?;
        (pc < self.functions[k].1).then_some(k)
    }
}

/// The call tree, as frames keyed by `(parent frame, function)`.
struct Tree {
    /// `(parent, function)` per frame; frame 0 is the root.
    frames: Vec<(usize, usize)>,
    index: HashMap<(usize, usize), usize>,
    /// Instructions in each frame's own body.
    own: Vec<u64>,
}

impl Tree {
    fn new() -> Self {
        Self {
            frames: vec![(0, usize::MAX)],
            index: HashMap::new(),
            own: vec![0],
        }
    }

    fn child(&mut self, parent: usize, function: usize) -> usize {
        if let Some(&frame) = self.index.get(&(parent, function)) {
            return frame;
        }
        self.frames.push((parent, function));
        self.own.push(0);
        let frame = self.frames.len() - 1;
        self.index.insert((parent, function), frame);
        frame
    }
}

/// Profiles guest `spec` on block `block`'s input items `input` (a valid block's
/// [`crate::native::NativeRun::guest_input`], or the standard guest's input bytes as one item),
/// over `instructions` instructions (its metered count), one PC every `every` instructions.
pub fn profile(
    block: &str,
    input: &[Vec<u8>],
    spec: GuestSpec,
    instructions: u64,
    every: u64,
) -> Result<Profile, VmRunError> {
    let bytes = spec.build_bytes()?;
    let symbols = Symbols::from_elf(&bytes)?;
    let vm = Vm::new(decode_elf(&bytes)?, spec.public_values())?;
    let unknown = symbols.functions.len();
    let mut tree = Tree::new();
    // The open frames, innermost last, each `(frame, function)`.
    let mut stack: Vec<(usize, usize)> = Vec::new();
    vm.trace_pcs(&prover::vm::slices(input), instructions, every, |pc, n| {
        let function = symbols.at(pc).unwrap_or(unknown);
        let top = stack.last().map(|&(_, f)| f);
        if top != Some(function) {
            let entered = symbols.functions.get(function).is_some_and(|f| f.0 == pc);
            if let (false, Some(depth)) = (entered, stack.iter().rposition(|&(_, f)| f == function))
            {
                stack.truncate(depth + 1);
            } else {
                if !entered {
                    stack.pop();
                }
                let parent = stack.last().map_or(0, |&(frame, _)| frame);
                stack.push((tree.child(parent, function), function));
            }
        }
        let frame = stack.last().map_or(0, |&(frame, _)| frame);
        tree.own[frame] += n;
    })?;

    let name = |f: usize| {
        symbols
            .functions
            .get(f)
            .map_or("(no symbol)", |s| s.2.as_str())
    };
    let mut by_function: HashMap<usize, u64> = HashMap::new();
    let mut stacks = Vec::new();
    for (frame, &own) in tree.own.iter().enumerate().skip(1) {
        if own == 0 {
            continue;
        }
        *by_function.entry(tree.frames[frame].1).or_default() += own;
        let mut path = Vec::new();
        let mut at = frame;
        while at != 0 {
            path.push(name(tree.frames[at].1));
            at = tree.frames[at].0;
        }
        path.reverse();
        stacks.push((path.join(";"), own));
    }
    stacks.sort();
    let total: u64 = tree.own.iter().sum();
    let mut functions: Vec<FunctionCost> = by_function
        .into_iter()
        .map(|(f, n)| FunctionCost {
            name: name(f).to_owned(),
            instructions: n,
            share: n as f64 / total.max(1) as f64,
        })
        .collect();
    functions.sort_by(|a, b| {
        b.instructions
            .cmp(&a.instructions)
            .then(a.name.cmp(&b.name))
    });
    Ok(Profile {
        block: block.to_owned(),
        instructions: total,
        every,
        functions,
        stacks,
    })
}
