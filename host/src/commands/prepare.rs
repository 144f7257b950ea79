//! `host guests`, `keygen`: what a proving machine needs before its first proof. `guests`
//! writes the pinned guests' ELFs, each checked against its pin, for a host that is told not
//! to build them (`$STATELESS_VERIFIER_GUESTS`: the GPU bundle, `scripts/gpu-bundle.sh`);
//! `keygen` makes the proving keys into the key cache and says how long each took.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use prover::guest::Program;
use prover::proof::pin::PINNED;
use prover::proof::prepare::{checked_guest, keygen};
use prover::proof::Limits;

#[derive(Args)]
pub struct GuestsArgs {
    /// The folder to write them to: `DIR/<variant>/<binary>`, as `$STATELESS_VERIFIER_GUESTS`
    /// reads them.
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Args)]
pub struct KeygenArgs {
    /// The guests to make keys for (default: both pinned guests).
    #[arg(long, value_enum, num_args = 1..)]
    pub program: Vec<Program>,
    /// log2 of a segment's maximum trace height, as `host prove` takes it.
    #[arg(long, default_value_t = 21)]
    pub log_stacked_height: usize,
}

impl GuestsArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        for (program, _) in PINNED {
            let guest = checked_guest(program)?;
            let path = guest.spec.prebuilt_path(&self.out);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&path, &guest.elf)?;
            println!(
                "{}: {} bytes, exe {} (the pin's) -> {}",
                program.bin(),
                guest.elf.len(),
                guest.exe_commit,
                path.display()
            );
        }
        Ok(ExitCode::SUCCESS)
    }
}

impl KeygenArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        let programs = if self.program.is_empty() {
            PINNED.iter().map(|(p, _)| *p).collect()
        } else {
            self.program
        };
        for program in programs {
            let keys = keygen(program, Limits::for_proving(self.log_stacked_height))?;
            println!(
                "{} (2^{} rows): app key {:.1} s; aggregation keys {}, {} KB -> {}",
                program.bin(),
                keys.subject.log_stacked_height,
                keys.app.as_secs_f64(),
                host::print::keys_origin(&keys.agg),
                keys.agg.bytes / 1000,
                keys.agg.path.display()
            );
        }
        Ok(ExitCode::SUCCESS)
    }
}
