//! The run report: what one run of a block found (`host run` prints it; `--json` writes it),
//! from the native validation alone or with the guest's run in the VM.

use alloy_primitives::B256;
use program::Verdict;
use serde::Serialize;

use crate::native::NativeRun;
use prover::guest::{Crypto, GuestSpec, Keccak};
use prover::vm::{self, BlockRun, Limits, VmRunError};

/// How a block is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The validator on the host.
    Native,
    /// The guest in the VM, plain execution.
    Execute,
    /// The guest in the VM with metering (instructions, cells, memory, segments).
    Metered,
}

/// One run's report (`host run --json`).
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// The block's id.
    pub block: String,
    /// Its hash (from the native run).
    pub block_hash: Option<B256>,
    /// The verdict: `valid`, `invalid` (a rule broken), `insufficient` (the witness lacks
    /// data) or `unusable`.
    pub verdict: &'static str,
    /// Whether the verdict is `valid`.
    pub valid: bool,
    /// Why it is not valid.
    pub error: Option<String>,
    /// keccak256 of the canonical chain config the block was validated under (a proof's fourth
    /// public value).
    pub chain_digest: B256,
    /// Gas used.
    pub gas_used: Option<u64>,
    /// The mode.
    pub mode: Mode,
    /// The keccak variant (VM modes).
    pub keccak: Option<Keccak>,
    /// Where the cryptography ran (VM modes).
    pub crypto: Option<Crypto>,
    /// Instructions executed (metered).
    pub instructions: Option<u64>,
    /// Unpadded main-trace cells (metered).
    pub main_cells: Option<u64>,
    /// Unpadded proving-memory estimate, bytes (metered).
    pub memory_bytes: Option<u64>,
    /// Segments (metered).
    pub segments: Option<u64>,
    /// Per segment (metered), with the limit that ended it.
    pub segment_stats: Option<Vec<vm::SegmentStats>>,
    /// Per AIR, summed over segments, most main cells first (metered).
    pub airs: Option<Vec<vm::AirStats>>,
    /// Wall time of the validation / execution, seconds.
    pub wall_s: f64,
    /// Instructions per second (metered).
    pub throughput: Option<f64>,
}

impl RunReport {
    /// The report of a native validation.
    pub fn native(run: &NativeRun) -> Self {
        let out = run.verdict.as_ref().ok();
        Self {
            block: run.data.id.clone(),
            block_hash: out.map(|o| o.block_hash),
            verdict: Verdict::of(&run.verdict).name(),
            valid: out.is_some(),
            error: run.verdict.as_ref().err().map(ToString::to_string),
            chain_digest: run.chain.digest(),
            gas_used: out.map(|o| o.gas_used),
            mode: Mode::Native,
            keccak: None,
            crypto: None,
            instructions: None,
            main_cells: None,
            memory_bytes: None,
            segments: None,
            segment_stats: None,
            airs: None,
            wall_s: run.elapsed.as_secs_f64(),
            throughput: None,
        }
    }

    /// The report of the guest's run in the VM (`mode` execute or metered) of a block the
    /// native run found valid.
    pub fn vm(run: &NativeRun, mode: Mode, guest: &BlockRun) -> Self {
        let mut report = Self::native(run);
        report.mode = mode;
        report.keccak = Some(guest.spec.keccak);
        report.crypto = Some(guest.spec.crypto);
        report.wall_s = guest.elapsed.as_secs_f64();
        if let Some(m) = &guest.metering {
            report.instructions = Some(m.instructions);
            report.main_cells = Some(m.main_cells);
            report.memory_bytes = Some(m.memory_bytes);
            report.segments = Some(m.segments.len() as u64);
            report.throughput = Some(vm::throughput(m.instructions, guest.elapsed));
            report.segment_stats = Some(m.segments.clone());
            report.airs = Some(m.airs.clone());
        }
        report
    }
}

/// Runs the guest `spec` in the VM (`mode` execute or metered) on a block the native run found
/// valid, checks its public values against the native run's, and reports it.
pub fn run_in_vm(run: &NativeRun, mode: Mode, spec: GuestSpec) -> Result<RunReport, VmRunError> {
    run_in_vm_within(run, mode, spec, None, Limits::metering())
}

/// [`run_in_vm`], first run for at most `budget` instructions when given
/// ([`vm::block::run_block_within`]), with segments that end at `limits`.
pub fn run_in_vm_within(
    run: &NativeRun,
    mode: Mode,
    spec: GuestSpec,
    budget: Option<u64>,
    limits: Limits,
) -> Result<RunReport, VmRunError> {
    eprintln!(
        "executing block {} in the VM ({mode:?}, keccak {}, crypto {}) ...",
        run.data.id,
        spec.keccak.name(),
        spec.crypto.name()
    );
    if let Some(budget) = budget {
        eprintln!("  within a budget of {budget} instructions first ...");
    }
    let how = vm::block::How {
        metered: mode == Mode::Metered,
        budget,
        limits,
    };
    let guest = vm::block::run_block_within(run, spec, how, &[])?;
    Ok(RunReport::vm(run, mode, &guest))
}
