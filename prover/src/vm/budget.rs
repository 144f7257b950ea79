//! Execution under an instruction budget: a guest that runs past it is stopped there and named
//! ([`VmError::OverBudget`]), never waited on.
//!
//! Why: one adversarial block can run the guest for hours (a blockchain test that spends 4.29 G
//! gas on BLAKE2F rounds ran 45 minutes in the guest, past 160 G instructions, unfinished),
//! and a sample of cases that waits on it says nothing about the rest. OpenVM's pure
//! interpreter runs exactly a given number of instructions; it does not say whether the guest
//! terminated within them, but a terminated guest stops with its PC on the `TERMINATE`
//! instruction (which does not advance it), and a guest stopped by the count almost never sits
//! there: when it does, its next instruction ends it successfully with the public values it has
//! already revealed, so reading them is the same answer.

use openvm_sdk::openvm_circuit::arch::instructions::program::DEFAULT_PC_STEP;
use openvm_sdk::openvm_circuit::arch::instructions::{LocalOpcode, SystemOpcode};
use openvm_sdk::openvm_circuit::system::memory::merkle::public_values::extract_public_values;

use super::{execution_err, vm_err, Vm, VmError};

impl Vm {
    /// [`Vm::execute_items`] stopped after `budget` instructions when given: a guest still
    /// running then is [`VmError::OverBudget`].
    pub fn execute_items_within(
        &self,
        items: &[&[u8]],
        budget: Option<u64>,
    ) -> Result<Vec<u8>, VmError> {
        let Some(budget) = budget else {
            return self.execute_items(items);
        };
        let machine = self.machine()?;
        let interpreter = machine.interpreter(&self.exe).map_err(vm_err)?;
        let state = interpreter
            .execute(Self::stdin_items(items), Some(budget))
            .map_err(execution_err)?;
        if !self.terminates_at(state.pc()) {
            return Err(VmError::OverBudget(budget));
        }
        let mut public = extract_public_values(self.public_values, &state.memory.memory);
        public.truncate(self.public_values);
        Ok(public)
    }

    /// Whether the instruction at `pc` ends the program.
    fn terminates_at(&self, pc: u32) -> bool {
        let program = &self.exe.program;
        let Some(offset) = pc.checked_sub(program.pc_base) else {
            return false;
        };
        program
            .get_instruction_and_debug_info((offset / DEFAULT_PC_STEP) as usize)
            .is_some_and(|(instruction, _)| {
                instruction.opcode == SystemOpcode::TERMINATE.global_opcode()
            })
    }
}
