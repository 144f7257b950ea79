//! The queue's rules, each one SQL transaction: claim ([`super::claim`]), heartbeat, complete,
//! fail, and send back a task whose artifact was refused.
//!
//! A claim is the pair (task, attempt): the row's `worker` and `attempts` at the claim. Every
//! later write checks both under the row lock, so a worker whose lease expired and whose task
//! was claimed again (or finished) by another changes nothing when it comes back: its
//! completion is [`Outcome::Late`]. A task becomes ready when its `waiting` count of
//! unfinished dependencies reaches zero; completing a task decrements its dependents' counts in
//! the transaction that marks it done, so two dependencies finishing at once never both miss
//! the release (the row lock serialises the decrements).

use std::time::Duration;

use postgres::GenericClient;

use super::graph::{Stage, Work};
use super::{ClusterError, Db, CHANNEL};

/// A claimed task.
#[derive(Debug, Clone)]
pub struct Claim {
    /// The task's id.
    pub task: i64,
    /// Its job.
    pub job: i64,
    /// Its stage, layer and index.
    pub stage: Stage,
    /// Its layer.
    pub layer: i32,
    /// Its index in the layer.
    pub index: i32,
    /// What to do.
    pub work: Work,
    /// This attempt's number (1 for the first).
    pub attempt: i32,
}

impl Claim {
    /// `leaves 0/3`-style name.
    pub fn name(&self) -> String {
        format!(
            "job {} {} {}/{}",
            self.job,
            self.stage.name(),
            self.layer,
            self.index
        )
    }
}

/// A dependency's artifact as a consumer reads it.
#[derive(Debug)]
pub struct Input {
    /// The producing task.
    pub task: i64,
    /// What it did.
    pub work: Work,
    /// The keccak its producer recorded when it completed.
    pub recorded_hash: Option<Vec<u8>>,
    /// The artifact's bytes, when stored.
    pub bytes: Option<Vec<u8>>,
}

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Applied.
    Applied,
    /// The task goes back to the queue for another attempt.
    Retry,
    /// The task failed its last attempt: the job is failed.
    JobFailed,
    /// The claim was no longer this worker's (lease expired, task redone): nothing changed.
    Late,
}

/// A worker's handle on the queue.
pub struct Queue {
    /// The connection.
    pub db: Db,
    /// This worker's name, as recorded on the tasks it claims.
    pub worker: String,
    /// How long a claim holds without a heartbeat.
    pub lease: Duration,
    /// The machine this worker runs on, as recorded on its claims.
    pub machine: String,
    /// The memory, MiB, that the running tasks of every worker on `machine` may need together;
    /// `None`: no shared budget.
    pub machine_memory_mib: Option<i64>,
}

/// Wraps a PostgreSQL error of a transaction on the database named `db_name` (redacted).
pub fn tx_err(db_name: &str) -> impl Fn(postgres::Error) -> ClusterError + '_ {
    move |source| ClusterError::Db {
        url: db_name.to_owned(),
        source,
    }
}

impl Queue {
    /// Records this worker as seen now (`host serve`'s readiness counts the workers seen).
    pub fn seen(&mut self) -> Result<(), ClusterError> {
        self.db
            .client
            .execute(
                "INSERT INTO cluster_workers (name, machine) VALUES ($1, $2)
                 ON CONFLICT (name) DO UPDATE SET machine = EXCLUDED.machine, seen = now()",
                &[&self.worker, &self.machine],
            )
            .map_err(|e| self.db.err(e))?;
        Ok(())
    }

    /// The dependencies' artifacts of `claim`, in the order the task uses them.
    pub fn inputs(&mut self, claim: &Claim) -> Result<Vec<Input>, ClusterError> {
        let rows = self
            .db
            .client
            .query(
                "SELECT d.dep, t.work::text, t.output_hash, a.bytes
                 FROM cluster_deps d JOIN cluster_tasks t ON t.id = d.dep
                 LEFT JOIN cluster_artifacts a ON a.task = d.dep
                 WHERE d.task = $1 ORDER BY d.pos",
                &[&claim.task],
            )
            .map_err(|e| self.db.err(e))?;
        rows.iter()
            .map(|row| {
                let work: String = row.get(1);
                Ok(Input {
                    task: row.get(0),
                    work: serde_json::from_str(&work)
                        .map_err(|e| ClusterError::Corrupt(format!("task work `{work}`: {e}")))?,
                    recorded_hash: row.get(2),
                    bytes: row.get(3),
                })
            })
            .collect()
    }

    /// Runs `write` in one transaction on `claim`'s locked row while it is still this worker's
    /// (else [`Outcome::Late`], nothing written), then notifies the listeners and commits.
    fn owned(
        &mut self,
        claim: &Claim,
        write: impl FnOnce(&mut postgres::Transaction<'_>) -> Result<Outcome, postgres::Error>,
    ) -> Result<Outcome, ClusterError> {
        let name = self.db.name();
        let e = tx_err(&name);
        let mut tx = self.db.client.transaction().map_err(&e)?;
        if !still_mine(&mut tx, claim, &self.worker).map_err(&e)? {
            return Ok(Outcome::Late);
        }
        let outcome = write(&mut tx).map_err(&e)?;
        notify(&mut tx, claim.job).map_err(&e)?;
        tx.commit().map_err(&e)?;
        Ok(outcome)
    }

    /// Stores `claim`'s artifact with its keccak, marks the task done and releases the tasks
    /// waiting on it, in one transaction; the wrap's completion finishes the job.
    pub fn complete(
        &mut self,
        claim: &Claim,
        artifact: &[u8],
        seconds: f64,
        peak_rss: Option<u64>,
        detail: &str,
    ) -> Result<Outcome, ClusterError> {
        self.owned(claim, |tx| {
            let hash = super::artifact_hash(artifact);
            tx.execute(
                "INSERT INTO cluster_artifacts (task, hash, bytes) VALUES ($1, $2, $3)
                 ON CONFLICT (task) DO UPDATE SET hash = EXCLUDED.hash, bytes = EXCLUDED.bytes",
                &[&claim.task, &hash, &artifact],
            )
            ?;
            let rss = peak_rss.map(|b| b as i64);
            tx.execute(
                "UPDATE cluster_tasks SET state = 'done', finished = now(), seconds = $2, peak_rss = $3,
                     detail = $4, output_hash = $5, lease_until = NULL, error = NULL
                 WHERE id = $1",
                &[&claim.task, &seconds, &rss, &detail, &hash],
            )
            ?;
            tx.execute(
                "UPDATE cluster_tasks SET waiting = waiting - 1,
                     state = CASE WHEN waiting = 1 THEN 'ready' ELSE state END
                 WHERE state = 'blocked' AND id IN (SELECT task FROM cluster_deps WHERE dep = $1)",
                &[&claim.task],
            )
            ?;
            if claim.stage == Stage::Wrap || job_all_done(tx, claim.job)? {
                tx.execute(
                    "UPDATE cluster_jobs SET state = 'done', finished = now()
                     WHERE id = $1 AND state = 'running'",
                    &[&claim.job],
                )
                ?;
            }
            Ok(Outcome::Applied)
        })
    }

    /// Records that `claim`'s attempt failed with `error`: back to the queue while attempts
    /// remain, else the task and its job are failed with the error kept.
    pub fn fail(&mut self, claim: &Claim, error: &str) -> Result<Outcome, ClusterError> {
        self.owned(claim, |tx| {
            let row = tx.query_one(
                "UPDATE cluster_tasks SET
                         state = CASE WHEN attempts < max_attempts THEN 'ready' ELSE 'failed' END,
                         finished = CASE WHEN attempts < max_attempts THEN NULL ELSE now() END,
                         worker = CASE WHEN attempts < max_attempts THEN NULL ELSE worker END,
                         lease_until = NULL, error = $2
                     WHERE id = $1 RETURNING state, attempts",
                &[&claim.task, &error],
            )?;
            let state: String = row.get(0);
            let attempts: i32 = row.get(1);
            let outcome = if state == "failed" {
                let why = format!(
                    "task {} {}/{} failed on attempt {attempts}: {error}",
                    claim.stage.name(),
                    claim.layer,
                    claim.index
                );
                fail_job(tx, claim.job, &why)?;
                Outcome::JobFailed
            } else {
                Outcome::Retry
            };
            Ok(outcome)
        })
    }

    /// `claim` refused the artifact of its dependency `producer` (`why`): the producer goes
    /// back to the queue (its artifact deleted), and every task waiting on it, `claim`'s
    /// included, waits again without being charged an attempt. A producer that has used its
    /// attempts fails the job.
    pub fn refuse_artifact(
        &mut self,
        claim: &Claim,
        producer: i64,
        why: &str,
    ) -> Result<Outcome, ClusterError> {
        self.owned(claim, |tx| {
            let row = tx
                .query_one(
                    "SELECT state, attempts, max_attempts, stage, layer, idx FROM cluster_tasks
                     WHERE id = $1 FOR UPDATE",
                    &[&producer],
                )
                ?;
            let (state, attempts, max_attempts): (String, i32, i32) =
                (row.get(0), row.get(1), row.get(2));
            let producer_name = format!(
                "{} {}/{}",
                row.get::<_, String>(3),
                row.get::<_, i32>(4),
                row.get::<_, i32>(5)
            );
            let error = format!(
                "its artifact was refused by task {} {}/{}: {why}",
                claim.stage.name(),
                claim.layer,
                claim.index
            );
            let outcome = if attempts >= max_attempts {
                tx.execute(
                    "UPDATE cluster_tasks SET state = 'failed', error = $2, finished = now() WHERE id = $1",
                    &[&producer, &error],
                )
                ?;
                tx.execute(
                    "UPDATE cluster_tasks SET state = 'failed', lease_until = NULL, error = $2 WHERE id = $1",
                    &[&claim.task, &format!("input {producer_name} refused: {why}")],
                )
                ?;
                fail_job(
                    tx,
                    claim.job,
                    &format!("task {producer_name} failed on attempt {attempts}: {error}"),
                )
                ?;
                Outcome::JobFailed
            } else {
                if state == "done" {
                    tx.execute(
                        "UPDATE cluster_tasks SET state = 'ready', worker = NULL, finished = NULL,
                             output_hash = NULL, error = $2
                         WHERE id = $1",
                        &[&producer, &error],
                    )
                    ?;
                    tx.execute(
                        "DELETE FROM cluster_artifacts WHERE task = $1",
                        &[&producer],
                    )
                    ?;
                    tx.execute(
                        "UPDATE cluster_tasks SET waiting = waiting + 1, state = 'blocked', lease_until = NULL,
                             attempts = CASE WHEN id = $2 THEN attempts - 1 ELSE attempts END
                         WHERE state IN ('ready', 'running', 'blocked')
                           AND id IN (SELECT task FROM cluster_deps WHERE dep = $1)",
                        &[&producer, &claim.task],
                    )
                    ?;
                }
                Outcome::Retry
            };
            Ok(outcome)
        })
    }
}

/// Extends `claim`'s lease on `db` (the heartbeat's own connection); false once the claim is no
/// longer this worker's.
pub fn heartbeat(
    db: &mut Db,
    claim: &Claim,
    worker: &str,
    lease: Duration,
) -> Result<bool, ClusterError> {
    let n = db
        .client
        .execute(
            "UPDATE cluster_tasks SET lease_until = now() + make_interval(secs => $4)
             WHERE id = $1 AND worker = $2 AND attempts = $3 AND state = 'running'",
            &[&claim.task, &worker, &claim.attempt, &lease.as_secs_f64()],
        )
        .map_err(|e| db.err(e))?;
    // A worker busy proving is still a worker.
    db.client
        .execute(
            "UPDATE cluster_workers SET seen = now() WHERE name = $1",
            &[&worker],
        )
        .map_err(|e| db.err(e))?;
    Ok(n == 1)
}

/// Locks `claim`'s row; whether it is still running under this worker and attempt.
fn still_mine(
    tx: &mut impl GenericClient,
    claim: &Claim,
    worker: &str,
) -> Result<bool, postgres::Error> {
    let row = tx.query_opt(
        "SELECT state = 'running' AND worker = $2 AND attempts = $3
         FROM cluster_tasks WHERE id = $1 FOR UPDATE",
        &[&claim.task, &worker, &claim.attempt],
    )?;
    Ok(row.is_some_and(|r| r.get::<_, Option<bool>>(0) == Some(true)))
}

/// Whether every task of `job` is done (a probe job has no wrap).
fn job_all_done(tx: &mut impl GenericClient, job: i64) -> Result<bool, postgres::Error> {
    let row = tx.query_one(
        "SELECT NOT EXISTS (SELECT 1 FROM cluster_tasks WHERE job = $1 AND state <> 'done')",
        &[&job],
    )?;
    Ok(row.get(0))
}

/// Marks `job` failed with `error` (the first error is kept).
pub(super) fn fail_job(
    tx: &mut impl GenericClient,
    job: i64,
    error: &str,
) -> Result<(), postgres::Error> {
    tx.execute(
        "UPDATE cluster_jobs SET state = 'failed', error = $2, finished = now()
         WHERE id = $1 AND state = 'running'",
        &[&job, &error],
    )?;
    Ok(())
}

/// Cancels `job` (in the caller's transaction): every task of it not done fails, so none is
/// claimed again and none stays claimed, and the job fails with `why` (a job that already
/// failed keeps its error; its tasks still running, the drain of a failure, fail too). A
/// worker still proving one of them finds its claim gone ([`still_mine`]): its result is
/// dropped as late, and its heartbeat stops. Rows are locked in the order a worker's
/// completion locks them (tasks by id, then the job), so the two never deadlock. Whether
/// anything changed.
pub fn cancel_job(
    tx: &mut impl GenericClient,
    job: i64,
    why: &str,
) -> Result<bool, postgres::Error> {
    tx.execute(
        "SELECT id FROM cluster_tasks WHERE job = $1 AND state <> 'done' ORDER BY id FOR UPDATE",
        &[&job],
    )?;
    let tasks = tx.execute(
        "UPDATE cluster_tasks SET state = 'failed', lease_until = NULL, finished = now(), error = $2
         WHERE job = $1 AND state <> 'done' AND state <> 'failed'",
        &[&job, &why],
    )?;
    let running = tx.execute(
        "UPDATE cluster_jobs SET state = 'failed', error = $2, finished = now()
         WHERE id = $1 AND state = 'running'",
        &[&job, &why],
    )?;
    if tasks + running > 0 {
        notify(tx, job)?;
    }
    Ok(tasks + running > 0)
}

/// Wakes the workers and waiters listening on [`CHANNEL`].
pub fn notify(tx: &mut impl GenericClient, job: i64) -> Result<(), postgres::Error> {
    tx.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &job.to_string()])?;
    Ok(())
}
