//! Proofs: what proving cost, what was written, and verdicts of verification.

use std::process::ExitCode;

use program::PublicValues;

use super::print_public_values;
use prover::proof::{ProofFile, ProofKind, ProveReport};

/// Prints what proving cost (`host prove`, a part or a join): per segment, per aggregation
/// stage, the keys, peak memory.
pub fn print_prove_report(report: &ProveReport) {
    let times = &report.segment_times;
    if !times.is_empty() {
        println!(
            "  execution        {:.1} s (metered run and replay)",
            report.execution.as_secs_f64()
        );
        let sum: f64 = times.iter().map(|t| t.as_secs_f64()).sum();
        let max = times.iter().map(|t| t.as_secs_f64()).fold(0.0, f64::max);
        println!(
            "  app segments     {} proved in {sum:.1} s (slowest {max:.1} s)",
            times.len()
        );
    }
    if let Some(agg) = &report.aggregation {
        println!(
            "  aggregation      leaf {:.1} s, internal {:.1} s ({} final wrap(s))",
            agg.leaf.as_secs_f64(),
            agg.internal.as_secs_f64(),
            agg.wraps
        );
        if let Some(bits) = &agg.security {
            println!(
                "  security         {:.1} bits (app {:.1}, leaf {:.1}, internal-for-leaf {:.1}, internal-recursive {:.1}; OpenVM's calculator)",
                bits.min(),
                bits.app,
                bits.leaf,
                bits.internal_for_leaf,
                bits.internal_recursive
            );
        }
    }
    if let Some(projection) = crate::proving::projection_of(report) {
        print_projection(&projection);
    }
    if let Some(keys) = &report.keys {
        println!(
            "  aggregation keys {} ({} KB, {})",
            keys.path.display(),
            keys.bytes / 1000,
            keys_origin(keys)
        );
    }
    println!("  total            {:.1} s", report.total.as_secs_f64());
    if let Some(rss) = report.peak_rss {
        println!(
            "  peak memory      {:.2} GB (process peak RSS)",
            rss as f64 / 1e9
        );
    }
}

/// Where aggregation keys came from: `generated in N s`, or `cached`.
pub fn keys_origin(keys: &prover::proof::KeysSource) -> String {
    keys.generated.map_or_else(
        || "cached".to_owned(),
        |t| format!("generated in {:.1} s", t.as_secs_f64()),
    )
}

/// Prints a projection, labelled as one: it was not measured on that many devices.
pub fn print_projection(projection: &crate::proving::Projection) {
    println!(
        "  projection       (not measured: this run's cluster task graph on N devices like this one, from the times measured above; no transfers, no replay; critical path {:.1} s)",
        projection.critical_path_s
    );
    for s in &projection.schedules {
        let levels: Vec<String> = s
            .levels
            .iter()
            .map(|(name, at)| format!("{name} {at:.1}"))
            .collect();
        println!(
            "    {:>2} device(s)  {:.1} s ({:.0}% busy); levels done at: {}",
            s.workers,
            s.makespan,
            s.utilisation * 100.0,
            levels.join(", ")
        );
    }
}

/// Prints a proof written by `host prove`.
pub fn print_proved(block: &str, file: &ProofFile, out: &std::path::Path, report: &ProveReport) {
    let size = std::fs::metadata(out).map_or(0, |m| m.len());
    println!(
        "proved block {block}: {}, {size} bytes -> {}",
        proof_summary(file),
        out.display()
    );
    print_prove_report(report);
    if let Some(values) = PublicValues::from_bytes(&file.public_values) {
        println!("  public values (in the proof file):");
        print_public_values(&values, None);
    }
}

fn proof_summary(file: &ProofFile) -> String {
    let kind = match file.proof.kind() {
        ProofKind::Stark => "one aggregated STARK",
        ProofKind::App => "app proof, one STARK per segment",
    };
    // A bare proof (`host serve`'s download) does not record its segments.
    let segments = match file.segments {
        0 => String::new(),
        n => format!("{n} segment(s), "),
    };
    format!(
        "{} {}, {segments}{kind}",
        file.subject.bin,
        file.subject.keccak.name(),
    )
}

/// Prints a proof's verification (`host verify`): `VALID` with what it proves (`show`), or
/// `INVALID` with why; returns the exit status.
pub fn print_verified<T>(
    path: &std::path::Path,
    file: &ProofFile,
    verdict: &Result<T, String>,
    show: impl FnOnce(&T),
) -> ExitCode {
    match verdict {
        Ok(proved) => {
            println!("proof {} VALID ({})", path.display(), proof_summary(file));
            show(proved);
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("proof {} INVALID: {e}", path.display());
            ExitCode::from(1)
        }
    }
}
