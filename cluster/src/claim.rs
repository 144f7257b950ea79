//! Claiming a task: the reaping of tasks whose workers died on their last attempt, and the
//! claim itself (`FOR UPDATE SKIP LOCKED` with a lease, within the worker's and its machine's
//! memory).

use super::graph::Stage;
use super::queue::{fail_job, tx_err, Claim, Queue};
use super::ClusterError;

impl Queue {
    /// Fails the tasks whose lease expired on their last attempt (their worker died each
    /// time), and their jobs; returns how many.
    pub fn reap(&mut self) -> Result<u64, ClusterError> {
        let name = self.db.name();
        let e = tx_err(&name);
        let mut tx = self.db.client.transaction().map_err(&e)?;
        let rows = tx
            .query(
                "UPDATE cluster_tasks SET state = 'failed', finished = now(),
                     error = format('lease of worker %s expired on attempt %s of %s', worker, attempts, max_attempts)
                 WHERE state = 'running' AND lease_until < now() AND attempts >= max_attempts
                 RETURNING job, stage, layer, idx, error",
                &[],
            )
            .map_err(&e)?;
        for row in &rows {
            let (job, stage, layer, idx, error): (i64, String, i32, i32, String) =
                (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
            fail_job(
                &mut tx,
                job,
                &format!("task {stage} {layer}/{idx}: {error}"),
            )
            .map_err(&e)?;
        }
        tx.commit().map_err(&e)?;
        Ok(rows.len() as u64)
    }

    /// Claims the first ready task (or one whose lease expired) of `jobs` that fits in
    /// `max_memory_mib` and in what the machine's budget has left: aggregation before
    /// segments, deeper layers first.
    ///
    /// The machine's budget is shared by every worker that claims under the same machine name.
    /// Its claims serialise on an advisory lock of that name, taken in the claim's
    /// transaction: two workers of one machine never both see the same memory free. A task
    /// whose lease expired (its worker died) no longer counts.
    ///
    /// Times are `clock_timestamp()`, not `now()`: `now()` is when the transaction began,
    /// before the wait for the lock, so a task claimed after another of its machine finished
    /// would be recorded as started before that one's end, and its lease would be short by
    /// the wait.
    pub fn claim(
        &mut self,
        jobs: &[i64],
        max_memory_mib: i64,
    ) -> Result<Option<Claim>, ClusterError> {
        let lease = self.lease.as_secs_f64();
        let name = self.db.name();
        let e = tx_err(&name);
        let mut tx = self.db.client.transaction().map_err(&e)?;
        let mut fits = max_memory_mib;
        if let Some(budget) = self.machine_memory_mib {
            tx.execute(
                "SELECT pg_advisory_xact_lock(7452020, hashtext($1))",
                &[&self.machine],
            )
            .map_err(&e)?;
            let used: i64 = tx
                .query_one(
                    "SELECT coalesce(sum(memory_mib), 0)::BIGINT FROM cluster_tasks
                     WHERE state = 'running' AND machine = $1 AND lease_until >= clock_timestamp()",
                    &[&self.machine],
                )
                .map_err(&e)?
                .get(0);
            fits = fits.min(budget - used);
        }
        let row = tx
            .query_opt(
                "UPDATE cluster_tasks SET state = 'running', attempts = attempts + 1, worker = $1,
                     lease_until = clock_timestamp() + make_interval(secs => $2), started = clock_timestamp(),
                     finished = NULL,
                     machine = $5
                 WHERE id = (
                     SELECT t.id FROM cluster_tasks t JOIN cluster_jobs j ON j.id = t.job
                     WHERE j.state = 'running' AND t.job = ANY($3) AND t.memory_mib <= $4
                       AND (t.state = 'ready'
                            OR (t.state = 'running' AND t.lease_until < clock_timestamp() AND t.attempts < t.max_attempts))
                     ORDER BY t.job, t.stage = 'segments', t.layer DESC, t.idx
                     LIMIT 1 FOR UPDATE OF t SKIP LOCKED)
                 RETURNING id, job, stage, layer, idx, work::text, attempts",
                &[&self.worker, &lease, &jobs, &fits, &self.machine],
            )
            .map_err(&e)?;
        tx.commit().map_err(&e)?;
        let Some(row) = row else { return Ok(None) };
        let stage: String = row.get(2);
        let work: String = row.get(5);
        Ok(Some(Claim {
            task: row.get(0),
            job: row.get(1),
            stage: Stage::from_name(&stage)
                .ok_or_else(|| ClusterError::Corrupt(format!("unknown stage `{stage}`")))?,
            layer: row.get(3),
            index: row.get(4),
            work: serde_json::from_str(&work)
                .map_err(|e| ClusterError::Corrupt(format!("task work `{work}`: {e}")))?,
            attempt: row.get(6),
        }))
    }
}
