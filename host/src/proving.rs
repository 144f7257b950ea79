//! What one proof cost, as `host prove --json` writes it, and what the same work would take on
//! more machines ([`Projection`]).
//!
//! The projection is labelled as one everywhere it is shown: it replays this project's cluster
//! task graph ([`cluster::graph::plan`], the queue's own order, [`cluster::model::schedule`])
//! with the per-segment and per-node times this one process measured, on N devices like this
//! one. It leaves out what a cluster adds (moving proofs between machines, the database, each
//! worker's replay to its first segment): a floor for N machines, not a measurement.

use std::path::Path;

use serde::Serialize;

use cluster::graph::plan;
use cluster::model::{measured_seconds, schedule, Schedule};
use cluster::TreeShape;
use prover::proof::{ProofFile, ProveReport};

/// The device counts a projection is shown for.
pub const PROJECTED_DEVICES: [usize; 3] = [1, 4, 16];

/// One proof's cost (`host prove --json`).
#[derive(Debug, Clone, Serialize)]
pub struct ProveSummary {
    /// What was proved (a block, or a stateless input's file).
    pub label: String,
    /// The guest.
    pub program: String,
    /// The prover: `gpu` (the `cuda` build) or `cpu`.
    pub backend: &'static str,
    /// Segments.
    pub segments: usize,
    /// log2 of a segment's maximum trace height.
    pub log_stacked_height: usize,
    /// The metered execution (and replay) before proving, seconds.
    pub execution_s: f64,
    /// Each segment's app proof, seconds, in order.
    pub segment_s: Vec<f64>,
    /// All segments' app proofs, seconds.
    pub app_s: f64,
    /// The aggregation (leaf, internal layers, wraps), seconds; 0 for an app proof.
    pub aggregation_s: f64,
    /// Each aggregation node: its layer and seconds, in the order proved.
    pub aggregation_nodes: Vec<(String, f64)>,
    /// Final wraps.
    pub wraps: u32,
    /// The aggregation keys' generation in this call, seconds (`None`: read from the cache).
    pub agg_keygen_s: Option<f64>,
    /// The whole call, seconds.
    pub total_s: f64,
    /// The process's peak resident memory, bytes.
    pub peak_rss: Option<u64>,
    /// The proof file's size, bytes.
    pub proof_bytes: u64,
    /// What this graph would take on more devices (aggregated proofs only).
    pub projection: Option<Projection>,
}

/// The cluster graph's wall time on N devices, from one process's measured times (module doc).
#[derive(Debug, Clone, Serialize)]
pub struct Projection {
    /// Always "projection": a reader of the JSON alone sees that it was not measured.
    pub kind: &'static str,
    /// The longest chain of dependent tasks, seconds: no device count beats it.
    pub critical_path_s: f64,
    /// One schedule per device count in [`PROJECTED_DEVICES`].
    pub schedules: Vec<Schedule>,
}

impl ProveSummary {
    /// The summary of the proof `file`, written to `out`, that `report` describes.
    pub fn new(label: &str, file: &ProofFile, out: &Path, report: &ProveReport) -> Self {
        let secs = |d: std::time::Duration| d.as_secs_f64();
        let segment_s = segment_seconds(report);
        let agg = report.aggregation.as_ref();
        let aggregation_nodes = agg.map(node_seconds).unwrap_or_default();
        let projection = projection_of(report);
        Self {
            label: label.to_owned(),
            program: file.subject.bin.clone(),
            backend: if cfg!(feature = "cuda") { "gpu" } else { "cpu" },
            segments: file.segments,
            log_stacked_height: file.subject.log_stacked_height,
            execution_s: secs(report.execution),
            app_s: segment_s.iter().sum(),
            segment_s,
            aggregation_s: agg.map_or(0.0, |a| secs(a.leaf + a.internal)),
            aggregation_nodes,
            wraps: agg.map_or(0, |a| a.wraps),
            agg_keygen_s: report
                .keys
                .as_ref()
                .and_then(|k| k.generated)
                .map(|t| t.as_secs_f64()),
            total_s: secs(report.total),
            peak_rss: report.peak_rss,
            proof_bytes: std::fs::metadata(out).map_or(0, |m| m.len()),
            projection,
        }
    }
}

/// Writes `host prove --json`'s summary of the proof `file` (written to `out`) to `json`,
/// where asked.
pub fn write_summary(
    json: Option<&Path>,
    label: &str,
    file: &ProofFile,
    out: &Path,
    report: &ProveReport,
) -> std::io::Result<()> {
    if let Some(path) = json {
        let summary = ProveSummary::new(label, file, out, report);
        let text = serde_json::to_string_pretty(&summary).map_err(std::io::Error::other)?;
        std::fs::write(path, text + "\n")
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    }
    Ok(())
}

/// The projection of an aggregated proof's run from what `report` measured ([`project`]).
pub fn projection_of(report: &ProveReport) -> Option<Projection> {
    let agg = report.aggregation.as_ref()?;
    project(&segment_seconds(report), &node_seconds(agg))
}

fn segment_seconds(report: &ProveReport) -> Vec<f64> {
    report
        .segment_times
        .iter()
        .map(|t| t.as_secs_f64())
        .collect()
}

fn node_seconds(agg: &prover::proof::AggTimes) -> Vec<(String, f64)> {
    agg.nodes
        .iter()
        .map(|(layer, t)| (layer.clone(), t.as_secs_f64()))
        .collect()
}

/// The projection of a run of `segment_s` segments whose aggregation nodes took `nodes`, or
/// `None` when the nodes do not fill the default tree ([`measured_seconds`]: a proof joined
/// from parts, a tree of another shape).
pub fn project(segment_s: &[f64], nodes: &[(String, f64)]) -> Option<Projection> {
    if segment_s.is_empty() {
        return None;
    }
    let plan = plan(segment_s.len(), TreeShape::openvm_default());
    let seconds = measured_seconds(&plan, segment_s, nodes).ok()?;
    Some(Projection {
        kind: "projection",
        critical_path_s: cluster::model::critical_path(&plan, &seconds),
        schedules: PROJECTED_DEVICES
            .iter()
            .map(|&n| schedule(&plan, &seconds, n))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Six segments and the nodes `prove_vm` and the wraps prove for them: one device takes
    /// the sum, more take less but never under the critical path, and the levels end in order.
    #[test]
    fn a_projection_spreads_the_measured_times_over_the_graph() {
        let segments = [4.0, 3.0, 3.0, 2.0, 2.0, 1.0];
        // 2 leaves, internal-for-leaf, internal-recursive, one wrap.
        let nodes: Vec<(String, f64)> = [
            ("leaf", 2.0),
            ("leaf", 1.5),
            ("internal_for_leaf", 1.0),
            ("internal_recursive.0", 0.8),
            ("internal_recursive.1", 0.7),
        ]
        .iter()
        .map(|(l, t)| ((*l).to_owned(), *t))
        .collect();
        let p = project(&segments, &nodes).expect("the nodes fill the tree");
        let sum: f64 = segments.iter().sum::<f64>() + nodes.iter().map(|n| n.1).sum::<f64>();
        assert_eq!(p.kind, "projection");
        assert!((p.schedules[0].makespan - sum).abs() < 1e-9);
        // 16 devices: every segment at once (4 s), the slower leaf (needs segments 0-3: 2 s),
        // then 1 + 0.8 + 0.7.
        assert!((p.critical_path_s - (4.0 + 2.0 + 1.0 + 0.8 + 0.7)).abs() < 1e-9);
        assert!((p.schedules[2].makespan - p.critical_path_s).abs() < 1e-9);
        assert!(p.schedules[1].makespan < p.schedules[0].makespan);
        // A node missing, or one of another layer: no projection rather than a wrong one.
        assert!(project(&segments, &nodes[..2]).is_none());
        let mut other = nodes.clone();
        other[2].0 = "leaf".to_owned();
        assert!(project(&segments, &other).is_none());
        assert!(project(&segments[..4], &nodes).is_none());
    }
}
