//! The block guest in the VM, held to the native verdict: it runs the input the native run made
//! and must reveal the public values the native run computed.

use std::time::Duration;

use program::PublicValues;

use super::{timed, Metering, Vm, VmError};
use crate::guest::GuestSpec;
use crate::native::NativeRun;

/// A VM run's failure, or its verdict disagreeing with the native one.
#[derive(Debug, thiserror::Error)]
pub enum VmRunError {
    /// Building or running the VM failed.
    #[error(transparent)]
    Vm(#[from] VmError),
    /// The guest revealed other public values than the native run computed.
    #[error("public values differ from the native run: guest revealed {got:?}, native gives {expected:?}")]
    PublicValues {
        /// The native run's.
        expected: Box<PublicValues>,
        /// Revealed by the guest (`None`: fewer bytes than the layout holds).
        got: Option<Box<PublicValues>>,
    },
    /// A census build revealed too few public values.
    #[error("the census build revealed {got} bytes of public values, not {expected}")]
    CensusMissing {
        /// Bytes revealed.
        got: usize,
        /// Bytes a census build reveals.
        expected: usize,
    },
}

/// A block guest's run in the VM.
#[derive(Debug)]
pub struct BlockRun {
    /// The guest.
    pub spec: GuestSpec,
    /// Everything it revealed (an instrumented build's counts follow the block's values).
    pub public: Vec<u8>,
    /// The figures, when metered.
    pub metering: Option<Metering>,
    /// Wall time of the execution.
    pub elapsed: Duration,
}

/// Runs guest `spec` on the input of a block the native run found valid (metered when
/// `metered`, else plain execution; `extra` inputs follow the block's) and checks its public
/// values against the native result.
pub fn run_block(
    run: &NativeRun,
    spec: GuestSpec,
    metered: bool,
    extra: &[&[u8]],
) -> Result<BlockRun, VmRunError> {
    let vm = Vm::new(spec.build()?, spec.public_values())?;
    // The extra inputs are read with the head, before any witness item.
    let input = run.guest_input();
    let mut items = vec![input[0].as_slice()];
    items.extend_from_slice(extra);
    items.extend(input[1..].iter().map(Vec::as_slice));
    let (result, elapsed) = timed(|| {
        if metered {
            vm.metered_items(&items).map(|(p, m)| (p, Some(m)))
        } else {
            vm.execute_items(&items).map(|p| (p, None))
        }
    });
    let (public, metering) = result?;
    check_public(&public, run)?;
    Ok(BlockRun {
        spec,
        public,
        metering,
        elapsed,
    })
}

/// Checks the public values a guest revealed (a census build's tail after them is ignored)
/// against those of the native run, when it found the block valid.
pub fn check_public(public: &[u8], run: &NativeRun) -> Result<(), VmRunError> {
    let Ok(native) = &run.verdict else {
        return Ok(());
    };
    let expected = PublicValues::new(native, &run.chain);
    let got = PublicValues::from_bytes(public);
    if got == Some(expected) {
        Ok(())
    } else {
        Err(VmRunError::PublicValues {
            expected: Box::new(expected),
            got: got.map(Box::new),
        })
    }
}
