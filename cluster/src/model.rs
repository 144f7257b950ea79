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
        for (_, task) in finished {
            done += 1;
            for &d in &dependents[task] {
                waiting[d] -= 1;
                if waiting[d] == 0 {
                    ready.push(d);
                }
            }
        }
    }
    let busy: f64 = seconds.iter().sum();
    Schedule {
        workers,
        makespan: now,
        utilisation: busy / (now * workers as f64),
    }
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
        let mut last = f64::INFINITY;
        for workers in [1, 2, 4, 8, 16, 43] {
            let s = schedule(&plan, &seconds, workers);
            assert!(s.makespan <= last + 1e-6 && s.makespan >= path - 1e-6);
            last = s.makespan;
        }
    }
}
