//! `host run`, `compare`, `census`, `profile`: a block in the VM, metered and measured.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use host::measure::Baseline;
use host::print::{self, write_json};
use host::report::{run_in_vm_within, Mode, RunReport};
use host::target::Target;
use prover::guest::{Crypto, GuestSpec, Keccak, Program};
use prover::vm::Limits;

use super::{validate, validate_valid};

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub target: Target,
    /// How to run it.
    #[arg(long, value_enum, default_value_t = Mode::Metered)]
    pub mode: Mode,
    /// Shorthand for `--mode native`.
    #[arg(long)]
    pub native: bool,
    /// The guest's keccak (VM modes).
    #[arg(long, value_enum, default_value_t = Keccak::Ours)]
    pub keccak: Keccak,
    /// Where the guest's cryptography runs (VM modes).
    #[arg(long, value_enum, default_value_t = Crypto::Openvm)]
    pub crypto: Crypto,
    /// Also print a per-segment table (metered mode).
    #[arg(long)]
    pub segments: bool,
    /// Also print where the cells go: per AIR (chip), rows, width, main cells and share,
    /// summed over segments; and which limit ended each segment (metered mode).
    #[arg(long)]
    pub airs: bool,
    /// Write the report as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Run the standard guest (EIP-8025 I/O) on these input bytes instead of the block guest
    /// on a block: print the decoded 43-byte result, natively and in the VM (with `--airs`,
    /// where the cells go; with `--json`, the result, the native verdict and the metering).
    #[arg(long, conflicts_with_all = ["segments"])]
    pub stateless_input: Option<PathBuf>,
    /// Stop the guest after this many instructions (VM modes): a guest still running then is
    /// reported as over budget, and not measured.
    #[arg(long)]
    pub max_instructions: Option<u64>,
    /// End each segment at this proving-memory estimate, MiB (metered mode; default OpenVM's,
    /// 15 GiB): what the cells of other cuts are, against the memory a prover needs for them.
    #[arg(long, conflicts_with = "stateless_input")]
    pub segment_memory_mib: Option<usize>,
    /// Segments of at most 2^this many rows (metered mode; default 24, OpenVM's largest).
    #[arg(long, conflicts_with = "stateless_input")]
    pub log_stacked_height: Option<usize>,
}

#[derive(Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub target: Target,
    /// The stock build to compare with: `idiomatic` (OpenVM's keccak as a stock user calls
    /// it: encode into a buffer, hash once) or `xorin` (this project's sponge over OpenVM's
    /// stock `native_xorin`: only the absorb differs).
    #[arg(long, value_enum, default_value_t = Baseline::Idiomatic)]
    pub baseline: Baseline,
    /// Write `{"block", "baseline", "stock", "ours", "census"}` as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Args)]
pub struct CensusArgs {
    #[command(flatten)]
    pub target: Target,
    /// Only this crypto (default: on the chips, then in software).
    #[arg(long, value_enum)]
    pub crypto: Option<Crypto>,
    /// Write the census (a list, one per crypto) as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Args)]
pub struct ProfileArgs {
    #[command(flatten)]
    pub target: Target,
    /// Where to write the flame graph (SVG; not with `--pages`).
    #[arg(long, required_unless_present = "pages", conflicts_with = "pages")]
    pub out: Option<PathBuf>,
    /// One PC sample per this many instructions (1: every instruction, exact).
    #[arg(long, default_value_t = 1)]
    pub every: u64,
    /// How many functions to print.
    #[arg(long, default_value_t = 25)]
    pub top: usize,
    /// Write the profile (functions and folded stacks) as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Also print who calls these functions (comma-separated whole names, e.g.
    /// `memcpy,memcmp,memset`): each one's own instructions by its caller.
    #[arg(long, value_delimiter = ',', conflicts_with = "pages")]
    pub callers: Vec<String>,
    /// Instead of instructions, count the memory pages each segment touches (by region,
    /// and by the functions that touch them), which the prover pays for per segment.
    #[arg(long)]
    pub pages: bool,
    /// Profile the standard guest (EIP-8025 I/O) on these input bytes instead of the block
    /// guest on a block.
    #[arg(long)]
    pub stateless_input: Option<PathBuf>,
}

impl RunArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        let mode = if self.native { Mode::Native } else { self.mode };
        if let Some(path) = &self.stateless_input {
            let how = super::standard::How {
                mode,
                keccak: self.keccak,
                crypto: self.crypto,
                airs: self.airs,
                budget: self.max_instructions,
                json: self.json.clone(),
            };
            return super::standard::run(path, how);
        }
        let spec = GuestSpec::block(self.keccak, self.crypto);
        let limits = (self.log_stacked_height)
            .map_or_else(Limits::metering, Limits::height)
            .with_segment_memory_mib(self.segment_memory_mib);
        let tables = Tables {
            segments: self.segments,
            airs: self.airs,
        };
        run(
            &self.target,
            (mode, spec, self.max_instructions),
            limits,
            tables,
            self.json.as_deref(),
        )
    }
}

impl CompareArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        compare(&self.target, self.baseline, self.json.as_deref())
    }
}

impl CensusArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        census(&self.target, self.crypto, self.json.as_deref())
    }
}

impl ProfileArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        let run = profiled_run(&self.target, self.stateless_input.as_deref())?;
        // `--out` is required without `--pages` and refused with it.
        match self.out {
            Some(out) => profile(
                &run,
                &out,
                self.every,
                self.top,
                &self.callers,
                self.json.as_deref(),
            ),
            None => page_census(&run, self.top, self.json.as_deref()),
        }
    }
}

/// What `host run` prints besides the verdict and the totals.
struct Tables {
    segments: bool,
    airs: bool,
}

fn run(
    target: &Target,
    (mode, spec, budget): (Mode, GuestSpec, Option<u64>),
    limits: Limits,
    tables: Tables,
    json: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let (native, code) = validate(target)?;
    let report = if mode == Mode::Native || native.verdict.is_err() {
        RunReport::native(&native)
    } else {
        let report = run_in_vm_within(&native, mode, spec, budget, limits)?;
        print::print_vm_run(&report);
        print::print_metered(&report, tables.segments);
        if tables.airs {
            print::print_airs(&report);
        }
        report
    };
    if let Some(path) = json {
        write_json(path, &report)?;
    }
    Ok(code)
}

fn compare(target: &Target, baseline: Baseline, json: Option<&Path>) -> anyhow::Result<ExitCode> {
    let native = validate_valid(target, "nothing to compare")?;
    let comparison = host::measure::compare(&native, baseline)?;
    print::print_comparison(&comparison);
    if let Some(path) = json {
        write_json(path, &comparison)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn census(
    target: &Target,
    crypto: Option<Crypto>,
    json: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let native = validate_valid(target, "no census")?;
    let choices = crypto.map_or(vec![Crypto::Openvm, Crypto::Software], |c| vec![c]);
    let mut all = Vec::new();
    for crypto in choices {
        let census = host::measure::run_precompile_census(&native, crypto)?;
        print::print_precompile_census(&census);
        all.push(census);
    }
    if let Some(path) = json {
        write_json(path, &all)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What `host profile` replays: a guest, its input items and its metered run.
struct ProfiledRun {
    name: String,
    spec: GuestSpec,
    input: Vec<Vec<u8>>,
    metering: prover::vm::Metering,
}

/// The block guest on a valid block, or the standard guest on `stateless_input`'s bytes
/// (whatever its result), metered first: the profile attributes exactly that many instructions.
fn profiled_run(target: &Target, stateless_input: Option<&Path>) -> anyhow::Result<ProfiledRun> {
    if let Some(path) = stateless_input {
        let bytes = super::standard::read_input(path)?;
        let spec = GuestSpec::program(Program::Standard, Keccak::Ours);
        let run = prover::standard::run_standard(&bytes, Some(spec))?;
        let (_, metering) = run.vm.expect("a VM run was asked for");
        return Ok(ProfiledRun {
            name: path.display().to_string(),
            spec,
            input: vec![bytes],
            metering,
        });
    }
    let native = validate_valid(target, "nothing to profile")?;
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let metering = prover::vm::block::run_block(&native, spec, true, &[])?
        .metering
        .expect("a metered run has its metering");
    Ok(ProfiledRun {
        name: native.data.id.clone(),
        spec,
        input: native.guest_input(),
        metering,
    })
}

fn page_census(run: &ProfiledRun, top: usize, json: Option<&Path>) -> anyhow::Result<ExitCode> {
    let segments: Vec<u64> = run
        .metering
        .segments
        .iter()
        .map(|s| s.instructions)
        .collect();
    eprintln!("counting the pages of {} segments ...", segments.len());
    let census = host::measure::pages::census(&run.input, run.spec, &segments)?;
    print::print_pages(&census, top);
    if let Some(path) = json {
        write_json(path, &census)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn profile(
    run: &ProfiledRun,
    out: &Path,
    every: u64,
    top: usize,
    callers: &[String],
    json: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let instructions = run.metering.instructions;
    eprintln!("profiling {instructions} instructions ...");
    let profile =
        host::measure::profile::profile(&run.name, &run.input, run.spec, instructions, every)?;
    std::fs::write(out, print::flamegraph_svg(&profile))?;
    print::print_profile(&profile, top);
    for leaf in callers {
        print::print_callers(&profile, leaf, top);
    }
    eprintln!("wrote {}", out.display());
    if let Some(path) = json {
        write_json(path, &profile)?;
    }
    Ok(ExitCode::SUCCESS)
}
