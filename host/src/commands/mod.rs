//! The `host` command line, one module per command group: each holds its commands' arguments,
//! their work and what they print, side by side.

pub mod bench;
pub mod cluster;
pub mod data;
pub mod measure;
pub mod prepare;
pub mod proving;
pub mod serve;
pub mod standard;
pub mod verify;
pub mod worst;

use std::process::ExitCode;

use fetch::FetchOptions;
use host::native::{self, NativeRun};
use host::print;
use host::target::{Resolved, Target};

/// Resolves the target, fetching it if asked (and saying so).
pub(crate) fn resolve(target: &Target) -> anyhow::Result<Resolved> {
    let resolved = target.resolve(FetchOptions::default())?;
    if let Some(fetched) = &resolved.fetched {
        print::print_fetched(&resolved.data, fetched);
    }
    Ok(resolved)
}

/// Resolves the target, validates it natively and prints the verdict; returns the run and its
/// exit status.
pub(crate) fn validate(target: &Target) -> anyhow::Result<(NativeRun, ExitCode)> {
    let run = native::validate(resolve(target)?);
    let code = print::print_run(&run);
    Ok((run, code))
}

/// [`validate`], for commands that need a valid block (`what` they would do with it).
pub(crate) fn validate_valid(target: &Target, what: &str) -> anyhow::Result<NativeRun> {
    let (run, code) = validate(target)?;
    if code != ExitCode::SUCCESS {
        anyhow::bail!("block {} is invalid natively; {what}", target.block);
    }
    Ok(run)
}

/// The chain `host verify --chain` names (a known chain or a config file), mainnet by default,
/// with its name.
pub(crate) fn expected_chain(
    chain: Option<&str>,
) -> anyhow::Result<(program::ChainConfig, String)> {
    Ok(match chain {
        Some(value) => chaindata::chain::named_or_file(value)?,
        None => (program::ChainConfig::mainnet(), "mainnet".to_owned()),
    })
}

pub(crate) fn exit_status(passed: bool) -> ExitCode {
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
