//! `host prove`, `pin`: proofs of a block, in one process or in parts, and the commitments
//! `host verify` ([`super::verify`]) checks them against.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use host::print;
use host::target::Target;
use prover::guest::{GuestSpec, Keccak, Program};
use prover::proof::{Limits, ProofKind};

use super::validate_valid;

#[derive(Args)]
pub struct ProveArgs {
    #[command(flatten)]
    pub target: Target,
    /// The guest's keccak.
    #[arg(long, value_enum, default_value_t = Keccak::Ours)]
    pub keccak: Keccak,
    /// log2 of a segment's maximum trace height (smaller: more, cheaper segments; at least
    /// 21, the height of the multipliers' range-tuple table).
    #[arg(long, default_value_t = 21)]
    pub log_stacked_height: usize,
    /// Also end a segment when OpenVM's estimate of its proving memory reaches this many
    /// MiB. Default: 4096 on the CPU prover, which fits a 24 GB machine (real memory runs up
    /// to ~3.5x the estimate); OpenVM's 15 GiB with `--features cuda`. Every part of a split
    /// proof must use the same value.
    #[arg(long)]
    pub segment_memory_mib: Option<usize>,
    /// Where to write the proof (default `<BLOCK>.proof`, or `<BLOCK>.part-A-B` with
    /// `--segments`, in the current directory).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Keep the app proof (one STARK per segment) instead of aggregating it into one STARK.
    #[arg(long)]
    pub app: bool,
    /// Prove only segments `A..B` (0-based, end excluded) into a part file, for
    /// `--join`: the run is replayed to segment A, then A..B are proved.
    #[arg(long, value_parser = parse_range, conflicts_with = "join")]
    pub segments: Option<std::ops::Range<usize>>,
    /// Join part files (`--segments`) that cover every segment once into one proof; the
    /// block options are not used.
    #[arg(long, num_args = 1..)]
    pub join: Vec<PathBuf>,
    /// Prove the standard guest (EIP-8025) on these `statelessInputBytes` instead of the block
    /// guest on a block: an invalid block, or bytes that do not decode, are proved too (the
    /// proof says `false`); the block options are not used.
    #[arg(long, conflicts_with_all = ["join", "segments"])]
    pub stateless_input: Option<PathBuf>,
    /// Also write what the proof cost as JSON: segments, each segment's and aggregation node's
    /// time, the total, peak memory, the proof's size, and (aggregated) the projection onto 1,
    /// 4 and 16 devices.
    #[arg(long, conflicts_with = "segments")]
    pub json: Option<PathBuf>,
}

#[derive(Args)]
pub struct PinArgs {
    /// Compare only; exit non-zero when the source builds other commitments.
    #[arg(long)]
    pub check: bool,
}

impl ProveArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        let kind = if self.app {
            ProofKind::App
        } else {
            ProofKind::Stark
        };
        let limits = Limits::for_proving(self.log_stacked_height)
            .with_segment_memory_mib(self.segment_memory_mib);
        let json = self.json.as_deref();
        if let Some(path) = &self.stateless_input {
            super::standard::prove(path, self.keccak, limits, kind, self.out, json)
        } else if !self.join.is_empty() {
            join_parts(&self.join, kind, self.out, json)
        } else if let Some(range) = self.segments {
            prove_part(&self.target, self.keccak, limits, range, self.out)
        } else {
            prove(&self.target, self.keccak, limits, kind, self.out, json)
        }
    }
}

impl PinArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        pin(self.check)
    }
}

fn prove(
    target: &Target,
    keccak: Keccak,
    limits: Limits,
    kind: ProofKind,
    out: Option<PathBuf>,
    json: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let native = validate_valid(target, "nothing to prove")?;
    let spec = GuestSpec::program(Program::Guest, keccak);
    let input = native.guest_input();
    let (file, report) = prover::proof::prove(spec, limits, &prover::vm::slices(&input), kind)?;
    let out = out.unwrap_or_else(|| PathBuf::from(format!("{}.proof", target.block)));
    prover::proof::write(&out, &file)?;
    print::print_proved(&target.block, &file, &out, &report);
    host::proving::write_summary(json, &target.block, &file, &out, &report)?;
    Ok(ExitCode::SUCCESS)
}

fn prove_part(
    target: &Target,
    keccak: Keccak,
    limits: Limits,
    range: std::ops::Range<usize>,
    out: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let native = validate_valid(target, "nothing to prove")?;
    let spec = GuestSpec::program(Program::Guest, keccak);
    let input = native.guest_input();
    let (part, report) = prover::proof::prove_part(
        spec,
        limits,
        &prover::vm::slices(&input),
        &target.block,
        range.clone(),
    )?;
    let out = out.unwrap_or_else(|| {
        PathBuf::from(format!(
            "{}.part-{}-{}",
            target.block, range.start, range.end
        ))
    });
    prover::proof::write_part(&out, &part)?;
    let size = std::fs::metadata(&out).map_or(0, |m| m.len());
    println!(
        "proved segments {}..{} of {} of block {}: {size} bytes -> {}",
        range.start,
        range.end,
        part.total,
        target.block,
        out.display()
    );
    print::print_prove_report(&report);
    Ok(ExitCode::SUCCESS)
}

fn join_parts(
    paths: &[PathBuf],
    kind: ProofKind,
    out: Option<PathBuf>,
    json: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let parts = paths
        .iter()
        .map(|path| prover::proof::read_part(path))
        .collect::<Result<Vec<_>, _>>()?;
    let label = parts.first().map(|p| p.label.clone()).unwrap_or_default();
    let (file, report) = prover::proof::join(parts, kind)?;
    let out = out.unwrap_or_else(|| PathBuf::from(format!("{label}.proof")));
    prover::proof::write(&out, &file)?;
    print::print_proved(&label, &file, &out, &report);
    host::proving::write_summary(json, &label, &file, &out, &report)?;
    Ok(ExitCode::SUCCESS)
}

/// `A..B`, as `--segments` takes it.
fn parse_range(text: &str) -> Result<std::ops::Range<usize>, String> {
    let (start, end) = text
        .split_once("..")
        .ok_or_else(|| format!("`{text}` is not a range A..B"))?;
    let parse = |n: &str| n.trim().parse::<usize>().map_err(|e| format!("`{n}`: {e}"));
    let range = parse(start)?..parse(end)?;
    if range.is_empty() {
        return Err(format!("`{text}` is empty"));
    }
    Ok(range)
}

fn pin(check: bool) -> anyhow::Result<ExitCode> {
    use prover::proof::pin;
    let mut status = ExitCode::SUCCESS;
    for (program, file) in pin::PINNED {
        let computed = pin::compute(program)?;
        if !check {
            let text = serde_json::to_string_pretty(&computed)? + "\n";
            std::fs::write(pin::pin_path(file), text)?;
            println!("wrote {file} (exe {})", computed.exe_commit);
            continue;
        }
        let pinned = pin::Pinned::builtin(program)?;
        let differences = pin::differences(&pinned.pin, &computed);
        if differences.is_empty() {
            println!(
                "{file}: the source builds the pinned commitments (exe {})",
                computed.exe_commit
            );
        } else {
            println!(
                "{file}: the source builds other {}: exe {} (pinned {})",
                differences.join(", "),
                computed.exe_commit,
                pinned.pin.exe_commit
            );
            status = ExitCode::from(1);
        }
    }
    Ok(status)
}
