//! A run proved in parts, in separate processes or machines, then joined into one proof.
//!
//! Once the run is replayed to a segment's start, each segment is an independent proving job
//! (replay is ~10^7 instructions/s, proving ~10^4 on a CPU). `host prove --segments A..B` proves
//! segments `A..B` alone ([`prove_part`]) into a [`PartFile`] that names the program, the input
//! (a keccak of its items), the run's segment count and the range; any batch system can fan
//! those commands out. `host prove --join` ([`join`]) checks the parts cover every segment
//! exactly once, for one program and one input, verifies them as one app proof, and seals it
//! as any run is sealed (aggregated by default).

use std::ops::Range;
use std::path::Path;
use std::time::{Duration, Instant};

use alloy_primitives::{keccak256, B256};
use openvm_sdk::openvm_circuit::arch::ContinuationVmProof;
use openvm_sdk::prover::verify_app_proof_with_expected_exe_commit;
use openvm_sdk::{DefaultStarkEngine, SC};
use openvm_stark_backend::proof::Proof;
use serde::{Deserialize, Serialize};

use super::segments::{prove_segments, PublicValuesProof};
use super::{
    peak_rss, read_object, seal, write_object, Limits, ProofError, ProofFile, ProofKind,
    ProveReport, Subject, FORMAT,
};
use crate::guest::GuestSpec;
use crate::vm::{vm_err, Vm};

/// Proofs of some of a run's segments.
#[derive(Serialize, Deserialize)]
pub struct PartFile {
    /// [`FORMAT`].
    pub format: u32,
    /// The guest program and VM proved.
    pub subject: Subject,
    /// What the run was on, for people: the block.
    pub label: String,
    /// The input items' digest ([`input_digest`]): parts of different inputs never join.
    pub input: B256,
    /// The run's number of segments.
    pub total: usize,
    /// The first segment proved here.
    pub first: usize,
    /// One app proof per segment, `first..first + proofs.len()`.
    pub proofs: Vec<Proof<SC>>,
    /// In the part that ends the run: the public values' Merkle proof.
    pub public_values: Option<PublicValuesProof>,
}

impl PartFile {
    /// The segments proved here.
    pub fn range(&self) -> Range<usize> {
        self.first..self.first + self.proofs.len()
    }
}

/// A keccak of the input items, each prefixed by its length.
pub fn input_digest(input: &[&[u8]]) -> B256 {
    let mut bytes = Vec::new();
    for item in input {
        bytes.extend_from_slice(&(item.len() as u64).to_le_bytes());
        bytes.extend_from_slice(item);
    }
    keccak256(bytes)
}

/// Proves segments `range` of the guest `spec`'s run on `input` (`label` names the input).
pub fn prove_part(
    spec: GuestSpec,
    limits: Limits,
    input: &[&[u8]],
    label: &str,
    range: Range<usize>,
) -> Result<(PartFile, ProveReport), ProofError> {
    let started = Instant::now();
    let (subject, elf) = Subject::of(spec, limits)?;
    let (sdk, _) = subject.sdk(ProofKind::App)?;
    let exe = sdk.convert_to_exe(elf).map_err(vm_err)?;
    eprintln!(
        "proving segments {}..{} of {} ({}) on {label} ...",
        range.start,
        range.end,
        subject.bin,
        subject.keccak.name()
    );
    let run = prove_segments(&sdk, exe, Vm::stdin_items(input), Some(range))?;
    let part = PartFile {
        format: FORMAT,
        subject,
        label: label.to_owned(),
        input: input_digest(input),
        total: run.total,
        first: run.first,
        proofs: run.proofs,
        public_values: run.public_values,
    };
    let report = ProveReport {
        execution: run.execution,
        segment_times: run.times,
        aggregation: None,
        keys: None,
        total: started.elapsed(),
        peak_rss: peak_rss(),
    };
    Ok((part, report))
}

/// Joins `parts` into one proof of the run (aggregated for [`ProofKind::Stark`]): they must be
/// of one program and one input and cover every segment exactly once.
pub fn join(
    mut parts: Vec<PartFile>,
    kind: ProofKind,
) -> Result<(ProofFile, ProveReport), ProofError> {
    let started = Instant::now();
    let refuse = |why: String| Err(ProofError::Parts(why));
    let Some(first) = parts.first() else {
        return refuse("no parts given".to_owned());
    };
    let (subject, input, total) = (first.subject.clone(), first.input, first.total);
    for part in &parts {
        if part.format != FORMAT {
            return Err(ProofError::Format(part.format));
        }
        if part.subject != subject {
            return refuse(format!(
                "a part of {} ({}, 2^{}) cannot join one of {} ({}, 2^{})",
                part.subject.bin,
                part.subject.keccak.name(),
                part.subject.log_stacked_height,
                subject.bin,
                subject.keccak.name(),
                subject.log_stacked_height
            ));
        }
        if part.input != input || part.total != total {
            return refuse(format!(
                "a part of another run ({}: input {}, {} segments) cannot join {} ({} segments)",
                part.label, part.input, part.total, input, total
            ));
        }
    }
    parts.sort_by_key(|p| p.first);
    let mut next = 0;
    for part in &parts {
        let range = part.range();
        if range.is_empty() {
            return refuse(format!("a part of {} proves no segment", part.label));
        }
        if range.start < next {
            return refuse(format!(
                "segment {} is proved twice (parts up to {next} and {}..{})",
                range.start, range.start, range.end
            ));
        }
        if range.start > next {
            return refuse(format!("segments {next}..{} are missing", range.start));
        }
        next = range.end;
    }
    if next != total {
        return refuse(format!("segments {next}..{total} are missing"));
    }
    let mut per_segment = Vec::with_capacity(total);
    let mut public_values = None;
    for part in parts {
        if part.range().end == total {
            public_values = part.public_values;
        }
        per_segment.extend(part.proofs);
    }
    let Some(user_public_values) = public_values else {
        return refuse("the last part carries no public values".to_owned());
    };
    let app = ContinuationVmProof {
        per_segment,
        user_public_values,
    };
    let elf = subject.prover_elf()?;
    let (sdk, keys) = subject.sdk(kind)?;
    let exe = sdk.convert_to_exe(elf).map_err(vm_err)?;
    // The parts must chain into one run of this program (memory roots, pcs, exe commit): a
    // clear refusal here, before the aggregation would fail on them.
    let expected_commit = sdk
        .app_prover(exe.clone())
        .map_err(vm_err)?
        .app_exe_commit();
    verify_app_proof_with_expected_exe_commit::<DefaultStarkEngine>(
        &sdk.app_vk(),
        &app,
        Some(expected_commit),
    )
    .map_err(|e| ProofError::Parts(format!("the joined segments do not verify: {e}")))?;
    let (file, aggregation) = seal(subject, &sdk, exe, app, kind)?;
    let report = ProveReport {
        execution: Duration::ZERO,
        segment_times: Vec::new(),
        aggregation,
        keys,
        total: started.elapsed(),
        peak_rss: peak_rss(),
    };
    Ok((file, report))
}

/// Writes a part to `path`.
pub fn write_part(path: &Path, part: &PartFile) -> Result<(), ProofError> {
    write_object(path, part)
}

/// Reads a part.
pub fn read_part(path: &Path) -> Result<PartFile, ProofError> {
    read_object(path)
}
