//! `host`: the command line of the stateless block verifier.

use std::path::PathBuf;
use std::process::ExitCode;

use alloy_primitives::B256;
use clap::{Parser, Subcommand};
use host::blocks::{self, DEFAULT_BLOCKS_DIR};
use host::inspect::{inspect, RootSource};

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
    /// Check a block's witness against its pre-state root and report what it reaches.
    Witness {
        /// Block number (reads `<N>.block.rlp` and `<N>.witness.json`).
        #[arg(long)]
        block: u64,
        /// Directory holding the block files.
        #[arg(long, default_value = DEFAULT_BLOCKS_DIR)]
        blocks_dir: PathBuf,
        /// Pre-state root to use when the witness has no parent header.
        #[arg(long)]
        pre_state_root: Option<B256>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Witness {
            block,
            blocks_dir,
            pre_state_root,
        } => {
            let result = blocks::load(&blocks_dir, block)
                .map_err(anyhow::Error::from)
                .and_then(|data| inspect(&data, pre_state_root).map_err(anyhow::Error::from));
            match result {
                Ok(r) => {
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
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
