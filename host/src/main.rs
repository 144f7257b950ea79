//! `host`: the command line of the stateless block verifier. One function per subcommand, each
//! the pipeline it runs: resolve the block ([`Target::resolve`]), validate it natively
//! ([`native::validate`]), run the guest in the VM or prove it, and print ([`host::print`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use alloy_primitives::B256;
use clap::{Parser, Subcommand};
use host::blocks;
use host::fetch::FetchOptions;
use host::guest::{Crypto, GuestSpec, Keccak, Program};
use host::measure::Baseline;
use host::native::{self, NativeRun};
use host::print::{self, write_json};
use host::proof::{Limits, ProofKind};
use host::report::{run_in_vm, Mode, RunReport};
use host::target::{Resolved, Target};

#[derive(Parser)]
#[command(
    name = "host",
    version,
    about = "Stateless Ethereum block verifier (OpenVM guest + host)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a block: natively, or as the guest in the OpenVM VM (metered by default).
    Run {
        #[command(flatten)]
        target: Target,
        /// How to run it.
        #[arg(long, value_enum, default_value_t = Mode::Metered)]
        mode: Mode,
        /// Shorthand for `--mode native`.
        #[arg(long)]
        native: bool,
        /// The guest's keccak (VM modes).
        #[arg(long, value_enum, default_value_t = Keccak::Ours)]
        keccak: Keccak,
        /// Where the guest's cryptography runs (VM modes).
        #[arg(long, value_enum, default_value_t = Crypto::Openvm)]
        crypto: Crypto,
        /// Also print a per-segment table (metered mode).
        #[arg(long)]
        segments: bool,
        /// Also print where the cells go: per AIR (chip), rows, width, main cells and share,
        /// summed over segments; and which limit ended each segment (metered mode).
        #[arg(long)]
        airs: bool,
        /// Write the report as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Run a block in the VM with OpenVM's stock keccak (a baseline) and with ours, and compare
    /// the metered statistics and what keccak costs in each.
    Compare {
        #[command(flatten)]
        target: Target,
        /// The stock build to compare with: `idiomatic` (OpenVM's keccak as a stock user calls
        /// it: encode into a buffer, hash once) or `xorin` (this project's sponge over OpenVM's
        /// stock `native_xorin`: only the absorb differs).
        #[arg(long, value_enum, default_value_t = Baseline::Idiomatic)]
        baseline: Baseline,
        /// Write `{"block", "baseline", "stock", "ours", "census"}` as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Precompile census: per cryptographic operation (each precompile's cryptography and
    /// sender recovery), calls and the guest instructions they cost; each called operation
    /// costs one more metered run.
    Census {
        #[command(flatten)]
        target: Target,
        /// Only this crypto (default: on the chips, then in software).
        #[arg(long, value_enum)]
        crypto: Option<Crypto>,
        /// Write the census (a list, one per crypto) as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Profile the guest on a block: its instructions by function (from the guest ELF's
    /// symbols and the PC of every instruction), the top functions printed and a flame graph
    /// written as SVG.
    Profile {
        #[command(flatten)]
        target: Target,
        /// Where to write the flame graph (SVG; not with `--pages`).
        #[arg(long, required_unless_present = "pages", conflicts_with = "pages")]
        out: Option<PathBuf>,
        /// One PC sample per this many instructions (1: every instruction, exact).
        #[arg(long, default_value_t = 1)]
        every: u64,
        /// How many functions to print.
        #[arg(long, default_value_t = 25)]
        top: usize,
        /// Write the profile (functions and folded stacks) as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Instead of instructions, count the memory pages each segment touches (by region,
        /// and by the functions that touch them), which the prover pays for per segment.
        #[arg(long)]
        pages: bool,
    },
    /// Prove a block: app proof (STARK) of the guest validating it, on CPU. Real blocks have
    /// tens to hundreds of segments: minutes each here.
    Prove {
        #[command(flatten)]
        target: Target,
        /// The guest's keccak.
        #[arg(long, value_enum, default_value_t = Keccak::Ours)]
        keccak: Keccak,
        /// log2 of a segment's maximum trace height (smaller: more, cheaper segments; at least
        /// 21, the height of the multipliers' range-tuple table).
        #[arg(long, default_value_t = 21)]
        log_stacked_height: usize,
        /// Also end a segment when OpenVM's estimate of its proving memory reaches this many
        /// MiB. Default: 4096 on the CPU prover, which fits a 24 GB machine (real memory runs up
        /// to ~3.5x the estimate); OpenVM's 15 GiB with `--features cuda`. Every part of a split
        /// proof must use the same value.
        #[arg(long)]
        segment_memory_mib: Option<usize>,
        /// Where to write the proof (default `<BLOCK>.proof`, or `<BLOCK>.part-A-B` with
        /// `--segments`, in the current directory).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Keep the app proof (one STARK per segment) instead of aggregating it into one STARK.
        #[arg(long)]
        app: bool,
        /// Prove only segments `A..B` (0-based, end excluded) into a part file, for
        /// `--join`: the run is replayed to segment A, then A..B are proved.
        #[arg(long, value_parser = parse_range, conflicts_with = "join")]
        segments: Option<std::ops::Range<usize>>,
        /// Join part files (`--segments`) that cover every segment once into one proof; the
        /// block options are not used.
        #[arg(long, num_args = 1..)]
        join: Vec<PathBuf>,
    },
    /// Verify a proof file written by `host prove` and print the public values it proves. A
    /// proof of the block guest must have been made under the expected chain config (mainnet
    /// unless `--chain`).
    Verify {
        /// The proof file.
        file: PathBuf,
        /// The chain the proof must have been made under: a known chain's name (mainnet,
        /// sepolia, hoodi, devnet) or a genesis-style chain config (JSON). Default: mainnet.
        #[arg(long)]
        chain: Option<String>,
        /// Rebuild the guest and regenerate the aggregation keys from source and check against
        /// them, instead of the commitments pinned in the repository (minutes, not seconds).
        #[arg(long)]
        rebuild: bool,
        /// Also accept a proof of another guest than the block verifier with this project's
        /// keccak (a probe, a stock-keccak build), checked against its rebuilt program.
        #[arg(long)]
        other_program: bool,
    },
    /// Check the commitments pinned in `pins/block-guest.json` against the guest and keys built
    /// from source (`--check`), or rewrite the file with them.
    Pin {
        /// Compare only; exit non-zero when the source builds other commitments.
        #[arg(long)]
        check: bool,
    },
    /// Check a block's witness against its pre-state root and report what it reaches.
    Witness {
        #[command(flatten)]
        target: Target,
        /// Pre-state root to use when the witness has no parent header.
        #[arg(long)]
        pre_state_root: Option<B256>,
    },
    /// Fetch a block and its execution witness from an archive node's JSON-RPC, validate it
    /// natively, and save it. The witness: `debug_executionWitness`, or from standard methods
    /// only (`eth_getProof`, `eth_getCode`, `eth_getStorageAt`, `eth_getBlockByNumber`).
    Fetch {
        /// Block number.
        #[arg(long)]
        block: u64,
        /// The node's JSON-RPC URL (http or https).
        #[arg(long)]
        rpc_url: String,
        /// Where to write the files. Default: `blocks/cache/`.
        #[arg(long)]
        blocks_dir: Option<PathBuf>,
        /// Per-request timeout, seconds.
        #[arg(long, default_value_t = 120)]
        timeout: u64,
        /// Retries after a failed connection, a timeout or an HTTP 429 / 5xx.
        #[arg(long, default_value_t = 3)]
        retries: u32,
        /// Genesis-style chain config (JSON) to validate under. Default: Ethereum mainnet.
        #[arg(long)]
        chain: Option<PathBuf>,
        /// Where the witness comes from: `debug_executionWitness` (debug), standard methods
        /// (proofs), or the first and, where the node lacks it, the second (auto).
        #[arg(long, value_enum, default_value_t = host::fetch::WitnessSource::Auto)]
        source: host::fetch::WitnessSource,
        /// Requests in flight at once (proofs source).
        #[arg(long, default_value_t = 16)]
        concurrency: usize,
    },
    /// Run Ethereum Foundation blockchain tests (files or directories of fixture JSON, any
    /// depth) statelessly: one line per failure, then `N passed, N failed, N skipped`.
    EfTests {
        /// Fixture files or directories.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Write per-case results as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
        /// Run a deterministic sample of cases through the guest in the VM instead, checking
        /// each block's public values (or its rejection) against the native run.
        #[arg(long)]
        vm: bool,
        /// How many cases the VM sample takes.
        #[arg(long, default_value_t = 24)]
        sample: usize,
    },
    /// Generate the project's devnet blocks (deterministic) with their witnesses, chain config
    /// and manifest.
    Gen {
        /// Output directory. Default: the project's `blocks/`.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// Resolves the target, fetching it if asked (and saying so).
fn resolve(target: &Target) -> anyhow::Result<Resolved> {
    let resolved = target.resolve(FetchOptions::default())?;
    if let Some(fetched) = &resolved.fetched {
        print::print_fetched(&resolved.data, fetched);
    }
    Ok(resolved)
}

/// Resolves the target, validates it natively and prints the verdict; returns the run and its
/// exit status.
fn validate(target: &Target) -> anyhow::Result<(NativeRun, ExitCode)> {
    let run = native::validate(resolve(target)?);
    let code = print::print_run(&run);
    Ok((run, code))
}

/// [`validate`], for commands that need a valid block (`what` they would do with it).
fn validate_valid(target: &Target, what: &str) -> anyhow::Result<NativeRun> {
    let (run, code) = validate(target)?;
    if code != ExitCode::SUCCESS {
        anyhow::bail!("block {} is invalid natively; {what}", target.block);
    }
    Ok(run)
}

/// What `host run` prints besides the verdict and the totals.
struct Tables {
    segments: bool,
    airs: bool,
}

fn run(
    target: &Target,
    mode: Mode,
    spec: GuestSpec,
    tables: Tables,
    json: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let (native, code) = validate(target)?;
    let report = if mode == Mode::Native || native.verdict.is_err() {
        RunReport::native(&native)
    } else {
        let report = run_in_vm(&native, mode, spec)?;
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

fn page_census(target: &Target, top: usize, json: Option<&Path>) -> anyhow::Result<ExitCode> {
    let native = validate_valid(target, "nothing to profile")?;
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let metered = run_in_vm(&native, Mode::Metered, spec)?;
    let segments: Vec<u64> = metered
        .segment_stats
        .iter()
        .flatten()
        .map(|s| s.instructions)
        .collect();
    eprintln!("counting the pages of {} segments ...", segments.len());
    let census = host::measure::pages::census(&native, spec, &segments)?;
    print::print_pages(&census, top);
    if let Some(path) = json {
        write_json(path, &census)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn profile(
    target: &Target,
    out: &Path,
    every: u64,
    top: usize,
    json: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let native = validate_valid(target, "nothing to profile")?;
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    // The metered count first: the profile attributes exactly that many instructions.
    let metered = run_in_vm(&native, Mode::Metered, spec)?;
    let instructions = metered.instructions.unwrap_or_default();
    eprintln!("profiling {instructions} instructions ...");
    let profile = host::measure::profile::profile(&native, spec, instructions, every)?;
    std::fs::write(out, print::flamegraph_svg(&profile))?;
    print::print_profile(&profile, top);
    eprintln!("wrote {}", out.display());
    if let Some(path) = json {
        write_json(path, &profile)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn prove(
    target: &Target,
    keccak: Keccak,
    limits: Limits,
    kind: ProofKind,
    out: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let native = validate_valid(target, "nothing to prove")?;
    let spec = GuestSpec::program(Program::Guest, keccak);
    let input = native.guest_input();
    let (file, report) = host::proof::prove(spec, limits, &host::vm::slices(&input), kind)?;
    let out = out.unwrap_or_else(|| PathBuf::from(format!("{}.proof", target.block)));
    host::proof::write(&out, &file)?;
    print::print_proved(&target.block, &file, &out, &report);
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
    let (part, report) = host::proof::prove_part(
        spec,
        limits,
        &host::vm::slices(&input),
        &target.block,
        range.clone(),
    )?;
    let out = out.unwrap_or_else(|| {
        PathBuf::from(format!(
            "{}.part-{}-{}",
            target.block, range.start, range.end
        ))
    });
    host::proof::write_part(&out, &part)?;
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
) -> anyhow::Result<ExitCode> {
    let parts = paths
        .iter()
        .map(|path| host::proof::read_part(path))
        .collect::<Result<Vec<_>, _>>()?;
    let label = parts.first().map(|p| p.label.clone()).unwrap_or_default();
    let (file, report) = host::proof::join(parts, kind)?;
    let out = out.unwrap_or_else(|| PathBuf::from(format!("{label}.proof")));
    host::proof::write(&out, &file)?;
    print::print_proved(&label, &file, &out, &report);
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

/// `host verify`'s exit statuses: 0 a valid proof of a block under the expected chain, 1 a
/// proof that does not verify, 2 a sound proof under another chain's config, 3 a proof of
/// another program (without `--other-program`).
fn verify(
    path: &Path,
    chain: Option<&str>,
    rebuild: bool,
    other_program: bool,
) -> anyhow::Result<ExitCode> {
    use host::proof::BlockProofError;
    let file = host::proof::read(path)?;
    let block_guest =
        file.subject.bin == Program::Guest.bin() && file.subject.keccak == Keccak::Ours;
    if !block_guest {
        let what = if file.subject.bin == Program::Guest.bin() {
            format!(
                "the block verifier built with the {} keccak (a comparison baseline)",
                file.subject.keccak.name()
            )
        } else {
            format!("guest `{}`, not the block verifier", file.subject.bin)
        };
        if !other_program {
            println!(
                "proof {} is of {what}: not a block proof (--other-program checks it)",
                path.display()
            );
            return Ok(ExitCode::from(3));
        }
        // Its public values are its own.
        let verdict = host::proof::verify(&file).map_err(|e| e.to_string());
        return Ok(print::print_verified(path, &file, &verdict, |public| {
            println!("  program          {what}");
            println!(
                "  public values    {}",
                alloy_primitives::hex::encode(public)
            );
        }));
    }
    let (chain, chain_name) = match chain {
        Some(value) => host::chain::named_or_file(value)?,
        None => (program::ChainConfig::mainnet(), "mainnet".to_owned()),
    };
    let started = std::time::Instant::now();
    let verdict = host::proof::verify_block(&file, &chain, &chain_name, rebuild);
    let anchor = if rebuild {
        "rebuilt from source"
    } else {
        "pinned commitments"
    };
    eprintln!(
        "checked against the {anchor} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if let Err(e @ BlockProofError::ChainDigest { .. }) = &verdict {
        println!("proof {} OTHER CHAIN: {e}", path.display());
        return Ok(ExitCode::from(2));
    }
    let verdict = verdict.map_err(|e| e.to_string());
    Ok(print::print_verified(path, &file, &verdict, |values| {
        print::print_public_values(values, Some(&chain_name));
    }))
}

fn pin(check: bool) -> anyhow::Result<ExitCode> {
    use host::proof::pin;
    let computed = pin::compute()?;
    let path = pin::pin_path();
    if check {
        let pinned = pin::Pinned::builtin()?;
        let differences = pin::differences(&pinned.pin, &computed);
        if differences.is_empty() {
            println!(
                "{}: the source builds the pinned commitments (exe {})",
                pin::PIN_PATH,
                computed.exe_commit
            );
            return Ok(ExitCode::SUCCESS);
        }
        println!(
            "{}: the source builds other {}: exe {} (pinned {})",
            pin::PIN_PATH,
            differences.join(", "),
            computed.exe_commit,
            pinned.pin.exe_commit
        );
        return Ok(ExitCode::from(1));
    }
    let text = serde_json::to_string_pretty(&computed)? + "\n";
    std::fs::write(&path, text)?;
    println!("wrote {} (exe {})", path.display(), computed.exe_commit);
    Ok(ExitCode::SUCCESS)
}

fn witness(target: &Target, pre_state_root: Option<B256>) -> anyhow::Result<ExitCode> {
    let resolved = resolve(target)?;
    let report = host::inspect::inspect(&resolved.data, pre_state_root)?;
    print::print_witness(&report);
    Ok(ExitCode::SUCCESS)
}

fn fetch(
    block: u64,
    rpc_url: &str,
    dir: Option<PathBuf>,
    options: FetchOptions,
    chain_file: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let dir = dir.unwrap_or_else(blocks::cache_dir);
    let chain = host::chain::for_block(&dir, &block.to_string(), chain_file)?;
    eprintln!("fetching block {block} from {rpc_url}");
    let fetched = host::fetch::fetch(rpc_url, block, &dir, &chain, options)?;
    print::print_fetched(&fetched.data, &fetched.report);
    Ok(ExitCode::SUCCESS)
}

fn ef_tests(
    paths: &[PathBuf],
    json: Option<&Path>,
    threads: Option<usize>,
) -> anyhow::Result<ExitCode> {
    use std::io::IsTerminal;
    let files = host::ef_tests::discover(paths)?;
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    eprintln!("{} fixture sources, {threads} threads", files.len());
    let terminal = std::io::stderr().is_terminal();
    let progress = move |done: usize, seen: usize| {
        if terminal {
            eprint!("\r{done}/{seen} fixtures");
        }
    };
    let summary = host::ef_tests::run_files(&files, threads, &progress);
    if terminal {
        eprintln!();
    }
    print::print_ef_failures(&summary);
    if let Some(path) = json {
        write_json(path, &summary)?;
    }
    Ok(exit_status(summary.failed == 0))
}

fn ef_tests_vm(paths: &[PathBuf], json: Option<&Path>, k: usize) -> anyhow::Result<ExitCode> {
    let files = host::ef_tests::discover(paths)?;
    let cases = host::ef_tests::vm::sample(&files, k);
    eprintln!("{} cases sampled from {} files", cases.len(), files.len());
    let sample = host::ef_tests::vm::run_sample(&cases)?;
    print::print_ef_vm_sample(&sample);
    if let Some(path) = json {
        write_json(path, &sample)?;
    }
    Ok(exit_status(sample.failures.is_empty()))
}

fn gen(out: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let out = out.unwrap_or_else(blocks::default_root);
    for line in host::gen::write_all(&out)? {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

fn exit_status(passed: bool) -> ExitCode {
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Run {
            target,
            mode,
            native,
            keccak,
            crypto,
            segments,
            airs,
            json,
        } => {
            let mode = if native { Mode::Native } else { mode };
            let spec = GuestSpec::block(keccak, crypto);
            let tables = Tables { segments, airs };
            run(&target, mode, spec, tables, json.as_deref())
        }
        Command::Compare {
            target,
            baseline,
            json,
        } => compare(&target, baseline, json.as_deref()),
        Command::Census {
            target,
            crypto,
            json,
        } => census(&target, crypto, json.as_deref()),
        // `--out` is required without `--pages` and refused with it.
        Command::Profile {
            target,
            out,
            every,
            top,
            json,
            ..
        } => match out {
            Some(out) => profile(&target, &out, every, top, json.as_deref()),
            None => page_census(&target, top, json.as_deref()),
        },
        Command::Prove {
            target,
            keccak,
            log_stacked_height,
            segment_memory_mib,
            out,
            app,
            segments,
            join,
        } => {
            let kind = if app {
                ProofKind::App
            } else {
                ProofKind::Stark
            };
            let mut limits = Limits::for_proving(log_stacked_height);
            if let Some(mib) = segment_memory_mib {
                limits.segment_memory = mib << 20;
            }
            if !join.is_empty() {
                join_parts(&join, kind, out)
            } else if let Some(range) = segments {
                prove_part(&target, keccak, limits, range, out)
            } else {
                prove(&target, keccak, limits, kind, out)
            }
        }
        Command::Verify {
            file,
            chain,
            rebuild,
            other_program,
        } => verify(&file, chain.as_deref(), rebuild, other_program),
        Command::Pin { check } => pin(check),
        Command::Witness {
            target,
            pre_state_root,
        } => witness(&target, pre_state_root),
        Command::Fetch {
            block,
            rpc_url,
            blocks_dir,
            timeout,
            retries,
            chain,
            source,
            concurrency,
        } => {
            let options = FetchOptions {
                timeout: Duration::from_secs(timeout),
                retries,
                source,
                concurrency,
                ..FetchOptions::default()
            };
            fetch(block, &rpc_url, blocks_dir, options, chain.as_deref())
        }
        Command::EfTests {
            paths,
            json,
            threads: _,
            vm: true,
            sample,
        } => ef_tests_vm(&paths, json.as_deref(), sample),
        Command::EfTests {
            paths,
            json,
            threads,
            vm: false,
            ..
        } => ef_tests(&paths, json.as_deref(), threads),
        Command::Gen { out } => gen(out),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}
