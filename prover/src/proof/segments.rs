//! App proofs of a run's segments, all of them or a range: the one loop both `host prove` and
//! a split proof (`host prove --segments A..B`) go through.
//!
//! OpenVM's `AppProver::prove` proves every segment of a run in one call. A split proof needs
//! the segments `A..B` alone: the run is metered (the same segmentation every process computes,
//! since execution is deterministic), the segments before `A` are replayed without proving
//! (preflight execution, ~10^7 instructions/s against the prover's ~10^4), and `A..B` are
//! proved exactly as OpenVM's `VmInstance::prove_continuations` proves them. The part that
//! ends the run also carries the Merkle proof of the public values in the final memory.

use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use openvm_sdk::openvm_circuit::arch::execution_mode::Segment;
use openvm_sdk::openvm_circuit::arch::hasher::poseidon2::vm_poseidon2_hasher;
use openvm_sdk::openvm_circuit::arch::instructions::exe::VmExe;
use openvm_sdk::openvm_circuit::arch::{
    PreflightExecutionOutput, Streams, VirtualMachine, VmInstance,
};
use openvm_sdk::openvm_circuit::system::memory::merkle::public_values::UserPublicValuesProof;
use openvm_sdk::prover::vm::new_local_prover;
use openvm_sdk::{DefaultStarkEngine, StdIn, F, SC};

use crate::vm::Sdk;
use openvm_stark_backend::proof::Proof;
use openvm_stark_backend::StarkEngine;

use crate::vm::{vm_err, VmError};

#[cfg(feature = "cuda")]
type Builder = crate::vm::app::AppVmGpuBuilder;
#[cfg(not(feature = "cuda"))]
type Builder = crate::vm::app::AppVmCpuBuilder;

/// The public values' Merkle proof against the final memory.
pub type PublicValuesProof = UserPublicValuesProof<8, F>;

/// Proofs of a run's segments `first..first + proofs.len()`.
pub struct SegmentProofs {
    /// The run's number of segments.
    pub total: usize,
    /// The first segment proved.
    pub first: usize,
    /// One app proof per segment, in order.
    pub proofs: Vec<Proof<SC>>,
    /// When the range ends the run: the public values and their proof.
    pub public_values: Option<PublicValuesProof>,
    /// Wall time of each segment's proof.
    pub times: Vec<Duration>,
    /// Wall time of the metered execution and of replaying the segments before the range.
    pub execution: Duration,
}

/// The number of segments of the run of `exe` on `input` (metered execution, no proving): what
/// every prover of a part of it cuts it into.
pub fn count_segments(sdk: &Sdk, exe: Arc<VmExe<F>>, input: StdIn) -> Result<usize, VmError> {
    let instance = local_prover(sdk, &exe)?;
    Ok(meter(&instance.vm, &exe, input.into())?.len())
}

/// The VM instance that proves `exe` (its program committed for the prover).
fn local_prover(
    sdk: &Sdk,
    exe: &Arc<VmExe<F>>,
) -> Result<VmInstance<DefaultStarkEngine, Builder>, VmError> {
    new_local_prover::<DefaultStarkEngine, Builder>(
        Builder::default(),
        &sdk.app_pk().app_vm_pk,
        exe.clone(),
    )
    .map_err(vm_err)
}

/// The run's segments, as OpenVM's segmentation cuts it (metered execution).
fn meter(
    vm: &VirtualMachine<DefaultStarkEngine, Builder>,
    exe: &VmExe<F>,
    streams: Streams<F>,
) -> Result<Vec<Segment>, VmError> {
    let metered = vm.build_metered_ctx(exe);
    let (segments, _) = vm
        .metered_interpreter(exe)
        .map_err(vm_err)?
        .execute_metered(streams, metered)
        .map_err(vm_err)?;
    Ok(segments)
}

/// Meters the run of `exe` on `input` and proves the segments in `range` (`None`: all; a range
/// beyond the run's segments is an error naming their count), printing progress.
pub fn prove_segments(
    sdk: &Sdk,
    exe: Arc<VmExe<F>>,
    input: StdIn,
    range: Option<Range<usize>>,
) -> Result<SegmentProofs, VmError> {
    let mut instance = local_prover(sdk, &exe)?;
    let streams: Streams<F> = input.into();
    instance.reset_state(streams.clone());
    let mut state = instance.state_mut().take();
    let vm = &mut instance.vm;
    let executed = Instant::now();
    let segments = meter(vm, &exe, streams)?;
    let mut execution = executed.elapsed();
    let total = segments.len();
    let range = range.unwrap_or(0..total);
    if range.start >= range.end || range.end > total {
        return Err(VmError::Vm(format!(
            "segments {}..{} are not within the run's {total} segment(s)",
            range.start, range.end
        )));
    }
    let mut proofs = Vec::with_capacity(range.len());
    let mut times = Vec::with_capacity(range.len());
    for (index, segment) in segments.into_iter().enumerate().take(range.end) {
        let from = state.take().expect("a state between segments");
        let prove = range.contains(&index);
        let started = Instant::now();
        if prove {
            eprintln!("  segment {}/{total} ...", index + 1);
            vm.transport_init_memory_to_device(&from.memory);
        }
        let PreflightExecutionOutput {
            system_records,
            record_arenas,
            to_state,
        } = vm
            .execute_preflight(
                &mut instance.interpreter,
                from,
                Some(segment.num_insns),
                &segment.trace_heights,
            )
            .map_err(vm_err)?;
        state = Some(to_state);
        if !prove {
            execution += started.elapsed();
            continue;
        }
        let ctx = vm
            .generate_proving_ctx(system_records, record_arenas)
            .map_err(vm_err)?;
        let proof = vm.engine.prove(vm.pk(), ctx).map_err(vm_err)?;
        let elapsed = started.elapsed();
        eprintln!(
            "  segment {}/{total} proved in {:.1} s",
            index + 1,
            elapsed.as_secs_f64()
        );
        proofs.push(proof);
        times.push(elapsed);
    }
    let public_values = (range.end == total).then(|| {
        let state = state.as_ref().expect("the final state");
        let config = vm.config().as_ref();
        UserPublicValuesProof::compute(
            config.memory_config.memory_dimensions(),
            config.num_public_values,
            &vm_poseidon2_hasher(),
            &state.memory.memory,
            vm.memory_top_tree()
                .expect("the memory tree of the last segment"),
        )
    });
    Ok(SegmentProofs {
        total,
        first: range.start,
        proofs,
        public_values,
        times,
        execution,
    })
}
