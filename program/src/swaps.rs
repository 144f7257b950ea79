//! `SWAP1` to `SWAP16` with word moves.
//!
//! revm swaps two stack items with `ptr::swap_nonoverlapping`, which the guest's target (RV32IM,
//! no unaligned access) compiles to a byte loop: 64 byte loads and 64 byte stores for one
//! swap, about 140 instructions. The stack's items are `U256`s, 8-byte aligned, so copying each
//! whole moves it in words (eight loads and eight stores), as revm's `DUP`s already do. On
//! 24171384 the swaps were 7.5% of the guest's instructions (`host profile`): the most of any
//! opcode class.
//!
//! [`install`] puts these in revm's instruction table, at revm's gas, as [`crate::jumps`] does
//! for `JUMP` and `JUMPI`. Each does what revm's `swap::<N>` does (the tests run both on the
//! same stacks): the top item and the `N`th below it change places, and a stack of `N` items
//! or fewer is a stack underflow.

use revm::bytecode::opcode::SWAP1;
use revm::context_interface::ContextTr;
use revm::handler::instructions::EthInstructions;
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::{
    Instruction, InstructionContext, InstructionExecResult, InstructionResult,
};

/// Puts [`swap`]`::<1>` to `::<16>` in `instructions` in place of revm's, at revm's gas.
pub(crate) fn install<H: ContextTr>(instructions: &mut EthInstructions<EthInterpreter, H>) {
    let gas = *instructions.gas_table();
    let swaps: [Instruction<EthInterpreter, H>; 16] = [
        Instruction::new(swap::<1, H>),
        Instruction::new(swap::<2, H>),
        Instruction::new(swap::<3, H>),
        Instruction::new(swap::<4, H>),
        Instruction::new(swap::<5, H>),
        Instruction::new(swap::<6, H>),
        Instruction::new(swap::<7, H>),
        Instruction::new(swap::<8, H>),
        Instruction::new(swap::<9, H>),
        Instruction::new(swap::<10, H>),
        Instruction::new(swap::<11, H>),
        Instruction::new(swap::<12, H>),
        Instruction::new(swap::<13, H>),
        Instruction::new(swap::<14, H>),
        Instruction::new(swap::<15, H>),
        Instruction::new(swap::<16, H>),
    ];
    for (k, instruction) in swaps.into_iter().enumerate() {
        let op = SWAP1 + k as u8;
        instructions.insert_instruction(op, instruction, gas[op as usize]);
    }
}

/// `SWAPN`: the top item and the `N`th below it change places.
// By hand: `mem::swap` is `swap_nonoverlapping` too, the byte loop this replaces.
#[allow(clippy::manual_swap)]
fn swap<const N: usize, H: ?Sized>(
    ctx: InstructionContext<'_, H, EthInterpreter>,
) -> InstructionExecResult {
    let data = ctx.interpreter.stack.data_mut();
    let Some(below) = data.len().checked_sub(N + 1) else {
        return Err(InstructionResult::StackUnderflow);
    };
    let (rest, top) = data.split_at_mut(below + 1);
    let (other, top) = (&mut rest[below], &mut top[N - 1]);
    let held = *other;
    *other = *top;
    *top = held;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::U256;
    use revm::interpreter::host::DummyHost;
    use revm::interpreter::Interpreter;

    fn stack_of(depth: usize) -> Interpreter<EthInterpreter> {
        let mut interpreter = Interpreter::<EthInterpreter>::default();
        for k in 0..depth {
            // Distinct in every byte, so a byte out of place shows.
            let item = U256::from_be_bytes(core::array::from_fn::<u8, 32, _>(|b| {
                (k * 32 + b) as u8 ^ 0xa5
            }));
            assert!(interpreter.stack.push(item));
        }
        interpreter
    }

    fn run<const N: usize>() {
        for depth in 0..=N + 2 {
            let (mut ours, mut theirs) = (stack_of(depth), stack_of(depth));
            let mut host = DummyHost::default();
            let got = swap::<N, DummyHost>(InstructionContext {
                interpreter: &mut ours,
                host: &mut host,
            });
            let expected = revm::interpreter::instructions::stack::swap::<N, _, DummyHost>(
                InstructionContext {
                    interpreter: &mut theirs,
                    host: &mut host,
                },
            );
            assert_eq!(got, expected, "SWAP{N} on {depth} items");
            assert_eq!(
                ours.stack.data(),
                theirs.stack.data(),
                "SWAP{N} on {depth} items"
            );
        }
    }

    /// Every `SWAPn`, on every stack depth from empty to two past what it needs, leaves the
    /// stack and returns exactly as revm's does.
    #[test]
    fn swaps_do_what_revms_do() {
        run::<1>();
        run::<2>();
        run::<3>();
        run::<4>();
        run::<5>();
        run::<6>();
        run::<7>();
        run::<8>();
        run::<9>();
        run::<10>();
        run::<11>();
        run::<12>();
        run::<13>();
        run::<14>();
        run::<15>();
        run::<16>();
    }
}
