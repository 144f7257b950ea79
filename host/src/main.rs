//! `host`: the command line of the stateless block verifier.

use std::path::PathBuf;
use std::process::ExitCode;

use alloy_primitives::B256;
use clap::{Parser, Subcommand};
use host::blocks::{self, DEFAULT_BLOCKS_DIR};
use host::inspect::{inspect, RootSource, WitnessReport};
use host::run::{run_native, NativeRun};

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
    /// Validate a block: decode, check header and body, execute, and check the post-state root.
    Run {
        /// Block number or fixture name (reads `<BLOCK>.block.rlp` and `<BLOCK>.witness.json`).
        #[arg(long)]
        block: String,
        /// Directory holding the block files.
        #[arg(long, default_value = DEFAULT_BLOCKS_DIR)]
        blocks_dir: PathBuf,
        /// Validate natively on the host (the only mode until the VM pipeline lands).
        #[arg(long)]
        native: bool,
        /// Genesis-style chain config (JSON). Default: `<BLOCK>.chain.json` beside the block
        /// files if present, else Ethereum mainnet.
        #[arg(long)]
        chain: Option<PathBuf>,
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
            println!("block {} VALID ({fork}, native)", run.data.id);
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
            println!("block {} INVALID ({fork}, native): {e}", run.data.id);
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run {
            block,
            blocks_dir,
            native: _,
            chain,
        } => run_native(&blocks_dir, &block, chain.as_deref())
            .map(|run| print_run(&run))
            .map_err(anyhow::Error::from),
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
