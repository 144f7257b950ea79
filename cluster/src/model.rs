//! `host cluster plan`: the wall time of a job on N workers, by the scheduler's own rule.
//!
//! Workers take ready tasks in the order the queue hands them out ([`super::queue`]'s claim:
//! aggregation before segments, deeper layers first, then by index); the model replays that
//! with each task's duration, measured (a job's finished tasks) or given per kind. The
//! critical path is the longest chain of dependent tasks: no number of workers beats it.

use super::graph::{Stage, TaskPlan};

/// A modelled schedule.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Schedule {
    /// Workers.
    pub workers: usize,
    /// Wall time, seconds.
    pub makespan: f64,
    /// Worker-seconds busy over worker-seconds available.
    pub utilisation: f64,
    /// When each level of the graph is done, in order: the segments, the leaves, each
    /// internal layer, the wrap ([`level_name`]).
    pub levels: Vec<(String, f64)>,
}

/// The level a task is of, as [`Schedule::levels`] names it.
pub fn level_name(task: &TaskPlan) -> String {
    match task.stage {
        Stage::Internal => format!("internal {}", task.layer),
        stage => stage.name().to_owned(),
    }
}

/// The queue's order between two ready tasks (lower first).
fn priority(task: &TaskPlan, index: usize) -> (bool, std::cmp::Reverse<usize>, usize, usize) {
    (
        task.stage == Stage::Segments,
        std::cmp::Reverse(stage_depth(task)),
        task.index,
        index,
    )
}

/// Layers above the segments, so that "deeper first" orders leaves, internal layers, wrap.
fn stage_depth(task: &TaskPlan) -> usize {
    match task.stage {
        Stage::Segments => 0,
        Stage::Leaves => 1,
        Stage::Internal => 2 + task.layer,
        Stage::Wrap => 1000,
        Stage::Probe => task.layer,
    }
}

/// The longest chain of `plan` under `seconds` (per task).
pub fn critical_path(plan: &[TaskPlan], seconds: &[f64]) -> f64 {
    let mut finish = vec![0.0f64; plan.len()];
    for (i, task) in plan.iter().enumerate() {
        let start = task.deps.iter().map(|&d| finish[d]).fold(0.0, f64::max);
        finish[i] = start + seconds[i];
    }
    finish.into_iter().fold(0.0, f64::max)
}

/// List scheduling of `plan` on `workers` workers, as the queue hands out tasks.
pub fn schedule(plan: &[TaskPlan], seconds: &[f64], workers: usize) -> Schedule {
    assert!(workers > 0 && plan.len() == seconds.len());
    let mut waiting: Vec<usize> = plan.iter().map(|t| t.deps.len()).collect();
    let mut dependents = vec![Vec::new(); plan.len()];
    for (i, task) in plan.iter().enumerate() {
        for &d in &task.deps {
            dependents[d].push(i);
        }
    }
    let mut ready: Vec<usize> = (0..plan.len()).filter(|&i| waiting[i] == 0).collect();
    // (finish time, task) of running tasks.
    let mut running: Vec<(f64, usize)> = Vec::new();
    let mut now = 0.0f64;
    let mut done = 0;
    let mut finish = vec![0.0f64; plan.len()];
    while done < plan.len() {
        ready.sort_by_key(|&i| priority(&plan[i], i));
        while running.len() < workers && !ready.is_empty() {
            let task = ready.remove(0);
            running.push((now + seconds[task], task));
        }
        // The next completion (ties: all of them).
        let next = running
            .iter()
            .map(|&(t, _)| t)
            .fold(f64::INFINITY, f64::min);
        now = next;
        let (finished, still): (Vec<_>, Vec<_>) = running.into_iter().partition(|&(t, _)| t <= now);
        running = still;
        for (at, task) in finished {
            done += 1;
            finish[task] = at;
            for &d in &dependents[task] {
                waiting[d] -= 1;
                if waiting[d] == 0 {
                    ready.push(d);
                }
            }
        }
    }
    let busy: f64 = seconds.iter().sum();
    let mut levels: Vec<(String, f64)> = Vec::new();
    for (task, at) in plan.iter().zip(&finish) {
        let name = level_name(task);
        match levels.iter_mut().find(|(n, _)| *n == name) {
            Some((_, done)) => *done = done.max(*at),
            None => levels.push((name, *at)),
        }
    }
    Schedule {
        workers,
        makespan: now,
        utilisation: busy / (now * workers as f64),
        levels,
    }
}

/// The layer OpenVM's `prove_vm` names a tree task's node by (its `agg_layer` group): `leaf`,
/// `internal_for_leaf`, then `internal_recursive.N`; `None` for a task that is no tree node.
pub fn openvm_layer(task: &TaskPlan) -> Option<String> {
    match task.stage {
        Stage::Leaves => Some("leaf".to_owned()),
        Stage::Internal if task.layer == 0 => Some("internal_for_leaf".to_owned()),
        Stage::Internal => Some(format!("internal_recursive.{}", task.layer - 1)),
        _ => None,
    }
}

/// Per-task seconds for `plan` from one process's measured times: `segments[i]` for segment
/// `i` (one segment a task), and the aggregation nodes (OpenVM's layer name, seconds) as that
/// process proved them, the tree layer by layer (`prove_vm` chunks each layer as
/// [`super::graph::plan`] does), then the final wraps (`internal_recursive.*`), which are the
/// plan's one wrap task. Fails when a node is not of the layer the graph puts it in, or the
/// counts disagree: a tree of another shape gives no times, not wrong ones.
pub fn measured_seconds(
    plan: &[TaskPlan],
    segments: &[f64],
    nodes: &[(String, f64)],
) -> Result<Vec<f64>, String> {
    let mut nodes = nodes.iter();
    let mut seconds = Vec::with_capacity(plan.len());
    for task in plan {
        seconds.push(match (&task.stage, &task.work) {
            (Stage::Segments, super::graph::Work::Segments { first, count }) => {
                let times = segments.get(*first..*first + *count).ok_or_else(|| {
                    format!("{} segment times for a graph of more", segments.len())
                })?;
                times.iter().sum()
            }
            (Stage::Leaves | Stage::Internal, _) => {
                let (layer, time) = nodes
                    .next()
                    .ok_or("fewer aggregation nodes measured than the graph has")?;
                let want = openvm_layer(task).unwrap_or_default();
                if *layer != want {
                    return Err(format!(
                        "a node of layer {layer} where the graph has {want}"
                    ));
                }
                *time
            }
            (Stage::Wrap, _) => {
                let wraps: Vec<&(String, f64)> = nodes.by_ref().collect();
                if wraps.is_empty() {
                    return Err("no wrap measured".to_owned());
                }
                if let Some((layer, _)) = wraps
                    .iter()
                    .find(|(l, _)| !l.starts_with("internal_recursive."))
                {
                    return Err(format!("a node of layer {layer} among the wraps"));
                }
                wraps.iter().map(|(_, t)| t).sum()
            }
            (stage, _) => return Err(format!("a {} task in a proof's graph", stage.name())),
        });
    }
    Ok(seconds)
}

/// Per-task seconds for `plan` from per-kind figures: `segments[i]` for segment task `i`
/// (cycled), `leaf`, `internal[layer]` (the last repeated for deeper layers) and `wrap`.
pub fn kind_seconds(
    plan: &[TaskPlan],
    segments: &[f64],
    leaf: f64,
    internal: &[f64],
    wrap: f64,
) -> Vec<f64> {
    plan.iter()
        .map(|task| match task.stage {
            Stage::Segments => segments[task.index % segments.len()],
            Stage::Leaves => leaf,
            Stage::Internal => internal[task.layer.min(internal.len() - 1)],
            Stage::Wrap => wrap,
            Stage::Probe => 0.0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{plan, TreeShape};

    #[test]
    fn one_worker_takes_the_sum_and_many_the_critical_path() {
        let plan = plan(43, TreeShape::openvm_default());
        let seconds = kind_seconds(&plan, &[100.0, 80.0], 365.0, &[145.0, 49.0, 39.0], 26.0);
        let sum: f64 = seconds.iter().sum();
        let one = schedule(&plan, &seconds, 1);
        assert!((one.makespan - sum).abs() < 1e-6 && (one.utilisation - 1.0).abs() < 1e-9);
        let path = critical_path(&plan, &seconds);
        assert!((path - (100.0 + 365.0 + 145.0 + 49.0 + 39.0 + 26.0)).abs() < 1e-6);
        let all = schedule(&plan, &seconds, 1000);
        assert!((all.makespan - path).abs() < 1e-6);
        let levels: Vec<&str> = all.levels.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            levels,
            [
                "segments",
                "leaves",
                "internal 0",
                "internal 1",
                "internal 2",
                "wrap"
            ]
        );
        assert!((all.levels[0].1 - 100.0).abs() < 1e-6);
        assert!((all.levels[5].1 - all.makespan).abs() < 1e-6);
        assert!(all.levels.windows(2).all(|w| w[0].1 <= w[1].1));
        let mut last = f64::INFINITY;
        for workers in [1, 2, 4, 8, 16, 43] {
            let s = schedule(&plan, &seconds, workers);
            assert!(s.makespan <= last + 1e-6 && s.makespan >= path - 1e-6);
            last = s.makespan;
        }
    }

    /// One process's measured times map onto the graph task by task: segments by index, the
    /// tree's nodes layer by layer, every wrap into the one wrap task; a count that disagrees
    /// is refused.
    #[test]
    fn measured_times_fill_the_graph_in_prove_vms_order() {
        let plan = plan(5, TreeShape::openvm_default());
        // 5 segments: 2 leaves, one internal-for-leaf node, one internal-recursive node, then
        // two wraps.
        let segments = [1.0, 2.0, 3.0, 4.0, 5.0];
        let nodes: Vec<(String, f64)> = [
            ("leaf", 10.0),
            ("leaf", 11.0),
            ("internal_for_leaf", 20.0),
            ("internal_recursive.0", 30.0),
            ("internal_recursive.1", 40.0),
            ("internal_recursive.2", 41.0),
        ]
        .iter()
        .map(|(l, t)| ((*l).to_owned(), *t))
        .collect();
        let seconds = measured_seconds(&plan, &segments, &nodes).unwrap();
        assert_eq!(seconds.len(), plan.len());
        assert_eq!(&seconds[..5], &segments);
        assert_eq!(&seconds[5..7], &[10.0, 11.0]);
        assert_eq!(*seconds.last().unwrap(), 40.0 + 41.0);
        let one = schedule(&plan, &seconds, 1);
        let sum = segments.iter().sum::<f64>() + nodes.iter().map(|n| n.1).sum::<f64>();
        assert!((one.makespan - sum).abs() < 1e-9);
        assert!(measured_seconds(&plan, &segments[..4], &nodes).is_err());
        // A node of another layer, in the tree or among the wraps.
        let mut other = nodes.clone();
        other[2].0 = "leaf".to_owned();
        assert!(measured_seconds(&plan, &segments, &other).is_err());
        other[2].0 = "internal_for_leaf".to_owned();
        other[5].0 = "leaf".to_owned();
        assert!(measured_seconds(&plan, &segments, &other).is_err());
        assert!(measured_seconds(&plan, &segments, &nodes[..3]).is_err());
    }
}
