//! Jump destinations, found when a code first jumps, not when it is loaded.
//!
//! revm builds a legacy code's jump table when the code is loaded, and a code is loaded for
//! `EXTCODESIZE`, `EXTCODECOPY` and `EXTCODEHASH` as well as for a call. The scan is the
//! guest's dearest per-byte work (about 13 instructions per byte of an all-`JUMPDEST` code,
//! measured: 97% of the `extcodesize-64k` worst case, BENCHMARKS.md), and a code that is only
//! sized, copied or hashed never needs it. So the witness's codes reach revm with a marker
//! table ([`crate::code::unanalysed`]: every bit clear, shared), and this module's `JUMP` and `JUMPI`
//! ([`jump`], [`jumpi`]), which [`crate::evm::BlockEvm`] puts in revm's instruction table
//! ([`install`]), swap the running frame's code for the analysed one the first time that frame
//! jumps.
//! A code is analysed at most once per block ([`JumpDests`] keeps each analysed code, keyed by
//! where its bytes lie), and exactly as revm would ([`crate::code`]'s scan; the tests compare
//! with revm's tables).
//!
//! revm has no hook for this: its `Bytecode` holds an immutable table built eagerly, and its
//! frames take the loaded code as is. Replacing the two instructions is the one place every
//! jump passes through; every other instruction reads only the code's bytes, which the marker
//! code shares with the analysed one, so a frame's `pc` and immediates are unchanged by the
//! swap. A code with the marker run by any other EVM would find no jump valid, so only
//! [`crate::evm::BlockEvm`], which replaces both instructions, runs the witness's codes.

use alloc::collections::BTreeMap;

use alloy_primitives::U256;
use revm::bytecode::opcode::{JUMP, JUMPI};
use revm::bytecode::Bytecode;
use revm::context_interface::ContextTr;
use revm::handler::instructions::EthInstructions;
use revm::interpreter::interpreter::{EthInterpreter, ExtBytecode};
use revm::interpreter::interpreter_types::Jumps;
use revm::interpreter::{
    Instruction, InstructionContext, InstructionExecResult, InstructionResult, Interpreter,
};

use crate::code::is_unanalysed;

/// The codes analysed so far in a block, by the address of their bytes. Each entry holds the
/// bytes (the analysed code shares them), so no other code can come to lie at that address
/// while the entry lives.
#[derive(Debug, Default)]
pub struct JumpDests {
    analysed: BTreeMap<usize, Bytecode>,
}

impl JumpDests {
    /// `code` (marked) with its jump table: analysed on first use, then kept.
    pub(crate) fn analysed(&mut self, code: &Bytecode) -> Bytecode {
        self.analysed
            .entry(code.bytecode_ptr() as usize)
            .or_insert_with(|| analyse(code))
            .clone()
    }
}

/// A marked code with its jump table, over the same bytes.
#[inline(never)]
fn analyse(code: &Bytecode) -> Bytecode {
    crate::code::analysed(code.bytecode().clone(), code.len())
}

/// Puts [`jump`] and [`jumpi`] in `instructions` in place of revm's, at revm's gas.
pub(crate) fn install<H: ContextTr<Chain = JumpDests>>(
    instructions: &mut EthInstructions<EthInterpreter, H>,
) {
    let gas = *instructions.gas_table();
    instructions.insert_instruction(JUMP, Instruction::new(jump), gas[JUMP as usize]);
    instructions.insert_instruction(JUMPI, Instruction::new(jumpi), gas[JUMPI as usize]);
}

/// revm's `JUMP`, analysing the frame's code first if it is marked.
fn jump<H: ContextTr<Chain = JumpDests>>(
    ctx: InstructionContext<'_, H, EthInterpreter>,
) -> InstructionExecResult {
    let Some([target]) = ctx.interpreter.stack.popn() else {
        return Err(InstructionResult::StackUnderflow);
    };
    jump_to(ctx.interpreter, ctx.host.chain_mut(), target)
}

/// revm's `JUMPI`, analysing the frame's code first if it is marked and the jump is taken.
fn jumpi<H: ContextTr<Chain = JumpDests>>(
    ctx: InstructionContext<'_, H, EthInterpreter>,
) -> InstructionExecResult {
    let Some([target, condition]) = ctx.interpreter.stack.popn() else {
        return Err(InstructionResult::StackUnderflow);
    };
    if condition.is_zero() {
        return Ok(());
    }
    jump_to(ctx.interpreter, ctx.host.chain_mut(), target)
}

fn jump_to(
    interpreter: &mut Interpreter<EthInterpreter>,
    dests: &mut JumpDests,
    target: U256,
) -> InstructionExecResult {
    let target = usize::try_from(target).unwrap_or(usize::MAX);
    // A marked code's table has no destination, so its first jump lands here: the analysed
    // code's jumps pay nothing for the marker.
    if !interpreter.bytecode.is_valid_legacy_jump(target) {
        if !is_unanalysed(&interpreter.bytecode) {
            return Err(InstructionResult::InvalidJump);
        }
        swap_in_analysed(&mut interpreter.bytecode, dests);
        if !interpreter.bytecode.is_valid_legacy_jump(target) {
            return Err(InstructionResult::InvalidJump);
        }
    }
    interpreter.bytecode.absolute_jump(target);
    Ok(())
}

/// Replaces the frame's marked code with the analysed one, at the same `pc`, with the same
/// hash. Called mid-instruction: the frame has no pending action.
#[cold]
fn swap_in_analysed(bytecode: &mut ExtBytecode, dests: &mut JumpDests) {
    let pc = bytecode.pc();
    let mut analysed =
        ExtBytecode::new_with_optional_hash(dests.analysed(bytecode), bytecode.hash());
    analysed.absolute_jump(pc);
    *bytecode = analysed;
}
