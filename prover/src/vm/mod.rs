//! The guest in the OpenVM VM: its configuration ([`config`]), plain execution (here),
//! execution under an instruction budget ([`budget`]), metering ([`meter`], with why each
//! segment ended: [`segments`]), and the block guest run against its native verdict
//! ([`block`]). Guest ELFs come from [`crate::guest`]; proving is [`crate::proof`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use openvm_sdk::openvm_circuit::arch::instructions::exe::VmExe;
use openvm_sdk::{StdIn, F};
use openvm_transpiler::elf::Elf;

pub mod app;
pub mod block;
pub mod budget;
pub mod config;
pub mod meter;
pub mod segments;
pub mod trace;

pub use block::{check_public, run_block, BlockRun, VmRunError};
pub(crate) use config::sdk_segmented;
pub use config::{default_segment_memory, vm_config, AppVmConfig, Limits, Sdk};
pub use meter::{AirStats, Metering, SegmentStats};
pub use segments::SegmentEnd;

/// A VM step that failed.
#[derive(Debug, thiserror::Error)]
pub enum VmError {
    /// The guest did not build or load.
    #[error(transparent)]
    Guest(#[from] crate::guest::GuestError),
    /// The SDK or the VM failed (keygen, transpiling, execution: a guest panic lands here).
    #[error("OpenVM: {0}")]
    Vm(String),
    /// The guest ended without public values, reporting a verdict by its exit code
    /// ([`program::guest::refuse`]): the block is invalid, the witness insufficient, or the
    /// input unusable.
    #[error("the guest found the block {}", .0.name())]
    Refused(program::Verdict),
    /// The guest was still running after its instruction budget ([`Vm::execute_items_within`]):
    /// stopped there, no verdict.
    #[error("over budget: still running after {0} instructions, stopped there")]
    OverBudget(u64),
}

/// An SDK or VM failure as a [`VmError`].
pub fn vm_err(e: impl std::fmt::Display) -> VmError {
    VmError::Vm(e.to_string())
}

/// An execution's failure: a guest's verdict when its exit code is one, else the VM's error.
pub(crate) fn execution_err(e: openvm_sdk::openvm_circuit::arch::ExecutionError) -> VmError {
    use openvm_sdk::openvm_circuit::arch::ExecutionError;
    match e {
        ExecutionError::FailedWithExitCode(code) => {
            program::Verdict::from_guest_exit_code(code).map_or_else(|| vm_err(e), VmError::Refused)
        }
        e => vm_err(e),
    }
}

/// [`execution_err`] through the SDK's error.
pub(crate) fn sdk_execution_err(e: openvm_sdk::SdkError) -> VmError {
    use openvm_sdk::openvm_circuit::arch::VirtualMachineError;
    match e {
        openvm_sdk::SdkError::Vm(VirtualMachineError::Execution(e)) => execution_err(e),
        e => vm_err(e),
    }
}

/// The SDK and the transpiled guest.
pub struct Vm {
    sdk: Sdk,
    exe: Arc<VmExe<F>>,
    public_values: usize,
    /// The CPU-engine machine metering, tracing and budgeted runs use, built once.
    machine: std::sync::OnceLock<meter::Machine>,
}

impl Vm {
    /// The VM for `elf` with this project's config, `public_values` public values and the
    /// default app parameters ([`Limits::metering`]).
    pub fn new(elf: Elf, public_values: usize) -> Result<Self, VmError> {
        Self::with_limits(elf, public_values, Limits::metering())
    }

    /// The VM with segments of at most 2^`log_stacked_height` rows (as a prover would use).
    pub fn with_log_stacked_height(
        elf: Elf,
        public_values: usize,
        log_stacked_height: usize,
    ) -> Result<Self, VmError> {
        Self::with_limits(elf, public_values, Limits::height(log_stacked_height))
    }

    /// The VM whose segments end at `limits`.
    pub fn with_limits(elf: Elf, public_values: usize, limits: Limits) -> Result<Self, VmError> {
        let sdk = sdk_segmented(
            public_values,
            limits.log_stacked_height,
            limits.segment_memory,
        )?;
        let exe = sdk.convert_to_exe(elf).map_err(vm_err)?;
        Ok(Self {
            sdk,
            exe,
            public_values,
            machine: std::sync::OnceLock::new(),
        })
    }

    /// The transpiled program, as proofs commit to it.
    pub fn exe(&self) -> &VmExe<F> {
        &self.exe
    }

    /// The guest's input items as the VM's stdin, one read each.
    pub fn stdin_items(items: &[&[u8]]) -> StdIn {
        let mut stdin = StdIn::default();
        for item in items {
            stdin.write_bytes(item);
        }
        stdin
    }

    /// Pure execution; returns the public values.
    pub fn execute(&self, input: &[u8]) -> Result<Vec<u8>, VmError> {
        self.execute_items(&[input])
    }

    /// [`Vm::execute`] with several input items, read by the guest in this order.
    pub fn execute_items(&self, items: &[&[u8]]) -> Result<Vec<u8>, VmError> {
        let mut public = self
            .sdk
            .execute(self.exe.clone(), Self::stdin_items(items))
            .map_err(sdk_execution_err)?;
        public.truncate(self.public_values);
        Ok(public)
    }
}

/// Input items as the VM's item lists take them.
pub fn slices(items: &[Vec<u8>]) -> Vec<&[u8]> {
    items.iter().map(Vec::as_slice).collect()
}

/// Wall time and the throughput it implies.
pub fn throughput(instructions: u64, elapsed: Duration) -> f64 {
    instructions as f64 / elapsed.as_secs_f64().max(1e-9)
}

/// Times `f`.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let value = f();
    (value, started.elapsed())
}

#[cfg(test)]
mod tests {
    use super::*;
    use openvm_sdk::openvm_circuit::arch::ExecutionError;

    /// Only the verdicts' own exit codes (17 invalid, 18 unusable, 19 insufficient) are
    /// verdicts: a panic's exit code 1, any other code and a trap are the VM's errors, never a
    /// verdict on the block.
    #[test]
    fn a_panic_or_a_trap_is_a_failure_not_a_verdict() {
        for (code, verdict) in [
            (17, program::Verdict::Invalid),
            (18, program::Verdict::Unusable),
            (19, program::Verdict::Insufficient),
        ] {
            match execution_err(ExecutionError::FailedWithExitCode(code)) {
                VmError::Refused(v) => assert_eq!(v, verdict),
                other => panic!("exit code {code}: {other}"),
            }
        }
        for code in (1..=255).filter(|c| !(17..=19).contains(c)) {
            match execution_err(ExecutionError::FailedWithExitCode(code)) {
                VmError::Vm(message) => assert!(message.contains(&code.to_string()), "{message}"),
                other => panic!("exit code {code} is a verdict: {other}"),
            }
        }
        for trap in [
            ExecutionError::PcOutOfBounds(0x10),
            ExecutionError::Unreachable(0x20),
            ExecutionError::Fail {
                pc: 0x30,
                msg: "a trap",
            },
        ] {
            assert!(
                matches!(execution_err(trap), VmError::Vm(_)),
                "a trap is a verdict"
            );
        }
    }
}
