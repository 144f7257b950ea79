//! The guest's state, instruction by instruction: OpenVM's pure interpreter run in steps of a
//! bounded number of instructions, reading the state between steps. What the profile
//! (the host's `measure::profile`) attributes to functions, and what the page census
//! (the host's `measure::pages`) reads addresses from.

use openvm_sdk::openvm_circuit::arch::VmState;
use openvm_sdk::openvm_circuit::system::memory::online::GuestMemory;
use openvm_sdk::F;

use super::{vm_err, Vm, VmError};

/// The VM state the tracers see between steps.
pub type GuestState = VmState<F, GuestMemory>;

/// The RISC-V register `index` (x0..x31) of `state`.
pub fn register(state: &GuestState, index: u32) -> u32 {
    // SAFETY: address space 1 holds the 32 registers as 4 byte cells each, `index` < 32 keeps
    // the read in bounds, and `u8` is that address space's cell type.
    let bytes: [u8; 4] = unsafe { state.memory.read::<u8, 4>(1, (index & 31) * 4) };
    u32::from_le_bytes(bytes)
}

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
        self.trace_states(items, total, every, |state, n| visit(state.pc(), n))
    }

    /// [`Vm::trace_pcs`] with the whole state before every step.
    pub fn trace_states(
        &self,
        items: &[&[u8]],
        total: u64,
        every: u64,
        mut visit: impl FnMut(&GuestState, u64),
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
            visit(&state, n);
            state = interpreter
                .execute_from_state(state, Some(n))
                .map_err(vm_err)?;
            done += n;
        }
        Ok(())
    }
}
