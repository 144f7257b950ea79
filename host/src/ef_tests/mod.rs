//! `host ef-tests`: the Ethereum Foundation's blockchain tests, run statelessly.
//!
//! Any fixture tree in the `BlockchainTests` JSON format (ethereum/tests, execution-spec-tests
//! releases) is accepted: files or directories, any depth, `.json`, `.json.gz` or `.tar.gz`
//! ([`fixtures`]). Each case runs block by block, under its own chain config (its network's
//! forks, its `config`'s chain id and blob schedule), through the same validator the guest runs
//! ([`case`]), with the whole state as the witness. A case passes when every block gets the
//! fixture's verdict and the head is `lastblockhash`: a block without `expectException` valid,
//! a block with it **invalid** (a rule broken; "insufficient" or "unusable" is a failure, since
//! it says nothing about the block). Cases whose network starts before the merge are skipped,
//! each with its reason; nothing else is.
//!
//! Fixtures are spread over all cores: one thread reads the sources (an archive entry by
//! entry), the others take fixtures from a short queue.

mod case;
pub mod exception;
pub mod fixtures;
pub mod last_block;
mod standard;
pub mod vm;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use program::ChainConfig;
use serde::Serialize;

use case::run_case;
pub use case::{BlockResult, CaseResult, Observer, Outcome, StandardInputs, Validated};
use fixtures::CaseJson;

use chaindata::chain::{self, ChainError};

pub use fixtures::discover;

/// The chain config of a case: its network's forks, its `config`'s chain id and blob schedule.
pub(crate) fn case_chain(case: &CaseJson) -> Result<ChainConfig, ChainError> {
    let chain_id = chain::u64_field(&case.config, "chainid")?.unwrap_or(1);
    let schedule = case.config.get("blobSchedule").cloned().unwrap_or_default();
    chain::from_network(&case.network, chain_id, &schedule)
}

/// Runs every case of one source (a fixture file, or every fixture of an archive). A fixture
/// that is not a blockchain-test file gives one failed case named after it.
pub fn run_file(path: &Path) -> Vec<CaseResult> {
    run_file_cases(path, |_| true, &mut |_| {})
}

/// Reads a fixture's cases.
fn read_cases(bytes: &[u8]) -> Result<std::collections::BTreeMap<String, CaseJson>, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("not a blockchain test file: {e}"))
}

/// One failed case standing for a fixture that could not be read.
fn unreadable(file: &Path, reason: String) -> CaseResult {
    CaseResult {
        file: file.display().to_string(),
        name: String::new(),
        network: String::new(),
        outcome: Outcome::Failed(reason),
        blocks: Vec::new(),
    }
}

/// Runs the cases of every fixture of `path` that `select` picks (by name), showing each block
/// to `observe`.
pub fn run_file_cases(
    path: &Path,
    select: impl Fn(&str) -> bool,
    observe: Observer<'_>,
) -> Vec<CaseResult> {
    let mut out = Vec::new();
    let read = fixtures::for_each(path, &mut |name, bytes| {
        out.extend(run_fixture_cases(&name, &bytes, &select, &mut *observe));
    });
    if let Err((name, reason)) = read {
        out.push(unreadable(&name, reason));
    }
    out
}

/// Runs the cases of one fixture (`name`, its JSON `bytes`) that `select` picks.
pub fn run_fixture_cases(
    name: &Path,
    bytes: &[u8],
    select: &dyn Fn(&str) -> bool,
    observe: Observer<'_>,
) -> Vec<CaseResult> {
    let cases = match read_cases(bytes) {
        Ok(cases) => cases,
        Err(reason) => return vec![unreadable(name, reason)],
    };
    let file = name.display().to_string();
    cases
        .into_iter()
        .filter(|(name, _)| select(name))
        .map(|(name, case)| {
            let (outcome, blocks) = match case_chain(&case) {
                Ok(chain) => run_case(&case, &chain, &mut *observe),
                Err(e @ ChainError::PreMerge(_)) => (Outcome::Skipped(e.to_string()), Vec::new()),
                Err(e) => (Outcome::Failed(e.to_string()), Vec::new()),
            };
            CaseResult {
                file: file.clone(),
                name,
                network: case.network,
                outcome,
                blocks,
            }
        })
        .collect()
}

/// A whole run's results.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Cases passed.
    pub passed: usize,
    /// Cases failed.
    pub failed: usize,
    /// Cases skipped (pre-merge networks).
    pub skipped: usize,
    /// Fixtures read (files, or archive entries).
    pub files: usize,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// Per case, in file order.
    pub cases: Vec<CaseResult>,
}

impl Summary {
    /// Cases run or skipped per second.
    pub fn cases_per_s(&self) -> f64 {
        self.cases.len() as f64 / self.wall_s.max(1e-9)
    }

    /// Rejections whose rule is not the one the fixture names (verdict right, reason unclear).
    pub fn exception_mismatches(&self) -> usize {
        self.cases
            .iter()
            .flat_map(|c| &c.blocks)
            .filter(|b| b.exception_match == Some(false))
            .count()
    }
}

/// Runs every fixture of `sources` on `threads` threads; `progress(done, seen)` after each
/// fixture (`seen`: fixtures read so far, all of them once the sources are read).
pub fn run_files(
    sources: &[PathBuf],
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Summary {
    let started = Instant::now();
    let seen = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Vec<CaseResult>)>> = Mutex::new(Vec::new());
    let (send, receive) = std::sync::mpsc::sync_channel::<(usize, PathBuf, Vec<u8>)>(threads * 2);
    let receive = Mutex::new(receive);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let next = receive.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok((k, name, bytes)) = next else { break };
                let cases = run_fixture_cases(&name, &bytes, &|_| true, &mut |_| {});
                drop(bytes);
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((k, cases));
                progress(
                    done.fetch_add(1, Ordering::Relaxed) + 1,
                    seen.load(Ordering::Relaxed),
                );
            });
        }
        for source in sources {
            let read = fixtures::for_each(source, &mut |name, bytes| {
                let k = seen.fetch_add(1, Ordering::Relaxed);
                // The workers outlive the sends: a send fails only if they all panicked.
                let _ = send.send((k, name, bytes));
            });
            if let Err((name, reason)) = read {
                let k = seen.fetch_add(1, Ordering::Relaxed);
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((k, vec![unreadable(&name, reason)]));
            }
        }
        drop(send);
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(k, _)| *k);
    let cases: Vec<CaseResult> = results.into_iter().flat_map(|(_, c)| c).collect();
    let count = |f: fn(&Outcome) -> bool| cases.iter().filter(|c| f(&c.outcome)).count();
    Summary {
        passed: count(|o| *o == Outcome::Passed),
        failed: count(|o| matches!(o, Outcome::Failed(_))),
        skipped: count(|o| matches!(o, Outcome::Skipped(_))),
        files: seen.into_inner(),
        wall_s: started.elapsed().as_secs_f64(),
        cases,
    }
}
