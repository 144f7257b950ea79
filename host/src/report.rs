//! What `host run` and `host compare` print and write as JSON.

use std::time::Duration;

use alloy_primitives::B256;
use program::{PublicValues, StatelessInput, Verdict};
use serde::Serialize;

use crate::guest::{Crypto, GuestSpec, Instrument, Keccak};
use crate::run::NativeRun;
use crate::vm::{self, Metering, Vm, VmError};

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
    /// Per segment (metered).
    pub segment_stats: Option<Vec<vm::SegmentStats>>,
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
            wall_s: run.elapsed.as_secs_f64(),
            throughput: None,
        }
    }
}

/// The guest's input for a loaded block.
pub fn guest_input(run: &NativeRun) -> Vec<u8> {
    StatelessInput {
        block: run.data.block_rlp.clone().into(),
        witness: run.data.witness.clone(),
        chain: run.chain.clone(),
    }
    .to_bytes()
}

/// A VM run's verdict disagreeing with the native one.
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

/// Checks the public values a guest revealed (a census build's tail after them is ignored)
/// against those of the native run, when it found the block valid.
pub(crate) fn check_public(public: &[u8], run: &NativeRun) -> Result<(), VmRunError> {
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

/// Public values and, when metered, the figures.
type VmOutput = (Vec<u8>, Option<Metering>);

/// Runs a block the native run found valid in the VM (`mode` execute or metered) and checks
/// the public values against the native result.
pub fn run_in_vm(run: &NativeRun, mode: Mode, keccak: Keccak) -> Result<RunReport, VmRunError> {
    run_in_vm_with(run, mode, keccak, Crypto::Openvm)
}

/// [`run_in_vm`] with the guest's cryptography on `crypto`.
pub fn run_in_vm_with(
    run: &NativeRun,
    mode: Mode,
    keccak: Keccak,
    crypto: Crypto,
) -> Result<RunReport, VmRunError> {
    let mut report = RunReport::native(run);
    report.mode = mode;
    report.keccak = Some(keccak);
    report.crypto = Some(crypto);
    let spec = GuestSpec::block(keccak, crypto);
    let vm = Vm::new(spec.build()?, spec.public_values())?;
    let input = guest_input(run);
    eprintln!(
        "executing block {} in the VM ({mode:?}, keccak {}) ...",
        run.data.id,
        keccak.name()
    );
    let (result, elapsed): (Result<VmOutput, VmError>, Duration) = vm::timed(|| match mode {
        Mode::Metered => vm.metered(&input).map(|(p, m)| (p, Some(m))),
        _ => vm.execute(&input).map(|p| (p, None)),
    });
    report.wall_s = elapsed.as_secs_f64();
    let (public, metering) = result?;
    check_public(&public, run)?;
    if let Some(m) = metering {
        report.instructions = Some(m.instructions);
        report.main_cells = Some(m.main_cells);
        report.memory_bytes = Some(m.memory_bytes);
        report.segments = Some(m.segments.len() as u64);
        report.throughput = Some(vm::throughput(m.instructions, elapsed));
        report.segment_stats = Some(m.segments);
    }
    Ok(report)
}

/// `host compare --json`: both variants on one input.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The block's id.
    pub block: String,
    /// OpenVM's stock keccak.
    pub stock: RunReport,
    /// Ours.
    pub ours: RunReport,
}

impl Comparison {
    /// The table: metric, stock, ours, delta, delta %.
    pub fn table(&self) -> String {
        let rows = [
            (
                "instructions",
                self.stock.instructions,
                self.ours.instructions,
            ),
            ("main cells", self.stock.main_cells, self.ours.main_cells),
            (
                "memory bytes",
                self.stock.memory_bytes,
                self.ours.memory_bytes,
            ),
            ("segments", self.stock.segments, self.ours.segments),
        ];
        let mut out = String::from(
            "| metric | stock | ours | delta | delta % |\n|---|---:|---:|---:|---:|\n",
        );
        for (name, stock, ours) in rows {
            let (s, o) = (
                stock.unwrap_or_default() as i128,
                ours.unwrap_or_default() as i128,
            );
            let pct = if s == 0 {
                0.0
            } else {
                (o - s) as f64 * 100.0 / s as f64
            };
            out += &format!("| {name} | {s} | {o} | {:+} | {pct:+.2}% |\n", o - s);
        }
        out
    }
}

/// A census run's result.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CensusReport {
    /// The variant.
    pub keccak: Keccak,
    /// XORIN calls by class, software and staged bytes, KECCAKF calls, keccak heap bytes.
    pub census: CensusCounts,
    /// The guest's total heap use, bytes (input included).
    pub guest_heap_bytes: u64,
}

/// [`mpt::keccak::census::Census`] for serde.
#[derive(Debug, Clone, Copy, Serialize)]
#[allow(missing_docs)]
pub struct CensusCounts {
    pub xorin_aligned: u64,
    pub xorin_len_unaligned: u64,
    pub xorin_state_unaligned: u64,
    pub xorin_input_unaligned: u64,
    pub xorin_overlapping: u64,
    pub software_bytes: u64,
    pub staged_bytes: u64,
    pub keccakf: u64,
    pub keccak_heap_bytes: u64,
}

/// Runs the census build of `keccak`'s guest on a valid block.
pub fn run_census(run: &NativeRun, keccak: Keccak) -> Result<CensusReport, VmRunError> {
    let spec = GuestSpec::block(keccak, Crypto::Openvm).instrumented(Instrument::KeccakCensus);
    let vm = Vm::new(spec.build()?, spec.public_values())?;
    eprintln!(
        "executing block {} in the VM (census, keccak {}) ...",
        run.data.id,
        keccak.name()
    );
    let public = vm.execute(&guest_input(run))?;
    check_public(&public, run)?;
    let (c, guest_heap_bytes) = vm::decode_census(&public).ok_or(VmRunError::CensusMissing {
        got: public.len(),
        expected: spec.public_values(),
    })?;
    Ok(CensusReport {
        keccak,
        census: CensusCounts {
            xorin_aligned: c.aligned,
            xorin_len_unaligned: c.len_unaligned,
            xorin_state_unaligned: c.state_unaligned,
            xorin_input_unaligned: c.input_unaligned,
            xorin_overlapping: c.overlapping,
            software_bytes: c.software_bytes,
            staged_bytes: c.staged_bytes,
            keccakf: c.keccakf,
            keccak_heap_bytes: c.heap_bytes,
        },
        guest_heap_bytes,
    })
}

/// The census table of two runs.
pub fn census_table(stock: &CensusReport, ours: &CensusReport) -> String {
    let (s, o) = (stock.census, ours.census);
    let rows = [
        ("XORIN all aligned", s.xorin_aligned, o.xorin_aligned),
        (
            "XORIN length only unaligned",
            s.xorin_len_unaligned,
            o.xorin_len_unaligned,
        ),
        (
            "XORIN state pointer unaligned",
            s.xorin_state_unaligned,
            o.xorin_state_unaligned,
        ),
        (
            "XORIN input pointer unaligned",
            s.xorin_input_unaligned,
            o.xorin_input_unaligned,
        ),
        (
            "XORIN overlapping",
            s.xorin_overlapping,
            o.xorin_overlapping,
        ),
        (
            "bytes XORed in software",
            s.software_bytes,
            o.software_bytes,
        ),
        ("bytes staged on the stack", s.staged_bytes, o.staged_bytes),
        ("KECCAKF calls", s.keccakf, o.keccakf),
        (
            "keccak heap bytes",
            s.keccak_heap_bytes,
            o.keccak_heap_bytes,
        ),
        (
            "guest heap bytes (total)",
            stock.guest_heap_bytes,
            ours.guest_heap_bytes,
        ),
    ];
    let mut out = String::from("| keccak census | stock | ours |\n|---|---:|---:|\n");
    for (name, s, o) in rows {
        out += &format!("| {name} | {s} | {o} |\n");
    }
    out
}
