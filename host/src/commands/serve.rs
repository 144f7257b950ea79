//! `host serve`: Axiom Edge's client-facing proving API (what zkboost's OpenVM backend and the
//! ethproofs scripts call) over the PostgreSQL cluster ([`serve`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use prover::guest::Keccak;
use prover::proof::Limits;

#[derive(Args)]
pub struct ServeArgs {
    /// The database (as `host cluster --db`). Default: `$DATABASE_URL`. The password is never
    /// printed.
    #[arg(long)]
    db: Option<String>,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:3000")]
    listen: SocketAddr,
    /// Write the loadout's guest ELFs here as `<name>.elf` (the ELF a client such as zkboost
    /// is given, whose SHA-256 names the program).
    #[arg(long)]
    elf_dir: Option<PathBuf>,
    /// The largest block gas limit a stdin may carry (its native validation and metering run
    /// on this server).
    #[arg(long, default_value_t = 300_000_000)]
    max_gas: u64,
    #[command(flatten)]
    split: super::cluster::SplitArgs,
    /// Seconds this server's claim on a submission or a check holds without renewal (another
    /// server takes it over after).
    #[arg(long, default_value_t = 60.0)]
    lease_secs: f64,
    /// This server's name in its claims. Default: `serve:hostname:pid`.
    #[arg(long)]
    name: Option<String>,
}

impl ServeArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        anyhow::ensure!(self.lease_secs >= 3.0, "--lease-secs must be at least 3");
        let url = cluster::database_url(self.db.as_deref())?;
        let shape = self.split.shape()?;
        eprintln!("serve: building the loadout's guests ...");
        let loadout = serve::Loadout::build()?;
        for entry in &loadout.entries {
            println!(
                "program {} (alias {}): guest binary `{}`",
                entry.canonical,
                entry.alias,
                entry.program.bin()
            );
        }
        if let Some(dir) = &self.elf_dir {
            for path in loadout.write_elfs(dir)? {
                println!("wrote {}", path.display());
            }
        }
        let settings = serve::Settings {
            url,
            owner: self
                .name
                .unwrap_or_else(|| format!("serve:{}", cluster::worker::default_name())),
            lease: Duration::from_secs_f64(self.lease_secs),
            keccak: Keccak::Ours,
            // The pinned segment height: a served proof verifies against the pins alone
            // (`host verify --request`), with no rebuild.
            limits: Limits::for_proving(prover::proof::pin::PINNED_LOG_STACKED_HEIGHT)
                .with_segment_memory_mib(self.split.segment_memory_mib),
            shape,
            max_gas: self.max_gas,
        };
        serve::serve(self.listen, settings, loadout)?;
        Ok(ExitCode::SUCCESS)
    }
}
