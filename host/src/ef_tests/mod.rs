//! `host ef-tests`: the Ethereum Foundation's blockchain tests, run statelessly.
//!
//! Any fixture tree in the `BlockchainTests` JSON format (ethereum/tests, execution-spec-tests
//! releases) is accepted: files or directories, any depth. Each case runs block by block
//! through the same validator the guest runs ([`case`]), with the whole state as the witness;
//! a case passes when every block gets the fixture's verdict (valid, or rejected where
//! `expectException` is set) and the head is `lastblockhash`. Cases whose network starts before
//! the merge are skipped, each with its reason; nothing else is.
//!
//! Files are spread over all cores (a work queue of files, one thread per core).

mod case;
pub mod exception;
pub mod vm;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use program::ChainConfig;
use serde::Serialize;

use case::{run_case, CaseJson};
pub use case::{BlockResult, CaseResult, Observer, Outcome, Validated};

use crate::chain::{self, ChainError};

/// Every `.json` file under `paths` (files as given, directories walked), sorted.
pub fn discover(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = paths.to_vec();
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path)? {
                stack.push(entry?.path());
            }
        } else if path.extension().is_some_and(|e| e == "json") || paths.contains(&path) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The chain config of a case: its network's forks, its `config`'s chain id and blob schedule.
pub(crate) fn case_chain(case: &CaseJson) -> Result<ChainConfig, ChainError> {
    let chain_id = chain::u64_field(&case.config, "chainid")?.unwrap_or(1);
    let schedule = case.config.get("blobSchedule").cloned().unwrap_or_default();
    chain::from_network(&case.network, chain_id, &schedule)
}

/// Runs every case of one file. A file that is not a blockchain-test file gives one failed
/// case named after the file.
pub fn run_file(path: &Path) -> Vec<CaseResult> {
    run_file_cases(path, |_| true, &mut |_| {})
}

/// Reads a fixture file's cases.
fn read_cases(path: &Path) -> Result<std::collections::BTreeMap<String, CaseJson>, String> {
    let text = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    serde_json::from_slice(&text).map_err(|e| format!("not a blockchain test file: {e}"))
}

/// Runs the cases of `path` that `select` picks (by name), showing each block to `observe`.
pub fn run_file_cases(
    path: &Path,
    select: impl Fn(&str) -> bool,
    observe: Observer<'_>,
) -> Vec<CaseResult> {
    let file = path.display().to_string();
    let failed = |reason: String| {
        vec![CaseResult {
            file: file.clone(),
            name: String::new(),
            network: String::new(),
            outcome: Outcome::Failed(reason),
            blocks: Vec::new(),
        }]
    };
    let cases = match read_cases(path) {
        Ok(cases) => cases,
        Err(reason) => return failed(reason),
    };
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
    /// Files read.
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

/// Runs every file on `threads` threads; `progress(done, total)` after each file.
pub fn run_files(
    files: &[PathBuf],
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Summary {
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Vec<CaseResult>)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(k) else { break };
                let cases = run_file(path);
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((k, cases));
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, files.len());
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(k, _)| *k);
    let cases: Vec<CaseResult> = results.into_iter().flat_map(|(_, c)| c).collect();
    let count = |f: fn(&Outcome) -> bool| cases.iter().filter(|c| f(&c.outcome)).count();
    Summary {
        passed: count(|o| *o == Outcome::Passed),
        failed: count(|o| matches!(o, Outcome::Failed(_))),
        skipped: count(|o| matches!(o, Outcome::Skipped(_))),
        files: files.len(),
        wall_s: started.elapsed().as_secs_f64(),
        cases,
    }
}
