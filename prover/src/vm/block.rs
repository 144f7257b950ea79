//! The block guest in the VM, held to the native verdict: it runs the input the native run made
//! and must reveal the public values the native run computed, or, for a block the native run
//! did not find valid, end without public values reporting the same verdict (invalid,
//! insufficient, unusable). A build failure, a trap or a panic is a failure, never an agreeing
//! rejection.

use std::time::Duration;

use program::{PublicValues, Verdict};

use super::{timed, Limits, Metering, Vm, VmError};
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
    /// The guest's verdict is not the native run's.
    #[error("the guest found the block {}, the native run {}", .guest.name(), .native.name())]
    Verdict {
        /// The native run's.
        native: Verdict,
        /// The guest's.
        guest: Verdict,
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

impl From<crate::guest::GuestError> for VmRunError {
    fn from(e: crate::guest::GuestError) -> Self {
        Self::Vm(e.into())
    }
}

/// A block guest's run in the VM.
#[derive(Debug)]
pub struct BlockRun {
    /// The guest.
    pub spec: GuestSpec,
    /// Its verdict (the native run's: any other is a [`VmRunError`]).
    pub verdict: Verdict,
    /// Everything it revealed (an instrumented build's counts follow the block's values); none
    /// when the block is not valid.
    pub public: Vec<u8>,
    /// The figures, when metered.
    pub metering: Option<Metering>,
    /// Wall time of the execution.
    pub elapsed: Duration,
}

/// Runs guest `spec` on the input of a block (metered when `metered`, else plain execution;
/// `extra` inputs follow the block's) and checks its verdict against the native run's, and its
/// public values when the block is valid.
pub fn run_block(
    run: &NativeRun,
    spec: GuestSpec,
    metered: bool,
    extra: &[&[u8]],
) -> Result<BlockRun, VmRunError> {
    run_block_within(run, spec, How::new(metered, None), extra)
}

/// How [`run_block_within`] runs a guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct How {
    /// Metered, or plain execution.
    pub metered: bool,
    /// At most this many instructions, checked in a run of their own first.
    pub budget: Option<u64>,
    /// Where the segments end.
    pub limits: Limits,
}

impl How {
    /// Metered or not, within `budget`, with metering's default segments
    /// ([`Limits::metering`]).
    pub fn new(metered: bool, budget: Option<u64>) -> Self {
        Self {
            metered,
            budget,
            limits: Limits::metering(),
        }
    }
}

/// [`run_block`], first run for at most `how.budget` instructions when given (on the same
/// VM): a guest still running then is [`VmError::OverBudget`] and not measured. What `host
/// run --max-instructions` and `host worst` do, as OpenVM's metering cannot be stopped. Its
/// segments end at `how.limits` (`host run --segment-memory-mib` measures other cuts).
pub fn run_block_within(
    run: &NativeRun,
    spec: GuestSpec,
    how: How,
    extra: &[&[u8]],
) -> Result<BlockRun, VmRunError> {
    let How {
        metered,
        budget,
        limits,
    } = how;
    let vm = Vm::with_limits(spec.build()?, spec.public_values(), limits)?;
    // The extra inputs are read with the head, before any witness item.
    let input = run.guest_input();
    let mut items = vec![input[0].as_slice()];
    items.extend_from_slice(extra);
    items.extend(input[1..].iter().map(Vec::as_slice));
    if budget.is_some() {
        match vm.execute_items_within(&items, budget) {
            // The verdict is the measured run's to check.
            Ok(_) | Err(VmError::Refused(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let (result, elapsed) = timed(|| {
        if metered {
            vm.metered_items(&items).map(|(p, m)| (p, Some(m)))
        } else {
            vm.execute_items(&items).map(|p| (p, None))
        }
    });
    let native = Verdict::of(&run.verdict);
    let (public, metering, verdict) = match result {
        Ok((public, metering)) => (public, metering, Verdict::Valid),
        Err(VmError::Refused(guest)) => (Vec::new(), None, guest),
        Err(e) => return Err(e.into()),
    };
    if verdict != native {
        return Err(VmRunError::Verdict {
            native,
            guest: verdict,
        });
    }
    check_public(&public, run)?;
    Ok(BlockRun {
        spec,
        verdict,
        public,
        metering,
        elapsed,
    })
}

/// Checks the public values a guest revealed (a census build's tail after them is ignored)
/// against those of the native run: when it found the block valid, they must be its values;
/// when not, there must be none.
pub fn check_public(public: &[u8], run: &NativeRun) -> Result<(), VmRunError> {
    let native = match &run.verdict {
        Ok(native) => native,
        Err(_) if public.is_empty() => return Ok(()),
        Err(e) => {
            return Err(VmRunError::Verdict {
                native: e.verdict(),
                guest: Verdict::Valid,
            })
        }
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
