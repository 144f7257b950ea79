//! `host`: the command line of the stateless block verifier.

use std::path::PathBuf;
use std::process::ExitCode;

use alloy_primitives::B256;
use clap::{Parser, Subcommand};
use host::blocks::{self, DEFAULT_BLOCKS_DIR};
use host::inspect::{inspect, RootSource, WitnessReport};
use host::report::{census_table, run_census, run_in_vm, Comparison, Mode, RunReport};
use host::run::{run_native, NativeRun};
use host::vm::Keccak;

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
        /// Block number or fixture name (reads `<BLOCK>.block.rlp` and `<BLOCK>.witness.json`).
        #[arg(long)]
        block: String,
        /// Directory holding the block files.
        #[arg(long, default_value = DEFAULT_BLOCKS_DIR)]
        blocks_dir: PathBuf,
        /// How to run it.
        #[arg(long, value_enum, default_value_t = Mode::Metered)]
        mode: Mode,
        /// Shorthand for `--mode native`.
        #[arg(long)]
        native: bool,
        /// The guest's keccak (VM modes).
        #[arg(long, value_enum, default_value_t = Keccak::Ours)]
        keccak: Keccak,
        /// Also print a per-segment table (metered mode).
        #[arg(long)]
        segments: bool,
        /// Write the report as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Genesis-style chain config (JSON). Default: `<BLOCK>.chain.json` beside the block
        /// files if present, else Ethereum mainnet.
        #[arg(long)]
        chain: Option<PathBuf>,
    },
    /// Run a block in the VM with OpenVM's stock keccak and with ours, and compare the metered
    /// statistics.
    Compare {
        /// Block number or fixture name.
        #[arg(long)]
        block: String,
        /// Directory holding the block files.
        #[arg(long, default_value = DEFAULT_BLOCKS_DIR)]
        blocks_dir: PathBuf,
        /// Write `{"block", "stock", "ours"}` as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Genesis-style chain config (JSON).
        #[arg(long)]
        chain: Option<PathBuf>,
    },
    /// Prove a block: app proof (STARK) of the guest validating it, on CPU. Real blocks have
    /// tens to hundreds of segments: minutes each here.
    Prove {
        /// Block number or fixture name.
        #[arg(long)]
        block: String,
        /// Directory holding the block files.
        #[arg(long, default_value = DEFAULT_BLOCKS_DIR)]
        blocks_dir: PathBuf,
        /// The guest's keccak.
        #[arg(long, value_enum, default_value_t = Keccak::Ours)]
        keccak: Keccak,
        /// log2 of a segment's maximum trace height (smaller: more, cheaper segments).
        #[arg(long, default_value_t = 20)]
        log_stacked_height: usize,
        /// Where to write the proof (default `<BLOCK>.proof` in the current directory).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Genesis-style chain config (JSON).
        #[arg(long)]
        chain: Option<PathBuf>,
    },
    /// Verify a proof file written by `host prove` and print the public values it proves.
    Verify {
        /// The proof file.
        file: PathBuf,
    },
    /// Check a block's witness against its pre-state root and report what it reaches.
    Witness {
        /// Block number or fixture name.
        #[arg(long)]
        block: String,
        /// Directory holding the block files.
        #[arg(long, default_value = DEFAULT_BLOCKS_DIR)]
        blocks_dir: PathBuf,
        /// Pre-state root to use when the witness has no parent header.
        #[arg(long)]
        pre_state_root: Option<B256>,
    },
}

fn print_run(run: &NativeRun) -> ExitCode {
    let fork = run.fork().unwrap_or_else(|| "?".into());
    match &run.verdict {
        Ok(out) => {
            println!("block {} VALID natively ({fork})", run.data.id);
            println!("  block hash       {}", out.block_hash);
            println!("  parent hash      {}", out.parent_hash);
            println!("  pre-state root   {}", out.pre_state_root);
            println!("  post-state root  {}", out.post_state_root);
            println!("  transactions     {}", out.tx_count);
            println!("  gas used         {}", out.gas_used);
            println!(
                "  time             {:.1} ms",
                run.elapsed.as_secs_f64() * 1e3
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("block {} INVALID ({fork}): {e}", run.data.id);
            ExitCode::from(1)
        }
    }
}

fn print_witness(r: &WitnessReport) {
    let source = match r.pre_state_root.1 {
        RootSource::ParentHeader => "parent header",
        RootSource::Given => "given",
    };
    println!("block {} ({})", r.block, r.block_hash);
    println!(
        "witness: {} nodes ({} distinct, {} bytes), {} codes, {} headers",
        r.nodes, r.distinct_nodes, r.node_bytes, r.codes, r.headers
    );
    println!("pre-state root {} ({source}): present", r.pre_state_root.0);
    println!(
        "reachable: {} accounts, {} storage tries, {} slots, {} nodes ({} unresolved refs)",
        r.accounts, r.storage_tries, r.slots, r.reached_nodes, r.unresolved
    );
    println!(
        "time: hashing {:.1} ms, walk {:.1} ms",
        r.hash_time.as_secs_f64() * 1e3,
        r.walk_time.as_secs_f64() * 1e3
    );
}

fn print_metered(report: &RunReport, segments: bool) {
    let (Some(insns), Some(cells), Some(memory), Some(segs)) = (
        report.instructions,
        report.main_cells,
        report.memory_bytes,
        report.segments,
    ) else {
        println!("  wall time        {:.2} s", report.wall_s);
        return;
    };
    println!("  instructions     {insns}");
    println!("  main cells       {cells}");
    println!("  memory bytes     {memory}");
    println!("  segments         {segs}");
    println!(
        "  wall time        {:.2} s ({:.1} M instructions/s)",
        report.wall_s,
        report.throughput.unwrap_or_default() / 1e6
    );
    if let (true, Some(stats)) = (segments, &report.segment_stats) {
        println!("  | segment | instructions | main cells | memory bytes |");
        for (k, s) in stats.iter().enumerate() {
            println!(
                "  | {k} | {} | {} | {} |",
                s.instructions, s.main_cells, s.memory_bytes
            );
        }
    }
}

fn write_json(path: &std::path::Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    std::fs::write(path, serde_json::to_vec_pretty(value)?)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run(
    block: &str,
    dir: &std::path::Path,
    mode: Mode,
    keccak: Keccak,
    segments: bool,
    json: Option<&std::path::Path>,
    chain: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    let native = run_native(dir, block, chain)?;
    let code = print_run(&native);
    let report = match mode {
        Mode::Native => RunReport::native(&native),
        _ if native.verdict.is_err() => RunReport::native(&native),
        _ => {
            let report = run_in_vm(&native, mode, keccak)?;
            println!("block {} VALID in the VM ({mode:?}, keccak {}): public values match the native run", block, keccak.name());
            print_metered(&report, segments);
            report
        }
    };
    if let Some(path) = json {
        write_json(path, &report)?;
    }
    Ok(code)
}

fn compare(
    block: &str,
    dir: &std::path::Path,
    json: Option<&std::path::Path>,
    chain: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    let native = run_native(dir, block, chain)?;
    if print_run(&native) != ExitCode::SUCCESS {
        anyhow::bail!("block {block} is invalid natively; nothing to compare");
    }
    let stock = run_in_vm(&native, Mode::Metered, Keccak::Stock)?;
    let ours = run_in_vm(&native, Mode::Metered, Keccak::Ours)?;
    let census = (
        run_census(&native, Keccak::Stock)?,
        run_census(&native, Keccak::Ours)?,
    );
    let comparison = Comparison {
        block: block.to_owned(),
        stock,
        ours,
    };
    println!("\nblock {block}: OpenVM stock keccak versus ours (metered)\n");
    print!("{}", comparison.table());
    println!();
    print!("{}", census_table(&census.0, &census.1));
    if let Some(path) = json {
        let mut value = serde_json::to_value(&comparison)?;
        value["census"] = serde_json::json!({ "stock": census.0, "ours": census.1 });
        write_json(path, &value)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn prove(
    block: &str,
    dir: &std::path::Path,
    keccak: Keccak,
    log_stacked_height: usize,
    out: Option<PathBuf>,
    chain: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    let native = run_native(dir, block, chain)?;
    if print_run(&native) != ExitCode::SUCCESS {
        anyhow::bail!("block {block} is invalid natively; nothing to prove");
    }
    let input = host::report::guest_input(&native);
    let (file, elapsed) = host::proof::prove(
        "guest",
        keccak,
        host::vm::PUBLIC_VALUES,
        log_stacked_height,
        &input,
    )?;
    let out = out.unwrap_or_else(|| PathBuf::from(format!("{block}.proof")));
    host::proof::write(&out, &file)?;
    let size = std::fs::metadata(&out)?.len();
    println!(
        "proved block {block} (keccak {}): {} segments, {size} bytes, {:.1} s -> {}",
        keccak.name(),
        file.proof.per_segment.len(),
        elapsed.as_secs_f64(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn verify(path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let file = host::proof::read(path)?;
    match host::proof::verify(&file) {
        Ok(public) => {
            println!(
                "proof {} VALID ({} {}, {} segments)",
                path.display(),
                file.bin,
                file.keccak.name(),
                file.proof.per_segment.len()
            );
            match host::vm::split_public_values(&public) {
                Some([block_hash, parent_hash, state_root]) if file.bin == "guest" => {
                    println!("  block hash       {block_hash}");
                    println!("  parent hash      {parent_hash}");
                    println!("  post-state root  {state_root}");
                }
                _ => println!(
                    "  public values    {}",
                    alloy_primitives::hex::encode(&public)
                ),
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            println!("proof {} INVALID: {e}", path.display());
            Ok(ExitCode::from(1))
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run {
            block,
            blocks_dir,
            mode,
            native,
            keccak,
            segments,
            json,
            chain,
        } => {
            let mode = if native { Mode::Native } else { mode };
            run(
                &block,
                &blocks_dir,
                mode,
                keccak,
                segments,
                json.as_deref(),
                chain.as_deref(),
            )
        }
        Command::Compare {
            block,
            blocks_dir,
            json,
            chain,
        } => compare(&block, &blocks_dir, json.as_deref(), chain.as_deref()),
        Command::Prove {
            block,
            blocks_dir,
            keccak,
            log_stacked_height,
            out,
            chain,
        } => prove(
            &block,
            &blocks_dir,
            keccak,
            log_stacked_height,
            out,
            chain.as_deref(),
        ),
        Command::Verify { file } => verify(&file),
        Command::Witness {
            block,
            blocks_dir,
            pre_state_root,
        } => blocks::load(&blocks_dir, &block)
            .map_err(anyhow::Error::from)
            .and_then(|data| inspect(&data, pre_state_root).map_err(anyhow::Error::from))
            .map(|report| {
                print_witness(&report);
                ExitCode::SUCCESS
            }),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}
