//! The standard guest run on its input bytes: natively (`program::standard::validate`), and in
//! the VM where asked, metered, its result read from its public values and held to the native
//! one.

use stateless_ssz::{Sha2Hasher, StatelessValidationResult, RESULT_BYTES};

/// The standard guest run on input bytes: natively, and in the VM where asked.
#[derive(Debug)]
pub struct StandardRun {
    /// The native run.
    pub native: program::standard::Standard,
    /// The VM's run, when asked: its result and metering.
    pub vm: Option<(StatelessValidationResult, crate::vm::Metering)>,
}

/// Why the VM's run does not stand.
#[derive(Debug, thiserror::Error)]
pub enum StandardVmError {
    /// The VM failed.
    #[error(transparent)]
    Vm(#[from] crate::vm::VmError),
    /// The public values are not a result then zero bytes.
    #[error("the standard guest's public values are not a result then zeros: 0x{0}")]
    PublicValues(String),
    /// The VM's result is not the native run's.
    #[error("the VM's result {vm:?} is not the native run's {native:?}")]
    Differs {
        /// The VM's.
        vm: StatelessValidationResult,
        /// The native run's.
        native: StatelessValidationResult,
    },
}

impl From<crate::guest::GuestError> for StandardVmError {
    fn from(e: crate::guest::GuestError) -> Self {
        Self::Vm(e.into())
    }
}

/// The result in the standard guest's public values: 43 bytes, then zeros.
pub fn result_of_public(public: &[u8]) -> Option<StatelessValidationResult> {
    let (result, rest) = public.split_at_checked(RESULT_BYTES)?;
    if rest.iter().any(|&b| b != 0) {
        return None;
    }
    StatelessValidationResult::from_bytes(result)
}

/// Runs the standard guest `spec` on `bytes` natively and, with `vm`, in the VM (metered), and
/// checks the two results agree.
pub fn run_standard(
    bytes: &[u8],
    spec: Option<crate::guest::GuestSpec>,
) -> Result<StandardRun, StandardVmError> {
    run_standard_within(bytes, spec, None)
}

/// [`run_standard`], first run for at most `budget` instructions when given (on the same VM):
/// a guest still running then is [`crate::vm::VmError::OverBudget`] and not measured.
pub fn run_standard_within(
    bytes: &[u8],
    spec: Option<crate::guest::GuestSpec>,
    budget: Option<u64>,
) -> Result<StandardRun, StandardVmError> {
    let native = program::standard::validate(bytes, &Sha2Hasher);
    let vm = match spec {
        None => None,
        Some(spec) => {
            let vm = crate::vm::Vm::new(spec.build()?, spec.public_values())?;
            if budget.is_some() {
                vm.execute_items_within(&[bytes], budget)?;
            }
            let (public, metering) = vm.metered(bytes)?;
            let result = result_of_public(&public).ok_or_else(|| {
                StandardVmError::PublicValues(alloy_primitives::hex::encode(&public))
            })?;
            if result != native.result {
                return Err(StandardVmError::Differs {
                    vm: result,
                    native: native.result,
                });
            }
            Some((result, metering))
        }
    };
    Ok(StandardRun { native, vm })
}
