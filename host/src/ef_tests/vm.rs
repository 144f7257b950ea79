//! `host ef-tests --vm --sample K`: a deterministic sample of cases through the guest.
//!
//! The sample takes one case from each fixture folder in turn (folders in the order of the keccak
//! of their last two names, so consecutive picks land in unrelated categories; cases in name
//! order), only cases that run (post-merge), and always at least one multi-block chain and,
//! where the corpus has them, a Prague and an Osaka case. Each sampled case runs
//! natively as in a full run; every block it validates is then executed by the block guest
//! (built once) on the same input: a block valid natively must reveal the native run's
//! [`PublicValues`], and a rejected one must end the guest without public values, with the
//! native verdict as its exit code (a build failure, a trap or a panic is a failure).
//!
//! The standard guest (EIP-8025) runs too, on each block's own standard input bytes: it must
//! reveal the native result (`false` for every rejected block) then zero bytes; and where the
//! fixture carries `statelessInputBytes`, on those, revealing its `statelessOutputBytes`.
//!
//! Every guest run has an instruction budget ([`DEFAULT_SAMPLE_BUDGET`] unless told): a guest
//! still running after it is stopped and reported as over budget, neither agreeing nor failing,
//! so one runaway case cannot hold up the rest. Each case is reported as it ends.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use program::{PublicValues, StatelessInput};
use serde::Serialize;

use super::{case_chain, fixtures, read_cases, run_fixture_cases, CaseResult, Outcome, Validated};
use prover::guest::{Crypto, GuestSpec, Keccak, Program};
use prover::standard::result_of_public;
use prover::vm::{Vm, VmError};

/// The instructions a sampled guest run may take: 2 G, ~30 s of execution here, twenty times a
/// mainnet block's (24171384: 47.5 M) and far above any EF case that runs in reasonable time.
pub const DEFAULT_SAMPLE_BUDGET: u64 = 2_000_000_000;

/// A case picked for the sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SampledCase {
    /// The fixture: a file, or an archive entry behind its archive's path.
    pub file: PathBuf,
    /// The source it is read from (the file itself, or the archive).
    pub source: PathBuf,
    /// The case's name.
    pub name: String,
    /// Its network (`Prague`, `PragueToOsakaAtTime15k`, ...).
    pub network: String,
    /// How many blocks it has.
    pub blocks: usize,
}

/// The forks in force on mainnet now: a sample that can draw a case of each draws at least one.
pub const CURRENT_FORKS: [&str; 2] = ["Prague", "Osaka"];

/// Every case of `files` that runs (post-merge), by fixture folder, each folder's in name order.
fn cases_by_folder(files: &[PathBuf]) -> BTreeMap<PathBuf, Vec<SampledCase>> {
    let mut folders: BTreeMap<PathBuf, Vec<SampledCase>> = BTreeMap::new();
    for source in files {
        // A source that does not read has no case to sample (the full run reports it).
        let _ = fixtures::for_each(source, &mut |file, bytes| {
            let Ok(cases) = read_cases(&bytes) else {
                return;
            };
            for (name, case) in cases {
                if case_chain(&case).is_err() {
                    continue;
                }
                let folder = file.parent().unwrap_or(Path::new("")).to_owned();
                folders.entry(folder).or_default().push(SampledCase {
                    file: file.clone(),
                    source: source.clone(),
                    name,
                    network: case.network.clone(),
                    blocks: case.blocks.len(),
                });
            }
        });
    }
    folders
}

/// Every case of `files` that runs (post-merge), in the order of their fixtures' paths, then
/// their names.
pub fn all_cases(files: &[PathBuf]) -> Vec<SampledCase> {
    cases_by_folder(files).into_values().flatten().collect()
}

/// Runs one case natively, showing each block it validates to `observe`; the case's results,
/// or why it could not be read.
pub fn run_one(
    case: &SampledCase,
    observe: super::Observer<'_>,
) -> Result<Vec<CaseResult>, String> {
    let mut results = Vec::new();
    let read = fixtures::for_each(&case.source, &mut |file, bytes| {
        if file == case.file {
            results.extend(run_fixture_cases(
                &file,
                &bytes,
                &|n| n == case.name,
                &mut *observe,
            ));
        }
    });
    if let Err((file, reason)) = read {
        return Err(format!("{}: {reason}", file.display()));
    }
    if results.is_empty() {
        return Err(format!("{} {}: not found", case.file.display(), case.name));
    }
    Ok(results)
}

/// Picks `k` cases from `files` (see the module doc).
pub fn sample(files: &[PathBuf], k: usize) -> Vec<SampledCase> {
    let folders = cases_by_folder(files);
    // Ordered by the folder's last two names, so the sample is the same whatever path the
    // corpus is reached by.
    let mut order: Vec<(alloy_primitives::B256, Vec<SampledCase>)> = folders
        .into_iter()
        .map(|(folder, cases)| {
            let names: Vec<_> = folder.components().rev().take(2).collect();
            let key = format!("{names:?}");
            (mpt::keccak256(key.as_bytes()), cases)
        })
        .collect();
    order.sort_by_key(|(key, _)| *key);
    let mut picked = Vec::new();
    for depth in 0.. {
        let before = picked.len();
        for (_, cases) in &order {
            if picked.len() == k {
                break;
            }
            if let Some(case) = cases.get(depth) {
                picked.push(case.clone());
            }
        }
        if picked.len() == k || picked.len() == before {
            break;
        }
    }
    // Guarantees, each replacing a pick that no earlier guarantee made: a multi-block chain,
    // and a case of each fork in force on mainnet now.
    let mut kept = 0;
    let wants: [&dyn Fn(&SampledCase) -> bool; 3] = [
        &|c| c.blocks > 1,
        &|c| c.network.contains(CURRENT_FORKS[0]),
        &|c| c.network.contains(CURRENT_FORKS[1]),
    ];
    for want in wants {
        if kept >= k {
            break;
        }
        if let Some(at) = picked.iter().position(want) {
            // Already there: keep it out of later replacements.
            let case = picked.remove(at);
            picked.insert(0, case);
            kept += 1;
            continue;
        }
        let found = order.iter().flat_map(|(_, cases)| cases).find(|c| want(c));
        if let Some(case) = found {
            picked.pop();
            picked.insert(0, case.clone());
            kept += 1;
        }
    }
    picked
}

/// What the sample found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct VmSample {
    /// The cases run.
    pub cases: Vec<SampledCase>,
    /// Blocks valid natively whose public values the guest revealed identically.
    pub valid_blocks: usize,
    /// Blocks rejected natively that the guest rejected too.
    pub rejected_blocks: usize,
    /// Blocks whose standard input the standard guest gave the native result on.
    pub standard_blocks: usize,
    /// Of those, the blocks it proved `false`.
    pub standard_false: usize,
    /// Fixture `statelessInputBytes` on which it revealed the fixture's `statelessOutputBytes`.
    pub fixture_outputs: usize,
    /// Every disagreement (or case failure), one line each.
    pub failures: Vec<String>,
    /// Every guest run stopped at the budget, one line each.
    pub over_budget: Vec<String>,
    /// Cases with a failure.
    pub cases_failed: usize,
    /// Cases with no failure but a guest run over budget (neither passed nor failed).
    pub cases_over_budget: usize,
    /// Wall time, seconds (the guest build included).
    pub wall_s: f64,
}

/// How one sampled case ended, as [`run_sample_with`] reports it.
#[derive(Debug, Clone)]
pub struct CaseEnd<'a> {
    /// Its position in the sample, from 0.
    pub index: usize,
    /// The case.
    pub case: &'a SampledCase,
    /// Its disagreements and failures.
    pub failures: &'a [String],
    /// Its guest runs stopped at the budget.
    pub over_budget: &'a [String],
    /// Wall time, seconds.
    pub seconds: f64,
}

/// [`run_sample_with`] under [`DEFAULT_SAMPLE_BUDGET`], reporting nothing as it goes.
pub fn run_sample(cases: &[SampledCase]) -> Result<VmSample, VmError> {
    run_sample_with(cases, Some(DEFAULT_SAMPLE_BUDGET), |_| {})
}

/// Runs `cases` natively and every block of them in the guest, each guest run under `budget`
/// instructions (none: unbounded), calling `on_case` as each case ends.
pub fn run_sample_with(
    cases: &[SampledCase],
    budget: Option<u64>,
    mut on_case: impl FnMut(CaseEnd<'_>),
) -> Result<VmSample, VmError> {
    let started = std::time::Instant::now();
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let vm = Vm::new(spec.build()?, spec.public_values())?;
    let spec = GuestSpec::program(Program::Standard, Keccak::Ours);
    let standard = Vm::new(spec.build()?, spec.public_values())?;
    let mut out = VmSample {
        cases: cases.to_vec(),
        ..VmSample::default()
    };
    for (case_index, case) in cases.iter().enumerate() {
        let case_started = std::time::Instant::now();
        let (failed_before, over_before) = (out.failures.len(), out.over_budget.len());
        let mut index = 0;
        let mut check = |block: Validated<'_>| {
            let label = format!("{} {} block {index}", case.file.display(), case.name);
            index += 1;
            check_standard(&standard, &label, block.standard, budget, &mut out);
            let bytes = StatelessInput {
                block: block.block.to_vec().into(),
                witness: block.witness.clone(),
                chain: block.chain.clone(),
            }
            .to_items();
            match (
                block.result,
                vm.execute_items_within(&prover::vm::slices(&bytes), budget)
                    .as_deref(),
            ) {
                (_, Err(VmError::OverBudget(n))) => out
                    .over_budget
                    .push(format!("{label}: the block guest, {n} instructions")),
                (Ok(native), Ok(public)) => {
                    let expected = PublicValues::new(native, block.chain);
                    if PublicValues::from_bytes(public) == Some(expected) {
                        out.valid_blocks += 1;
                    } else {
                        out.failures
                            .push(format!("{label}: the guest revealed other public values"));
                    }
                }
                (Err(native), Err(VmError::Refused(guest))) if native.verdict() == *guest => {
                    out.rejected_blocks += 1
                }
                (Err(native), Err(VmError::Refused(guest))) => out.failures.push(format!(
                    "{label}: {} natively ({native}), {} in the guest",
                    native.verdict().name(),
                    guest.name()
                )),
                (Err(native), Err(e)) => out.failures.push(format!(
                    "{label}: {} natively ({native}), the guest failed: {e}",
                    native.verdict().name()
                )),
                (Ok(_), Err(e)) => out
                    .failures
                    .push(format!("{label}: valid natively, the guest failed: {e}")),
                (Err(e), Ok(_)) => out.failures.push(format!(
                    "{label}: rejected natively ({e}), valid in the guest"
                )),
            }
        };
        let results = run_one(case, &mut check).unwrap_or_else(|reason| {
            out.failures.push(reason);
            Vec::new()
        });
        for result in results {
            if let Outcome::Failed(reason) = result.outcome {
                out.failures
                    .push(format!("{} {}: {reason}", case.file.display(), case.name));
            }
        }
        if out.failures.len() > failed_before {
            out.cases_failed += 1;
        } else if out.over_budget.len() > over_before {
            out.cases_over_budget += 1;
        }
        on_case(CaseEnd {
            index: case_index,
            case,
            failures: &out.failures[failed_before..],
            over_budget: &out.over_budget[over_before..],
            seconds: case_started.elapsed().as_secs_f64(),
        });
    }
    out.wall_s = started.elapsed().as_secs_f64();
    Ok(out)
}

/// The standard guest on a block's standard inputs ([`super::case::StandardInputs`]).
fn check_standard(
    vm: &Vm,
    label: &str,
    inputs: super::case::StandardInputs<'_>,
    budget: Option<u64>,
    out: &mut VmSample,
) {
    if let Some(bytes) = inputs.ours {
        let native = program::standard::validate(bytes, &stateless_ssz::Sha2Hasher).result;
        match vm.execute_items_within(&[bytes], budget) {
            Err(VmError::OverBudget(n)) => out
                .over_budget
                .push(format!("{label}: the standard guest, {n} instructions")),
            Ok(public) if result_of_public(&public) == Some(native) => {
                out.standard_blocks += 1;
                out.standard_false += usize::from(!native.successful_validation);
            }
            Ok(public) => out.failures.push(format!(
                "{label}: the standard guest revealed 0x{}, natively 0x{}",
                alloy_primitives::hex::encode(public),
                alloy_primitives::hex::encode(native.to_bytes())
            )),
            Err(e) => out
                .failures
                .push(format!("{label}: the standard guest failed: {e}")),
        }
    }
    if let Some((input, output)) = inputs.fixture {
        match vm.execute_items_within(&[input], budget) {
            Err(VmError::OverBudget(n)) => out.over_budget.push(format!(
                "{label}: the standard guest on statelessInputBytes, {n} instructions"
            )),
            Ok(public) if result_of_public(&public).map(|r| r.to_bytes().to_vec()) == Some(output.to_vec()) => {
                out.fixture_outputs += 1
            }
            Ok(public) => out.failures.push(format!(
                "{label}: on statelessInputBytes the standard guest revealed 0x{}, the fixture's statelessOutputBytes are 0x{}",
                alloy_primitives::hex::encode(public),
                alloy_primitives::hex::encode(output)
            )),
            Err(e) => out.failures.push(format!(
                "{label}: the standard guest failed on statelessInputBytes: {e}"
            )),
        }
    }
}
