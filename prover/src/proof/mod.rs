//! Proofs of a guest run: prove, write to a file, read back, verify.
//!
//! `host prove` gives **one aggregated STARK** of the whole run by default ([`ProofKind::Stark`]:
//! the app proof of every segment, aggregated by OpenVM's leaf and internal verifiers, [`agg`]),
//! or the app proof itself, one STARK per segment ([`ProofKind::App`]). A run's segments can also
//! be proved apart, in separate processes, and joined into the same single proof ([`parts`]).
//!
//! A [`ProofFile`] names what was proved (the guest binary, its keccak variant, the VM's public
//! value count and segment height) besides the proof and the public values it claims. Verifying
//! rebuilds that guest from the source, recomputes its program commitment and checks that the
//! proof is a valid proof **of that program** (a valid proof of any other program is rejected),
//! then that the public values the proof commits to are the ones the file claims. A proof of the
//! block guest is accepted only under the chain config the verifier expects ([`verify_block`]):
//! its fourth public value must be that config's digest.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use openvm_sdk::openvm_circuit::arch::instructions::exe::VmExe;
use openvm_sdk::openvm_circuit::arch::ContinuationVmProof;
use openvm_sdk::{F, SC};

use crate::vm::Sdk;
use openvm_stark_backend::p3_field::PrimeField32;
use openvm_verify_stark_host::vk::VerificationBaseline;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::guest::GuestSpec;
use crate::vm::{vm_err, Vm, VmError};

pub mod agg;
pub mod bare;
pub mod binding;
pub mod parts;
pub mod pin;
pub mod prepare;
pub mod segments;
pub mod standard;
pub mod subject;
pub mod verify;

pub use agg::{keys_dir, AggTimes, KeysSource};
pub use parts::{input_digest, join, prove_part, read_part, write_part, PartFile};
pub use standard::{prove_standard, verify_standard, StandardProofError};
pub use subject::{fit_program, fixed_table_log_height, Limits, Subject, PROVE_SEGMENT_MEMORY_MIB};
pub use verify::{verify, verify_block, BlockProofError, Verifier};

/// The proof file's format version (2: the proof is app or aggregated).
pub const FORMAT: u32 = 2;

/// A proof and what it claims.
#[derive(Serialize, Deserialize)]
pub struct ProofFile {
    /// [`FORMAT`].
    pub format: u32,
    /// The guest program and VM proved.
    pub subject: Subject,
    /// The public values the proof claims (for the block guest: [`program::PublicValues`]).
    pub public_values: Vec<u8>,
    /// The run's number of segments.
    pub segments: usize,
    /// The proof.
    pub proof: Proof,
}

/// Which proof `host prove` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProofKind {
    /// One aggregated STARK of the whole run: constant size.
    Stark,
    /// One STARK per segment (OpenVM's app proof): grows with the run.
    App,
}

/// The proof itself.
#[derive(Serialize, Deserialize)]
pub enum Proof {
    /// One app proof per segment, and the public values' Merkle proof.
    App(ContinuationVmProof<SC>),
    /// One aggregated STARK.
    Stark {
        /// What the prover says it verifies against (the program commitment and the aggregation
        /// verifiers' keys); the verifier recomputes it and refuses a proof whose baseline is
        /// not its own.
        baseline: Box<VerificationBaseline>,
        /// The proof, in OpenVM's encoding.
        encoded: Vec<u8>,
    },
}

impl Proof {
    /// `app` or `stark`.
    pub fn kind(&self) -> ProofKind {
        match self {
            Proof::App(_) => ProofKind::App,
            Proof::Stark { .. } => ProofKind::Stark,
        }
    }
}

/// Why a proof is not accepted, or could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    /// Building, proving or verifying failed; a forged or corrupted proof lands here.
    #[error(transparent)]
    Vm(#[from] VmError),
    /// The file cannot be read or written, or is not a proof file.
    #[error("proof file {path}: {reason}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The file names a guest program this host does not build.
    #[error("the proof is of guest `{0}`, which this host does not build")]
    UnknownProgram(String),
    /// The file's format version is not [`FORMAT`].
    #[error("proof file format {0} is not supported (expected {FORMAT})")]
    Format(u32),
    /// The proof commits to other public values than the file claims.
    #[error("the proof commits to public values {proved:02x?}, the file claims {claimed:02x?}")]
    PublicValues {
        /// What the proof commits to.
        proved: Vec<u8>,
        /// What the file says.
        claimed: Vec<u8>,
    },
    /// An aggregated proof's baseline is not the one this guest and these keys give.
    #[error("the proof is of {what} {proved}, this verifier expects {expected}")]
    Baseline {
        /// Which part differs: the program commitment or a verifier's key.
        what: &'static str,
        /// The file's.
        proved: String,
        /// The verifier's.
        expected: String,
    },
    /// The proof is not of the build the repository pins (another guest, keccak, VM or proof
    /// kind): only `--rebuild` can check it.
    #[error("the proof is of {subject}, not of the pinned block guest: verify it with --rebuild")]
    NotPinned {
        /// What the file says it is of.
        subject: String,
    },
    /// Parts that do not join into one run's proof.
    #[error("parts: {0}")]
    Parts(String),
}

impl From<crate::guest::GuestError> for ProofError {
    fn from(e: crate::guest::GuestError) -> Self {
        Self::Vm(e.into())
    }
}

/// What proving cost.
#[derive(Debug, Clone)]
pub struct ProveReport {
    /// Metered execution, and the replay to a part's first segment.
    pub execution: Duration,
    /// Wall time of each segment's app proof, in order.
    pub segment_times: Vec<Duration>,
    /// The aggregation's stages (aggregated proofs only).
    pub aggregation: Option<AggTimes>,
    /// The aggregation keys used (aggregated proofs only).
    pub keys: Option<KeysSource>,
    /// The whole call's wall time.
    pub total: Duration,
    /// The process's peak resident memory so far, bytes (Linux `VmHWM`).
    pub peak_rss: Option<u64>,
}

/// The process's peak resident set size (Linux), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Proves the guest `spec` on the input items `input`: every segment's app proof, then, for
/// [`ProofKind::Stark`], their aggregation into one STARK.
pub fn prove(
    spec: GuestSpec,
    limits: Limits,
    input: &[&[u8]],
    kind: ProofKind,
) -> Result<(ProofFile, ProveReport), ProofError> {
    let started = Instant::now();
    let (subject, elf) = Subject::of(spec, limits)?;
    let (sdk, keys) = subject.sdk(kind)?;
    let exe = sdk.convert_to_exe(elf).map_err(vm_err)?;
    eprintln!(
        "proving {} ({}), segments of at most 2^{} rows ...",
        subject.bin,
        subject.keccak.name(),
        subject.log_stacked_height
    );
    let run = segments::prove_segments(&sdk, exe.clone(), Vm::stdin_items(input), None)?;
    let app = ContinuationVmProof {
        per_segment: run.proofs,
        user_public_values: run.public_values.expect("the whole run was proved"),
    };
    let (file, aggregation) = seal(subject, &sdk, exe, app, kind)?;
    let report = ProveReport {
        execution: run.execution,
        segment_times: run.times,
        aggregation,
        keys,
        total: started.elapsed(),
        peak_rss: peak_rss(),
    };
    Ok((file, report))
}

/// The proof file of a proved run: its app proof as is, or aggregated.
fn seal(
    subject: Subject,
    sdk: &Sdk,
    exe: Arc<VmExe<F>>,
    app: ContinuationVmProof<SC>,
    kind: ProofKind,
) -> Result<(ProofFile, Option<AggTimes>), ProofError> {
    let segments = app.per_segment.len();
    let mut public_values = field_bytes(&app.user_public_values.public_values);
    // The VM holds a power of two of them; the guest reveals the first `public_values_len`.
    public_values.truncate(subject.public_values_len);
    let (proof, times) = match kind {
        ProofKind::App => (Proof::App(app), None),
        ProofKind::Stark => {
            eprintln!("aggregating {segments} segment proof(s) ...");
            let baseline = agg::baseline(sdk, exe)?;
            let (encoded, times) = agg::aggregate(sdk, app)?;
            (
                Proof::Stark {
                    baseline: Box::new(baseline),
                    encoded,
                },
                Some(times),
            )
        }
    };
    let file = ProofFile {
        format: FORMAT,
        subject,
        public_values,
        segments,
        proof,
    };
    Ok((file, times))
}

/// Field elements that each hold one byte, as bytes.
pub fn field_bytes(values: &[F]) -> Vec<u8> {
    values.iter().map(|f| f.as_canonical_u32() as u8).collect()
}

/// Writes `file` to `path`.
pub fn write(path: &Path, file: &ProofFile) -> Result<(), ProofError> {
    write_object(path, file)
}

/// Reads a proof file.
pub fn read(path: &Path) -> Result<ProofFile, ProofError> {
    read_object(path)
}

/// Writes `object` to `path` as openvm-sdk writes its keys and proofs (bitcode).
pub(crate) fn write_object<T: Serialize>(path: &Path, object: &T) -> Result<(), ProofError> {
    openvm_sdk::fs::write_object_to_file(path, object).map_err(|e| file_error(path, e))
}

/// Reads what [`write_object`] wrote.
pub(crate) fn read_object<T: DeserializeOwned>(path: &Path) -> Result<T, ProofError> {
    openvm_sdk::fs::read_object_from_file(path).map_err(|e| file_error(path, e))
}

/// A file that cannot be read or written, or is not what it should be.
pub(crate) fn file_error(path: &Path, reason: impl std::fmt::Display) -> ProofError {
    ProofError::File {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}
