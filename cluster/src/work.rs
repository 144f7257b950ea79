//! What one task does: prove segments, prove one aggregation node, wrap, or (test jobs) probe
//! ([`super::probe`]); the types every task shares are [`super::task`]'s.
//!
//! Segments go through [`prover::proof::segments::prove_segments`], as `host prove` does: a
//! segment task **replays** the run to its first segment (metered execution, then preflight
//! execution of the segments before it, ~10^7 instructions/s against the prover's ~10^4 on a
//! CPU: under 10 s for 24171384's 47.5 M instructions) rather than loading a stored checkpoint,
//! which would be a memory image of up to hundreds of MB per segment in the database for a
//! saving of seconds against minutes of proving. Each task records its replay time (`detail`).
//!
//! Its artifact is a [`PartFile`], the same file `host prove --segments` writes. Aggregation
//! nodes call the leaf and internal provers of the SDK's `AggProver` one node at a time
//! (`agg_prove_no_def`, the call `AggProver::prove_vm` makes per node), and the wrap is
//! `AggProver::wrap_proof` until the proof's shape settles ([`agg::finish`]). Every input is checked before it is used ([`TaskError::Refused`]
//! names the producer): its keccak, its decoding, and its proof against the verifying key of
//! the circuit that made it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use openvm_continuations::circuit::inner::ProofsType;
use openvm_continuations::prover::ChildVkKind;
use openvm_sdk::openvm_circuit::arch::instructions::exe::VmExe;
use openvm_sdk::prover::{AggProver, InternalLayerMetadata};
use openvm_sdk::{DefaultStarkEngine, F, SC};
use openvm_stark_backend::codec::Encode;
use openvm_stark_backend::keygen::types::MultiStarkVerifyingKey;
use openvm_stark_backend::proof::Proof;
use openvm_stark_backend::StarkEngine;
use openvm_verify_stark_host::VmStarkProof;
use prover::vm::Sdk;

use super::graph::{Child, Work};
use super::queue::{Claim, Input};
use super::task::{checked_bytes, Done, Job, TaskError};
use super::ClusterError;
use prover::proof::{self, agg, segments, PartFile, ProofFile, ProofKind, Subject};
use prover::vm::{vm_err, Vm};

/// This worker's build of a job's subject: the guest from its own source, its program
/// commitment and VM config, and the provers.
pub struct Build {
    /// The subject.
    pub subject: Subject,
    /// The SDK with the aggregation keys.
    pub sdk: Sdk,
    /// The transpiled guest.
    pub exe: Arc<VmExe<F>>,
    /// Its program commitment, hex.
    pub exe_commit: String,
    /// Keccak of the app verifying key (the VM config and segment height), hex.
    pub vm_config: String,
    agg: Arc<AggProver>,
}

impl Build {
    /// Builds `subject` from this host's source (the guest, then the keys, cached).
    pub fn new(subject: &Subject) -> Result<Self, ClusterError> {
        let elf = subject.build()?;
        let (sdk, _) = subject.sdk(ProofKind::Stark)?;
        let exe = sdk.convert_to_exe(elf).map_err(vm_err).map_err(proof_err)?;
        let commit = sdk
            .app_prover(exe.clone())
            .map_err(vm_err)
            .map_err(proof_err)?
            .app_exe_commit();
        let exe_commit = alloy_primitives::hex::encode_prefixed(
            commit
                .iter()
                .flat_map(|f| {
                    openvm_stark_backend::p3_field::PrimeField32::as_canonical_u32(f).to_le_bytes()
                })
                .collect::<Vec<u8>>(),
        );
        let app_vk =
            bitcode::serialize(&sdk.app_vk()).map_err(|e| ClusterError::Corrupt(e.to_string()))?;
        let vm_config = alloy_primitives::keccak256(app_vk).to_string();
        let agg = sdk.agg_prover();
        Ok(Self {
            subject: subject.clone(),
            sdk,
            exe,
            exe_commit,
            vm_config,
            agg,
        })
    }
}

fn proof_err(e: prover::vm::VmError) -> ClusterError {
    ClusterError::Proof(e.into())
}

/// Runs `claim` of `job` on its checked `inputs`, with `build` (`None` for a probe job).
pub fn run(
    build: Option<&Build>,
    job: &Job,
    claim: &Claim,
    inputs: Vec<Input>,
) -> Result<Done, TaskError> {
    let inputs = checked_bytes(inputs)?;
    match (&claim.work, build) {
        (Work::Probe { sleep_ms, fail }, _) => {
            super::probe::run(job, claim, &inputs, *sleep_ms, *fail)
        }
        (Work::Segments { first, count }, Some(build)) => {
            prove_segments(build, job, *first, *count)
        }
        (Work::Node { circuit, child }, Some(build)) => {
            node(build, job, claim.index as usize, *circuit, *child, inputs)
        }
        (Work::Wrap, Some(build)) => wrap(build, job, claim, inputs),
        (work, None) => Err(TaskError::Failed(format!("{work:?} in a probe job"))),
    }
}

fn prove_segments(build: &Build, job: &Job, first: usize, count: usize) -> Result<Done, TaskError> {
    let items: Vec<&[u8]> = job.input.iter().map(Vec::as_slice).collect();
    let run = segments::prove_segments(
        &build.sdk,
        build.exe.clone(),
        Vm::stdin_items(&items),
        Some(first..first + count),
    )
    .map_err(|e| TaskError::Failed(e.to_string()))?;
    if run.total != job.segments {
        return Err(TaskError::Failed(format!(
            "the run has {} segments on this worker, the job {}",
            run.total, job.segments
        )));
    }
    let proving: Duration = run.times.iter().sum();
    let part = PartFile {
        format: proof::FORMAT,
        subject: build.subject.clone(),
        label: job.label.clone(),
        input: job.input_keccak,
        total: run.total,
        first: run.first,
        proofs: run.proofs,
        public_values: run.public_values,
    };
    Ok(Done {
        artifact: encode(&part)?,
        detail: format!(
            "replay {:.1} s, prove {:.1} s",
            run.execution.as_secs_f64(),
            proving.as_secs_f64()
        ),
    })
}

/// A part from a segment task, checked against the job.
fn part_of(build: &Build, job: &Job, producer: i64, bytes: &[u8]) -> Result<PartFile, TaskError> {
    let refuse = |why: String| TaskError::Refused { producer, why };
    let part: PartFile =
        bitcode::deserialize(bytes).map_err(|e| refuse(format!("not a part: {e}")))?;
    if part.format != proof::FORMAT
        || part.subject != build.subject
        || part.input != job.input_keccak
        || part.total != job.segments
    {
        return Err(refuse(format!(
            "a part of another run ({}, {} segments, input {})",
            part.subject.bin, part.total, part.input
        )));
    }
    Ok(part)
}

fn node(
    build: &Build,
    job: &Job,
    index: usize,
    circuit: u8,
    child: Child,
    inputs: Vec<(i64, Work, Vec<u8>)>,
) -> Result<Done, TaskError> {
    let agg = &build.agg;
    let mut children: Vec<Proof<SC>> = Vec::new();
    let started = Instant::now();
    if circuit == 0 {
        // A leaf: the app proofs of its segments, from the parts that hold them.
        let leaf = job.shape.leaf_children;
        let wanted = index * leaf..((index + 1) * leaf).min(job.segments);
        let app_vk = build.sdk.app_vk().vk;
        for (producer, work, bytes) in inputs {
            let part = part_of(build, job, producer, &bytes)?;
            let range = part.range();
            // A part of the run, but not its producer's segments (another task's part stored
            // under its hash): its proofs would stand in for segments they are not.
            if let Work::Segments { first, count } = work {
                if range != (first..first + count) {
                    return Err(TaskError::Refused {
                        producer,
                        why: format!(
                            "a part of segments {range:?}, its task proves segments {:?}",
                            first..first + count
                        ),
                    });
                }
            }
            for (segment, proof) in range.zip(part.proofs) {
                if wanted.contains(&segment) {
                    check_proof(&app_vk, &proof, producer, "app")?;
                    children.push(proof);
                }
            }
        }
        if children.len() != wanted.len() {
            return Err(TaskError::Failed(format!(
                "the inputs hold {} of segments {wanted:?}",
                children.len()
            )));
        }
    } else {
        let vk = match child {
            Child::App => return Err(TaskError::Failed("an internal node over app proofs".into())),
            Child::Standard if circuit == 1 => agg.leaf_prover.get_vk(),
            Child::Standard => agg.internal_for_leaf_prover.get_vk(),
            Child::RecursiveSelf => agg.internal_recursive_prover.get_vk(),
        };
        for (producer, _, bytes) in inputs {
            let proof: Proof<SC> =
                bitcode::deserialize(&bytes).map_err(|e| TaskError::Refused {
                    producer,
                    why: format!("not a proof: {e}"),
                })?;
            check_proof(&vk, &proof, producer, "aggregation")?;
            children.push(proof);
        }
    }
    let checked = started.elapsed();
    let kind = match child {
        Child::App => ChildVkKind::App,
        Child::Standard => ChildVkKind::Standard,
        Child::RecursiveSelf => ChildVkKind::RecursiveSelf,
    };
    let proved = match circuit {
        0 => agg
            .leaf_prover
            .agg_prove_no_def::<DefaultStarkEngine>(&children, kind),
        1 => agg
            .internal_for_leaf_prover
            .agg_prove_no_def::<DefaultStarkEngine>(&children, kind),
        _ => agg
            .internal_recursive_prover
            .agg_prove_no_def::<DefaultStarkEngine>(&children, kind),
    }
    .map_err(|e| TaskError::Failed(format!("aggregation: {e}")))?;
    Ok(Done {
        artifact: encode(&proved)?,
        detail: format!(
            "{} children checked in {:.1} s, proved in {:.1} s",
            children.len(),
            checked.as_secs_f64(),
            (started.elapsed() - checked).as_secs_f64()
        ),
    })
}

/// Verifies one child proof against its circuit's key; a bad one is its producer's fault.
fn check_proof(
    vk: &MultiStarkVerifyingKey<SC>,
    proof: &Proof<SC>,
    producer: i64,
    what: &str,
) -> Result<(), TaskError> {
    DefaultStarkEngine::new(vk.inner.params.clone())
        .verify(vk, proof)
        .map_err(|e| TaskError::Refused {
            producer,
            why: format!("its {what} proof does not verify: {e:?}"),
        })
}

fn wrap(
    build: &Build,
    job: &Job,
    claim: &Claim,
    mut inputs: Vec<(i64, Work, Vec<u8>)>,
) -> Result<Done, TaskError> {
    if inputs.len() != 2 {
        return Err(TaskError::Failed(format!(
            "the wrap has {} inputs",
            inputs.len()
        )));
    }
    let (last, _, part_bytes) = inputs.pop().expect("two inputs");
    let (root, _, root_bytes) = inputs.pop().expect("two inputs");
    let part = part_of(build, job, last, &part_bytes)?;
    let Some(user_pvs_proof) = part.public_values else {
        return Err(TaskError::Refused {
            producer: last,
            why: "the last segment's part carries no public values".into(),
        });
    };
    let inner: Proof<SC> = bitcode::deserialize(&root_bytes).map_err(|e| TaskError::Refused {
        producer: root,
        why: format!("not a proof: {e}"),
    })?;
    let agg = &build.agg;
    check_proof(
        &agg.internal_recursive_prover.get_vk(),
        &inner,
        root,
        "aggregation",
    )?;
    let started = Instant::now();
    let mut public_values = proof::field_bytes(&user_pvs_proof.public_values);
    public_values.truncate(build.subject.public_values_len);
    let proof = VmStarkProof {
        inner,
        user_pvs_proof,
        deferral_merkle_proofs: None,
    };
    let mut metadata = InternalLayerMetadata {
        internal_recursive_layer: claim.layer as u32,
        internal_node_idx: 0,
        proofs_type: ProofsType::Vm,
    };
    let finished = agg::finish(agg, proof, &mut metadata)
        .map_err(|e| TaskError::Failed(format!("wrap: {e}")))?;
    let wrapped = finished.proof;
    let baseline = agg::baseline(&build.sdk, build.exe.clone())
        .map_err(|e| TaskError::Failed(e.to_string()))?;
    agg::verify(&build.sdk, baseline.clone(), &wrapped)
        .map_err(|e| TaskError::Failed(format!("the wrapped proof does not verify: {e}")))?;
    let file = ProofFile {
        format: proof::FORMAT,
        subject: build.subject.clone(),
        public_values,
        segments: job.segments,
        proof: proof::Proof::Stark {
            baseline: Box::new(baseline),
            encoded: wrapped
                .encode_to_vec()
                .map_err(|e| TaskError::Failed(e.to_string()))?,
        },
    };
    Ok(Done {
        artifact: encode(&file)?,
        detail: format!(
            "wrapped ({} wraps, {} bytes) and verified in {:.1} s",
            finished.wraps,
            finished.bytes,
            started.elapsed().as_secs_f64()
        ),
    })
}

fn encode<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, TaskError> {
    bitcode::serialize(value).map_err(|e| TaskError::Failed(format!("encoding the artifact: {e}")))
}

/// The memory a task of `work` needs, MiB, for a subject whose segments are capped at
/// `segment_memory` bytes of proving-memory estimate: measured peaks on the CPU prover (a
/// segment ~3.5 times its estimate: 4.5 GB at a 1,280 MiB cap, 14.4 GB at 4,096; a leaf over 3
/// to 4 app proofs 14.0–15.8 GB). `status` shows every task's measured peak.
pub fn memory_mib(work: &Work, segment_memory: usize) -> i64 {
    match work {
        Work::Segments { .. } => ((segment_memory >> 20) as i64 * 7 + 1) / 2,
        Work::Node { circuit: 0, .. } => 16 * 1024,
        Work::Node { .. } | Work::Wrap => 8 * 1024,
        Work::Probe { .. } => 64,
    }
}
