//! What the `host` commands print.

use std::process::ExitCode;

use host::inspect::{RootSource, WitnessReport};
use host::report::RunReport;
use host::run::NativeRun;
use program::{PublicValues, Verdict};

/// Prints a native run's verdict; returns its exit status (0 valid, 1 invalid, 2 unusable,
/// 3 witness insufficient).
pub fn print_run(run: &NativeRun) -> ExitCode {
    let fork = run.fork().unwrap_or_else(|| "?".into());
    let verdict = Verdict::of(&run.verdict);
    match &run.verdict {
        Ok(out) => {
            println!("block {} VALID natively ({fork})", run.data.id);
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
            println!("block {} {word} ({fork}): {e}", run.data.id);
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

pub fn print_metered(report: &RunReport, segments: bool) {
    let (Some(insns), Some(cells), Some(memory), Some(segs)) = (
        report.instructions,
        report.main_cells,
        report.memory_bytes,
        report.segments,
    ) else {
        println!("  wall time        {:.2} s", report.wall_s);
        return;
    };
    println!("  instructions     {insns}");
    println!("  main cells       {cells}");
    println!("  memory bytes     {memory}");
    println!("  segments         {segs}");
    println!(
        "  wall time        {:.2} s ({:.1} M instructions/s)",
        report.wall_s,
        report.throughput.unwrap_or_default() / 1e6
    );
    if let (true, Some(stats)) = (segments, &report.segment_stats) {
        println!("  | segment | instructions | main cells | memory bytes |");
        for (k, s) in stats.iter().enumerate() {
            println!(
                "  | {k} | {} | {} | {} |",
                s.instructions, s.main_cells, s.memory_bytes
            );
        }
    }
}

pub fn write_json(path: &std::path::Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    std::fs::write(path, serde_json::to_vec_pretty(value)?)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// One line per failed case, the skips by reason, then the closing line.
pub fn print_ef_failures(summary: &host::ef_tests::Summary) {
    use host::ef_tests::Outcome;
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
    println!(
        "{} passed, {} failed, {} skipped",
        summary.passed, summary.failed, summary.skipped
    );
}

/// The VM sample: each case, every disagreement, the closing line.
pub fn print_ef_vm_sample(sample: &host::ef_tests::vm::VmSample) {
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
    println!(
        "in the VM: {} valid blocks with the native public values, {} rejected blocks rejected, {:.1} s",
        sample.valid_blocks, sample.rejected_blocks, sample.wall_s
    );
    println!(
        "{} passed, {} failed",
        sample.cases.len().saturating_sub(sample.failures.len()),
        sample.failures.len()
    );
}
