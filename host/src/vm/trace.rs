//! The guest's program counter, instruction by instruction: OpenVM's pure interpreter run in
//! steps of a bounded number of instructions, reading the PC between steps. What the profile
//! ([`crate::measure::profile`]) attributes to functions.

use super::{vm_err, Vm, VmError};

impl Vm {
    /// Runs the guest on `items` for `total` instructions (its metered count), calling
    /// `visit(pc, n)` with the PC before every step of `every` instructions (1: every
    /// instruction, exact; more: one sample per step, standing for its `n` instructions).
    pub fn trace_pcs(
        &self,
        items: &[&[u8]],
        total: u64,
        every: u64,
        mut visit: impl FnMut(u32, u64),
    ) -> Result<(), VmError> {
        let every = every.max(1);
        let machine = self.machine()?;
        let interpreter = machine.interpreter(&self.exe).map_err(vm_err)?;
        let mut state = interpreter
            .execute(Self::stdin_items(items), Some(0))
            .map_err(vm_err)?;
        let mut done = 0;
        while done < total {
            let n = every.min(total - done);
            visit(state.pc(), n);
            state = interpreter
                .execute_from_state(state, Some(n))
                .map_err(vm_err)?;
            done += n;
        }
        Ok(())
    }
}
