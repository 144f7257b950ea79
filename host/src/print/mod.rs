//! Everything the `host` commands print: verdicts, reports, tables (Markdown, so BENCHMARKS.md
//! takes them as they are) and JSON files. The commands compute; this module only renders:
//! verdicts, witnesses, fetches and EF results here, measurements in [`measure`], proofs in
//! [`proof`].

use std::process::ExitCode;

use program::{PublicValues, Verdict};

use crate::ef_tests::{vm::VmSample, Outcome, Summary};
use crate::inspect::{RootSource, WitnessReport};
use crate::native::NativeRun;
use fetch::{BlockSource, FetchReport};

mod bench;
mod measure;
mod proof;

pub use bench::*;
pub use measure::*;
pub use proof::*;

/// Prints a native run's verdict; returns its exit status (0 valid, 1 invalid, 2 unusable,
/// 3 witness insufficient).
pub fn print_run(run: &NativeRun) -> ExitCode {
    let fork = run.fork;
    let verdict = Verdict::of(&run.verdict);
    match &run.verdict {
        Ok(out) => {
            println!("block {} VALID natively ({fork:?})", run.data.id);
            println!("  block hash       {}", out.block_hash);
            println!("  parent hash      {}", out.parent_hash);
            println!("  pre-state root   {}", out.pre_state_root);
            println!("  post-state root  {}", out.post_state_root);
            println!("  chain digest     {}", run.chain.digest());
            println!("  transactions     {}", out.tx_count);
            println!("  gas used         {}", out.gas_used);
            println!(
                "  time             {:.1} ms",
                run.elapsed.as_secs_f64() * 1e3
            );
        }
        Err(e) => {
            let word = match verdict {
                Verdict::Insufficient => "WITNESS INSUFFICIENT",
                Verdict::Unusable => "UNUSABLE",
                _ => "INVALID",
            };
            println!("block {} {word} ({fork:?}): {e}", run.data.id);
            if verdict == Verdict::Insufficient {
                println!(
                    "  the witness lacks data the block needs: this says nothing about the block"
                );
            }
        }
    }
    ExitCode::from(verdict.exit_code())
}

/// Prints a block proof's public values, and the chain they were checked against.
pub fn print_public_values(values: &PublicValues, chain: Option<&str>) {
    println!("  block hash       {}", values.block_hash);
    println!("  parent hash      {}", values.parent_hash);
    println!("  post-state root  {}", values.post_state_root);
    match chain {
        Some(name) => println!("  chain            {name} ({})", values.chain_digest),
        None => println!("  chain digest     {}", values.chain_digest),
    }
}

/// Prints what a witness holds and reaches (`host witness`).
pub fn print_witness(r: &WitnessReport) {
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

/// Writes `value` as pretty JSON to `path`.
pub fn write_json(path: &std::path::Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    std::fs::write(path, serde_json::to_vec_pretty(value)?)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// One line per failed case, the skips by reason, then the closing line.
pub fn print_ef_failures(summary: &Summary) {
    let mut skips: std::collections::BTreeMap<&str, usize> = Default::default();
    for case in &summary.cases {
        match &case.outcome {
            Outcome::Failed(reason) => println!("FAIL {} {}: {reason}", case.file, case.name),
            Outcome::Skipped(reason) => *skips.entry(reason.as_str()).or_default() += 1,
            Outcome::Passed => {}
        }
    }
    for (reason, n) in skips {
        println!("skipped {n}: {reason}");
    }
    println!(
        "{} files, {:.1} s, {:.0} cases/s; {} rejections for another rule than the fixture names",
        summary.files,
        summary.wall_s,
        summary.cases_per_s(),
        summary.exception_mismatches()
    );
    let (mut valid, mut invalid, mut none) = (0, 0, 0);
    for block in summary.cases.iter().flat_map(|c| &c.blocks) {
        match block.standard {
            Some(true) => valid += 1,
            Some(false) => invalid += 1,
            None => none += 1,
        }
    }
    println!(
        "standard input (EIP-8025), natively: {valid} blocks true, {invalid} false, each as the block guest says; {none} blocks without one"
    );
    println!(
        "{} passed, {} failed, {} skipped",
        summary.passed, summary.failed, summary.skipped
    );
}

/// The VM sample: each case, every disagreement, the closing line.
pub fn print_ef_vm_sample(sample: &VmSample) {
    for case in &sample.cases {
        println!(
            "  {} {} ({} blocks)",
            case.file.display(),
            case.name,
            case.blocks
        );
    }
    for failure in &sample.failures {
        println!("FAIL {failure}");
    }
    for line in &sample.over_budget {
        println!("OVER BUDGET {line} reached, stopped");
    }
    println!(
        "in the VM: {} valid blocks with the native public values, {} rejected blocks rejected, {:.1} s",
        sample.valid_blocks, sample.rejected_blocks, sample.wall_s
    );
    println!(
        "standard guest in the VM: the native result on {} blocks' inputs ({} of them false), the fixture's statelessOutputBytes on {} statelessInputBytes",
        sample.standard_blocks, sample.standard_false, sample.fixture_outputs
    );
    println!(
        "{} passed, {} failed, {} over budget",
        sample.cases.len() - sample.cases_failed - sample.cases_over_budget,
        sample.cases_failed,
        sample.cases_over_budget
    );
}

/// Prints how a block was fetched (`host fetch`, or `host run --rpc-url` on a missing block).
pub fn print_fetched(data: &chaindata::blocks::BlockData, fetched: &FetchReport) {
    let via = match fetched.source {
        BlockSource::RawBlock => "debug_getRawBlock",
        BlockSource::FullBlock => "eth_getBlockByNumber (re-encoded)",
    };
    let (out, w) = (&fetched.output, &data.witness);
    println!(
        "fetched block {} ({}) via {via}: {} transactions, {} gas",
        data.id, out.block_hash, out.tx_count, out.gas_used
    );
    match &fetched.witness.1 {
        Some(stats) => println!(
            "  witness from proofs (eth_getProof): {} accounts, {} slots, {} deleted; {} requests ({} batches), {} bytes of nodes, codes and headers",
            stats.accounts, stats.slots, stats.deleted, stats.requests, stats.batches, stats.bytes
        ),
        None => println!("  witness from debug_executionWitness"),
    }
    println!(
        "  witness: {} nodes, {} codes, {} headers; VALID natively",
        w.state.len(),
        w.codes.len(),
        w.headers.len()
    );
    println!(
        "  wrote {} and {}",
        fetched.paths.0.display(),
        fetched.paths.1.display()
    );
}
