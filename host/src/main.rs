//! `host`: the command line of the stateless block verifier.

mod print;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use alloy_primitives::B256;
use clap::{Args, Parser, Subcommand};
use host::blocks::{self, DEFAULT_BLOCK};
use host::fetch::{fetch, locate_or_fetch, BlockSource, FetchOptions, Fetched};
use host::guest::{Crypto, Keccak};
use host::inspect::inspect;
use host::report::{
    census_table, run_census, run_in_vm, run_in_vm_with, Comparison, Mode, RunReport,
};
use host::run::{chain_for, run_native, NativeRun};
use print::{print_metered, print_public_values, print_run, print_witness, write_json};

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

/// Which block, and where its files are.
#[derive(Args)]
struct Target {
    /// Block number or name (reads `<BLOCK>.block.rlp` and `<BLOCK>.witness.json`). Default:
    /// the project's generated devnet block.
    #[arg(long, default_value = DEFAULT_BLOCK)]
    block: String,
    /// Directory holding the block files. Default: `blocks/`, then `blocks/cache/`.
    #[arg(long)]
    blocks_dir: Option<PathBuf>,
    /// An archive node's JSON-RPC URL: fetch the block first when its files are missing.
    #[arg(long)]
    rpc_url: Option<String>,
    /// Genesis-style chain config (JSON). Default: `<BLOCK>.chain.json` beside the block
    /// files if present, else Ethereum mainnet.
    #[arg(long)]
    chain: Option<PathBuf>,
}

impl Target {
    /// The directory holding the block's files, fetching them first where a URL is given.
    fn dir(&self) -> anyhow::Result<PathBuf> {
        let dirs = match &self.blocks_dir {
            Some(dir) => vec![dir.clone()],
            None => blocks::default_dirs().to_vec(),
        };
        let fetch_dir = self
            .blocks_dir
            .clone()
            .unwrap_or_else(|| blocks::default_root().join(blocks::CACHE_DIR));
        let chain = chain_for(&fetch_dir, &self.block, self.chain.as_deref())?;
        if let Some(url) = &self.rpc_url {
            eprintln!(
                "block {}: fetching from {url} if its files are missing",
                self.block
            );
        }
        let (dir, fetched) = locate_or_fetch(
            &dirs,
            &self.block,
            self.rpc_url.as_deref(),
            &fetch_dir,
            &chain,
            FetchOptions::default(),
        )?;
        if let Some(fetched) = fetched {
            print_fetched(&fetched);
        }
        Ok(dir)
    }

    fn native(&self) -> anyhow::Result<NativeRun> {
        Ok(run_native(
            &self.dir()?,
            &self.block,
            self.chain.as_deref(),
        )?)
    }
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
        /// Write the report as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Run a block in the VM with OpenVM's stock keccak and with ours, and compare the metered
    /// statistics.
    Compare {
        #[command(flatten)]
        target: Target,
        /// Write `{"block", "stock", "ours", "census"}` as JSON to this file.
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
        /// Where to write the proof (default `<BLOCK>.proof` in the current directory).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Verify a proof file written by `host prove` and print the public values it proves. A
    /// proof of the block guest must have been made under the expected chain config (mainnet
    /// unless `--chain`).
    Verify {
        /// The proof file.
        file: PathBuf,
        /// Genesis-style chain config (JSON) the proof must have been made under. Default:
        /// Ethereum mainnet.
        #[arg(long)]
        chain: Option<PathBuf>,
    },
    /// Check a block's witness against its pre-state root and report what it reaches.
    Witness {
        #[command(flatten)]
        target: Target,
        /// Pre-state root to use when the witness has no parent header.
        #[arg(long)]
        pre_state_root: Option<B256>,
    },
    /// Fetch a block and its execution witness from an archive node's JSON-RPC
    /// (`debug_getRawBlock`, `debug_executionWitness`), validate it natively, and save it.
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

fn print_fetched(fetched: &Fetched) {
    let via = match fetched.source {
        BlockSource::RawBlock => "debug_getRawBlock",
        BlockSource::FullBlock => "eth_getBlockByNumber (re-encoded)",
    };
    let (out, w) = (&fetched.output, &fetched.data.witness);
    println!(
        "fetched block {} ({}) via {via}: {} transactions, {} gas",
        fetched.data.id, out.block_hash, out.tx_count, out.gas_used
    );
    println!(
        "  witness: {} nodes, {} codes, {} headers; VALID natively",
        w.state.len(),
        w.codes.len(),
        w.headers.len()
    );
    println!(
        "  wrote {} and {}",
        fetched.paths.0.display(),
        fetched.paths.1.display()
    );
}

fn run(
    target: &Target,
    mode: Mode,
    (keccak, crypto): (Keccak, Crypto),
    segments: bool,
    json: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let native = target.native()?;
    let code = print_run(&native);
    let report = match mode {
        Mode::Native => RunReport::native(&native),
        _ if native.verdict.is_err() => RunReport::native(&native),
        _ => {
            let report = run_in_vm_with(&native, mode, keccak, crypto)?;
            println!(
                "block {} VALID in the VM ({mode:?}, keccak {}, crypto {}): public values match the native run",
                target.block,
                keccak.name(),
                crypto.name()
            );
            print_metered(&report, segments);
            report
        }
    };
    if let Some(path) = json {
        write_json(path, &report)?;
    }
    Ok(code)
}

fn census(
    target: &Target,
    crypto: Option<Crypto>,
    json: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let native = target.native()?;
    if print_run(&native) != ExitCode::SUCCESS {
        anyhow::bail!("block {} is invalid natively; no census", target.block);
    }
    let choices = crypto.map_or(vec![Crypto::Openvm, Crypto::Software], |c| vec![c]);
    let mut all = Vec::new();
    for crypto in choices {
        let census = host::precompiles::run_precompile_census(&native, crypto)?;
        println!("\nblock {}: precompile census\n", target.block);
        print!("{}", census.table());
        all.push(census);
    }
    if let Some(path) = json {
        write_json(path, &all)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn compare(target: &Target, json: Option<&Path>) -> anyhow::Result<ExitCode> {
    let block = &target.block;
    let native = target.native()?;
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
    target: &Target,
    keccak: Keccak,
    log_stacked_height: usize,
    out: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let block = &target.block;
    let native = target.native()?;
    if print_run(&native) != ExitCode::SUCCESS {
        anyhow::bail!("block {block} is invalid natively; nothing to prove");
    }
    let input = host::report::guest_input(&native);
    let (file, elapsed) = host::proof::prove(
        "guest",
        keccak,
        host::guest::PUBLIC_VALUES,
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
    if let Some(values) = program::PublicValues::from_bytes(&file.public_values) {
        println!("  public values (in the proof file):");
        print_public_values(&values, None);
    }
    Ok(ExitCode::SUCCESS)
}

fn verify(path: &Path, chain_file: Option<&Path>) -> anyhow::Result<ExitCode> {
    let file = host::proof::read(path)?;
    let summary = |file: &host::proof::ProofFile| {
        format!(
            "{} {}, {} segments",
            file.bin,
            file.keccak.name(),
            file.proof.per_segment.len()
        )
    };
    if file.bin != "guest" {
        // A probe guest's proof: its public values are its own.
        return Ok(match host::proof::verify(&file) {
            Ok(public) => {
                println!("proof {} VALID ({})", path.display(), summary(&file));
                println!(
                    "  public values    {}",
                    alloy_primitives::hex::encode(public)
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                println!("proof {} INVALID: {e}", path.display());
                ExitCode::from(1)
            }
        });
    }
    let (chain, chain_name) = match chain_file {
        Some(file) => (host::chain::from_file(file)?, file.display().to_string()),
        None => (program::ChainConfig::mainnet(), "mainnet".to_owned()),
    };
    Ok(
        match host::proof::verify_block(&file, &chain, &chain_name) {
            Ok(values) => {
                println!("proof {} VALID ({})", path.display(), summary(&file));
                print_public_values(&values, Some(&chain_name));
                ExitCode::SUCCESS
            }
            Err(e) => {
                println!("proof {} INVALID: {e}", path.display());
                ExitCode::from(1)
            }
        },
    )
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
    eprintln!("{} fixture files, {threads} threads", files.len());
    let terminal = std::io::stderr().is_terminal();
    let progress = move |done: usize, total: usize| {
        if terminal {
            eprint!("\r{done}/{total} files");
            if done == total {
                eprintln!();
            }
        }
    };
    let summary = host::ef_tests::run_files(&files, threads, &progress);
    print::print_ef_failures(&summary);
    if let Some(path) = json {
        write_json(path, &summary)?;
    }
    Ok(if summary.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
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
    Ok(if sample.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run {
            target,
            mode,
            native,
            keccak,
            crypto,
            segments,
            json,
        } => {
            let mode = if native { Mode::Native } else { mode };
            run(&target, mode, (keccak, crypto), segments, json.as_deref())
        }
        Command::Compare { target, json } => compare(&target, json.as_deref()),
        Command::Census {
            target,
            crypto,
            json,
        } => census(&target, crypto, json.as_deref()),
        Command::Prove {
            target,
            keccak,
            log_stacked_height,
            out,
        } => prove(&target, keccak, log_stacked_height, out),
        Command::Verify { file, chain } => verify(&file, chain.as_deref()),
        Command::Witness {
            target,
            pre_state_root,
        } => target
            .dir()
            .and_then(|dir| Ok(blocks::load(&dir, &target.block)?))
            .and_then(|data| Ok(inspect(&data, pre_state_root)?))
            .map(|report| {
                print_witness(&report);
                ExitCode::SUCCESS
            }),
        Command::Fetch {
            block,
            rpc_url,
            blocks_dir,
            timeout,
            retries,
            chain,
        } => {
            let dir = blocks_dir.unwrap_or_else(|| blocks::default_root().join(blocks::CACHE_DIR));
            let options = FetchOptions {
                timeout: Duration::from_secs(timeout),
                retries,
                ..FetchOptions::default()
            };
            chain_for(&dir, &block.to_string(), chain.as_deref())
                .map_err(anyhow::Error::from)
                .and_then(|chain| {
                    eprintln!("fetching block {block} from {rpc_url}");
                    Ok(fetch(&rpc_url, block, &dir, &chain, options)?)
                })
                .map(|fetched| {
                    print_fetched(&fetched);
                    ExitCode::SUCCESS
                })
        }
        Command::EfTests {
            paths,
            json,
            threads,
            vm,
            sample,
        } => {
            if vm {
                ef_tests_vm(&paths, json.as_deref(), sample)
            } else {
                ef_tests(&paths, json.as_deref(), threads)
            }
        }
        Command::Gen { out } => {
            let out = out.unwrap_or_else(blocks::default_root);
            host::gen::write_all(&out)
                .map(|written| {
                    for line in written {
                        println!("{line}");
                    }
                    ExitCode::SUCCESS
                })
                .map_err(anyhow::Error::from)
        }
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}
