//! `host`: the command line of the stateless block verifier. Each command is the pipeline it
//! runs: resolve the block, validate it natively, run the guest in the VM or prove it (in one
//! process or on a cluster), and print. [`commands`] holds each group's arguments, work and
//! printing side by side.

mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use commands::{bench, cluster, data, measure, prepare, proving, serve, standard, verify, worst};

#[derive(Parser)]
#[command(
    name = "host",
    version,
    about = "Stateless Ethereum block verifier (OpenVM guest + host)"
)]
struct Cli {
    /// Native runs through the guest's own cryptography: sender and authority recovery and
    /// every precompile's crypto go through crate `crypto` (OpenVM's field and curve code as
    /// software arithmetic, recovery computing its square roots as the standard guest does in
    /// the VM) in place of k256's and revm's. (A standard input's keys are checked by the
    /// guest's code when `host` is built with `--features program/openvm-crypto`.) CI runs
    /// every corpus this way.
    #[arg(long, global = true)]
    guest_crypto: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a block: natively, or as the guest in the OpenVM VM (metered by default).
    Run(measure::RunArgs),
    /// Run a block in the VM with OpenVM's stock keccak (a baseline) and with ours, and compare
    /// the metered statistics and what keccak costs in each.
    Compare(measure::CompareArgs),
    /// Precompile census: per cryptographic operation (each precompile's cryptography and
    /// sender recovery), calls and the guest instructions they cost; each called operation
    /// costs one more metered run.
    Census(measure::CensusArgs),
    /// Profile the guest on a block: its instructions by function (from the guest ELF's
    /// symbols and the PC of every instruction), the top functions printed and a flame graph
    /// written as SVG.
    Profile(measure::ProfileArgs),
    /// Prove a block: app proof (STARK) of the guest validating it, on CPU. Real blocks have
    /// tens to hundreds of segments: minutes each here.
    Prove(proving::ProveArgs),
    /// Write the pinned guests' ELFs, each checked against its pin, for a host told not to build
    /// guests (`$STATELESS_VERIFIER_GUESTS`, a proving machine without Rust).
    Guests(prepare::GuestsArgs),
    /// Generate the app and aggregation proving keys (the latter into the key cache,
    /// `$STATELESS_VERIFIER_KEYS`), timed.
    Keygen(prepare::KeygenArgs),
    /// Verify a proof file written by `host prove` and print the public values it proves. A
    /// proof of the block guest must have been made under the expected chain config (mainnet
    /// unless `--chain`).
    Verify(verify::VerifyArgs),
    /// Check the commitments pinned in `pins/block-guest.json` against the guest and keys built
    /// from source (`--check`), or rewrite the file with them.
    Pin(proving::PinArgs),
    /// Check a block's witness against its pre-state root and report what it reaches.
    Witness(data::WitnessArgs),
    /// Fetch a block and its execution witness from an archive node's JSON-RPC, validate it
    /// natively, and save it. The witness: `debug_executionWitness`, or from standard methods
    /// only (`eth_getProof`, `eth_getCode`, `eth_getStorageAt`, `eth_getBlockByNumber`).
    Fetch(data::FetchArgs),
    /// Run Ethereum Foundation blockchain tests (files or directories of fixture JSON, any
    /// depth) statelessly: one line per failure, then `N passed, N failed, N skipped`.
    EfTests(data::EfTestsArgs),
    /// Generate the project's devnet blocks (deterministic) with their witnesses, chain config
    /// and manifest.
    Gen(data::GenArgs),
    /// Prove one block on many machines: a task graph in PostgreSQL, workers anywhere.
    Cluster(cluster::ClusterArgs),
    /// Serve Axiom Edge's proving API over the cluster (what zkboost's OpenVM backend calls):
    /// upload a stdin, start a proof of the standard or block guest, follow it, download it.
    Serve(serve::ServeArgs),
    /// Write a block's standard stateless input (EIP-8025 `statelessInputBytes`: schema id,
    /// then the SSZ `StatelessInput`), which `host run --stateless-input` runs.
    StatelessInput(standard::StatelessInputArgs),
    /// Meter the worst-case suite: every `host gen --worst` category (generated here), the EEST
    /// worst-case blocks, the execution-spec-tests benchmark suite and the mainnet blocks, each
    /// with both guests, in one table of instructions, main cells and segments per gas, with
    /// each block's ratio to the mainnet blocks' gas-weighted mean.
    Worst(worst::WorstArgs),
    /// Meter every block of a folder with both guests (the block guest on its input, the
    /// standard guest on the block's standard input): one row per block, then each guest's
    /// gas-weighted mean, median and max of main cells per gas.
    Bench(bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.guest_crypto && !crypto::install() {
        eprintln!("error: --guest-crypto: alloy's or revm's crypto provider was already set");
        return ExitCode::from(2);
    }
    let result = match cli.command {
        Command::Run(args) => args.exec(),
        Command::Compare(args) => args.exec(),
        Command::Census(args) => args.exec(),
        Command::Profile(args) => args.exec(),
        Command::Prove(args) => args.exec(),
        Command::Guests(args) => args.exec(),
        Command::Keygen(args) => args.exec(),
        Command::Verify(args) => args.exec(),
        Command::Pin(args) => args.exec(),
        Command::Witness(args) => args.exec(),
        Command::Fetch(args) => args.exec(),
        Command::EfTests(args) => args.exec(),
        Command::Gen(args) => args.exec(),
        Command::Cluster(args) => cluster::run(args),
        Command::Serve(args) => args.exec(),
        Command::StatelessInput(args) => args.exec(),
        Command::Worst(args) => args.exec(),
        Command::Bench(args) => args.exec(),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}
