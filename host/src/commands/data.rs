//! `host witness`, `fetch`, `ef-tests`, `gen`: block data in and out, and the EF corpora.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use alloy_primitives::B256;
use chaindata::blocks;
use clap::Args;
use fetch::FetchOptions;
use host::print::{self, write_json};
use host::target::Target;

use super::{exit_status, resolve};

#[derive(Args)]
pub struct WitnessArgs {
    #[command(flatten)]
    pub target: Target,
    /// Pre-state root to use when the witness has no parent header.
    #[arg(long)]
    pub pre_state_root: Option<B256>,
}

#[derive(Args)]
pub struct FetchArgs {
    /// Block number.
    #[arg(long)]
    pub block: u64,
    /// The node's JSON-RPC URL (http or https).
    #[arg(long)]
    pub rpc_url: String,
    /// Where to write the files. Default: `blocks/cache/`.
    #[arg(long)]
    pub blocks_dir: Option<PathBuf>,
    /// Per-request timeout, seconds.
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
    /// Retries after a failed connection, a timeout or an HTTP 429 / 5xx.
    #[arg(long, default_value_t = 3)]
    pub retries: u32,
    /// Genesis-style chain config (JSON) to validate under. Default: Ethereum mainnet.
    #[arg(long)]
    pub chain: Option<PathBuf>,
    /// Where the witness comes from: `debug_executionWitness` (debug), standard methods
    /// (proofs), or the first and, where the node lacks it, the second (auto).
    #[arg(long, value_enum, default_value_t = fetch::WitnessSource::Auto)]
    pub source: fetch::WitnessSource,
    /// Requests in flight at once (proofs source).
    #[arg(long, default_value_t = 16)]
    pub concurrency: usize,
}

#[derive(Args)]
pub struct EfTestsArgs {
    /// Fixture files or directories.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Write per-case results as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Run a deterministic sample of cases through the guest in the VM instead, checking
    /// each block's public values (or its rejection) against the native run.
    #[arg(long)]
    pub vm: bool,
    /// How many cases the VM sample takes.
    #[arg(long, default_value_t = 24)]
    pub sample: usize,
    /// The instructions each guest run of the VM sample may take: a guest still running then
    /// is stopped and reported as over budget (default 2,000,000,000; 0: no budget).
    #[arg(long, requires = "vm")]
    pub max_instructions: Option<u64>,
}

#[derive(Args)]
pub struct GenArgs {
    /// Output directory. Default: the project's `blocks/` (with `--worst`, its fetched-block
    /// cache `blocks/cache/`, where `host run --block worst-NAME` finds it).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Instead of the devnet blocks, a worst-case block `worst-NAME` that spends its gas on one
    /// thing (`all`: every category; `list`: list them).
    #[arg(long, value_name = "CATEGORY")]
    pub worst: Option<String>,
    /// With `--worst`: the block's gas, split into transactions of at most 2^24 (EIP-7825).
    #[arg(long, default_value_t = blockgen::worst::DEFAULT_GAS, requires = "worst")]
    pub gas: u64,
    /// The rules: every fork through this one, from genesis (with `--worst`, the pricing).
    /// Under another fork than the default, the devnet blocks are `devnet-<fork>` and
    /// `devnet-<fork>-small`.
    #[arg(long, value_enum, default_value_t = blockgen::Fork::Osaka)]
    pub fork: blockgen::Fork,
}

impl WitnessArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        witness(&self.target, self.pre_state_root)
    }
}

impl FetchArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        let options = FetchOptions {
            timeout: Duration::from_secs(self.timeout),
            retries: self.retries,
            source: self.source,
            concurrency: self.concurrency,
            ..FetchOptions::default()
        };
        fetch(
            self.block,
            &self.rpc_url,
            self.blocks_dir,
            options,
            self.chain.as_deref(),
        )
    }
}

impl EfTestsArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        if self.vm {
            let budget = match self.max_instructions {
                None => Some(host::ef_tests::vm::DEFAULT_SAMPLE_BUDGET),
                Some(0) => None,
                Some(n) => Some(n),
            };
            ef_tests_vm(&self.paths, self.json.as_deref(), self.sample, budget)
        } else {
            ef_tests(&self.paths, self.json.as_deref(), self.threads)
        }
    }
}

impl GenArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        match &self.worst {
            Some(name) => super::worst::gen(name, self.gas, self.fork, self.out),
            None => gen(self.out, self.fork),
        }
    }
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
    let chain = chaindata::chain::for_block(&dir, &block.to_string(), chain_file)?;
    eprintln!("fetching block {block} from {rpc_url}");
    let fetched = fetch::fetch(rpc_url, block, &dir, &chain, options)?;
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

fn ef_tests_vm(
    paths: &[PathBuf],
    json: Option<&Path>,
    k: usize,
    budget: Option<u64>,
) -> anyhow::Result<ExitCode> {
    let files = host::ef_tests::discover(paths)?;
    let cases = host::ef_tests::vm::sample(&files, k);
    let total = cases.len();
    let limit = budget.map_or_else(|| "no".to_owned(), |n| n.to_string());
    eprintln!(
        "{total} cases sampled from {} files; {limit} instructions per guest run at most",
        files.len()
    );
    let sample = host::ef_tests::vm::run_sample_with(&cases, budget, |end| {
        let status = if !end.failures.is_empty() {
            format!("FAIL ({})", end.failures.len())
        } else if !end.over_budget.is_empty() {
            "OVER BUDGET".to_owned()
        } else {
            "ok".to_owned()
        };
        eprintln!(
            "[{}/{total}] {} {} ({} blocks): {status}, {:.1} s",
            end.index + 1,
            end.case.file.display(),
            end.case.name,
            end.case.blocks,
            end.seconds
        );
    })?;
    print::print_ef_vm_sample(&sample);
    if let Some(path) = json {
        write_json(path, &sample)?;
    }
    Ok(exit_status(sample.failures.is_empty()))
}

fn gen(out: Option<PathBuf>, fork: blockgen::Fork) -> anyhow::Result<ExitCode> {
    let out = out.unwrap_or_else(blocks::default_root);
    for line in blockgen::write_fork(&out, fork)? {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}
