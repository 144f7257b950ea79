//! `host cluster worker`: claim, prove, store, repeat.
//!
//! The loop: fail the tasks whose workers died on their last attempt ([`Queue::reap`]); among
//! running jobs with claimable tasks, accept only those whose program commitment and VM config
//! are this worker's own build of their subject (a job of another build is left for others,
//! and said once); claim one task that fits `--max-memory-mib`; run it while a second
//! connection heartbeats its lease; store the result or the failure. With nothing to claim it
//! sleeps on `LISTEN` (every state change is notified) or a short poll, which also catches
//! expired leases. A lost connection (the server restarted) is reopened patiently and the step
//! retried; a finished artifact is kept in memory until it is stored.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::heartbeat::{reset_peak_rss, Heartbeat};
use super::queue::{Claim, Outcome};
use super::submit::load_job;
use super::task::{Job, TaskError, PROBE_COMMIT};
use super::work::{self, Build};
use postgres::fallible_iterator::FallibleIterator;

use super::{ClusterError, Db, Queue, CHANNEL};
use prover::proof::{peak_rss, Subject};

/// How a worker runs.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The database.
    pub url: String,
    /// Run one task (or none, when none is ready) and exit.
    pub once: bool,
    /// Claim only tasks that need at most this much memory, MiB.
    pub max_memory_mib: i64,
    /// The machine this worker runs on (its budget's name).
    pub machine: String,
    /// What the running tasks of every worker on `machine` may need together, MiB.
    pub machine_memory_mib: Option<i64>,
    /// A claim's lease without heartbeat.
    pub lease: Duration,
    /// This worker's name in the tasks it claims.
    pub name: String,
    /// How long an idle worker sleeps between checks when nothing is notified.
    pub poll: Duration,
    /// How long to wait for a lost database to come back before giving up.
    pub patience: Duration,
}

/// What a worker did.
#[derive(Debug, Default, Clone)]
pub struct WorkerReport {
    /// Tasks completed and stored.
    pub done: usize,
    /// Attempts that failed (retried or failing their job).
    pub failed: usize,
    /// Results dropped because the claim had passed to another worker.
    pub late: usize,
    /// Inputs refused, their producers sent back.
    pub refused_inputs: usize,
    /// Jobs refused as another build's, with why.
    pub refused_jobs: Vec<(i64, String)>,
}

/// This machine's name: its hostname.
pub fn machine_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_owned())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "worker".into())
}

/// This host's default worker name: `hostname:pid`.
pub fn default_name() -> String {
    format!("{}:{}", machine_name(), std::process::id())
}

struct Worker {
    options: WorkerOptions,
    queue: Option<Queue>,
    /// Per subject (as JSON): this worker's build, or why it has none.
    builds: HashMap<String, Result<Arc<Build>, String>>,
    /// Per job: accepted (its build's key) or refused.
    judged: HashMap<i64, Option<String>>,
    jobs: HashMap<i64, Job>,
    report: WorkerReport,
}

enum Step {
    Worked,
    Idle,
}

/// Runs the worker loop until stopped (or once).
pub fn run(options: WorkerOptions) -> Result<WorkerReport, ClusterError> {
    let once = options.once;
    let mut worker = Worker {
        options,
        queue: None,
        builds: HashMap::new(),
        judged: HashMap::new(),
        jobs: HashMap::new(),
        report: WorkerReport::default(),
    };
    let o = &worker.options;
    let budget = o
        .machine_memory_mib
        .map_or("no shared budget".to_owned(), |m| format!("{m} MiB shared"));
    eprintln!(
        "worker {}: tasks up to {} MiB; machine {}: {budget}",
        o.name, o.max_memory_mib, o.machine
    );
    loop {
        match worker.step() {
            Ok(Step::Worked) if once => break,
            Ok(Step::Worked) => {}
            Ok(Step::Idle) if once => {
                eprintln!("worker {}: no task to claim", worker.options.name);
                break;
            }
            Ok(Step::Idle) => worker.sleep(),
            Err(e) if e.is_connection() => {
                eprintln!("worker {}: {e}; reconnecting", worker.options.name);
                worker.queue = None;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(worker.report)
}

impl Worker {
    /// The queue, (re)connected and listening.
    fn queue(&mut self) -> Result<&mut Queue, ClusterError> {
        if self.queue.is_none() {
            let mut db = Db::connect_patiently(&self.options.url, self.options.patience)?;
            super::schema::check(&mut db)?;
            db.client
                .batch_execute(&format!("LISTEN {CHANNEL}"))
                .map_err(|e| db.err(e))?;
            self.queue = Some(Queue {
                db,
                worker: self.options.name.clone(),
                lease: self.options.lease,
                machine: self.options.machine.clone(),
                machine_memory_mib: self.options.machine_memory_mib,
            });
        }
        Ok(self.queue.as_mut().expect("connected"))
    }

    /// Sleeps until a notification or the poll interval.
    fn sleep(&mut self) {
        let poll = self.options.poll;
        match self.queue.as_mut() {
            Some(queue) => {
                let mut notifications = queue.db.client.notifications();
                let _ = notifications.timeout_iter(poll).next();
                // Drain what else arrived: one look at the queue serves them all.
                let _ = notifications.iter().count();
            }
            None => std::thread::sleep(poll),
        }
    }

    fn step(&mut self) -> Result<Step, ClusterError> {
        self.queue()?.seen()?;
        self.queue()?.reap()?;
        let candidates: Vec<i64> = {
            let queue = self.queue()?;
            let rows = queue
                .db
                .client
                .query(
                    "SELECT id FROM cluster_jobs j WHERE state = 'running' AND EXISTS (
                         SELECT 1 FROM cluster_tasks t WHERE t.job = j.id
                           AND (t.state = 'ready' OR (t.state = 'running' AND t.lease_until < now())))
                     ORDER BY id",
                    &[],
                )
                .map_err(|e| queue.db.err(e))?;
            rows.iter().map(|r| r.get(0)).collect()
        };
        let mut accepted = Vec::new();
        for job in candidates {
            if self.judge(job)?.is_some() {
                accepted.push(job);
            }
        }
        let max_memory = self.options.max_memory_mib;
        let Some(claim) = self.queue()?.claim(&accepted, max_memory)? else {
            return Ok(Step::Idle);
        };
        self.work(claim)?;
        Ok(Step::Worked)
    }

    /// Whether this worker takes `job`: `Some(build key)` when its commitment and VM config
    /// are this worker's own build's.
    fn judge(&mut self, id: i64) -> Result<Option<String>, ClusterError> {
        if let Some(verdict) = self.judged.get(&id) {
            return Ok(verdict.clone());
        }
        let job = match load_job(&mut self.queue()?.db, id) {
            Ok(job) => job,
            Err(ClusterError::Corrupt(why)) => {
                self.refuse(id, why);
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let (key, commit, config) = match &job.subject {
            None => (
                String::new(),
                PROBE_COMMIT.to_owned(),
                PROBE_COMMIT.to_owned(),
            ),
            Some(subject) => match self.build(subject) {
                Ok(build) => (
                    serde_json::to_string(subject).expect("a subject encodes"),
                    build.exe_commit.clone(),
                    build.vm_config.clone(),
                ),
                Err(why) => {
                    self.refuse(id, format!("this worker cannot build its guest: {why}"));
                    return Ok(None);
                }
            },
        };
        if job.exe_commit != commit || job.vm_config != config {
            let what = if job.exe_commit != commit {
                format!(
                    "program commitment {} is not this build's {commit}",
                    job.exe_commit
                )
            } else {
                format!("VM config {} is not this build's {config}", job.vm_config)
            };
            self.refuse(id, what);
            return Ok(None);
        }
        self.jobs.insert(id, job);
        self.judged.insert(id, Some(key.clone()));
        Ok(Some(key))
    }

    fn refuse(&mut self, job: i64, why: String) {
        eprintln!(
            "worker {}: refusing job {job} (left for others): {why}",
            self.options.name
        );
        self.judged.insert(job, None);
        self.report.refused_jobs.push((job, why));
    }

    /// This worker's build of `subject`, made once.
    fn build(&mut self, subject: &Subject) -> Result<Arc<Build>, String> {
        let key = serde_json::to_string(subject).expect("a subject encodes");
        self.builds
            .entry(key)
            .or_insert_with(|| {
                eprintln!(
                    "building {} ({}) and its keys ...",
                    subject.bin,
                    subject.keccak.name()
                );
                Build::new(subject).map(Arc::new).map_err(|e| e.to_string())
            })
            .clone()
    }

    fn work(&mut self, claim: Claim) -> Result<(), ClusterError> {
        let name = self.options.name.clone();
        eprintln!(
            "worker {name}: {} (attempt {}) ...",
            claim.name(),
            claim.attempt
        );
        let job = self
            .jobs
            .get(&claim.job)
            .cloned()
            .ok_or(ClusterError::NoJob(claim.job))?;
        let build = match self.judged.get(&claim.job).cloned().flatten() {
            Some(key) if !key.is_empty() => self.builds.get(&key).and_then(|b| b.clone().ok()),
            _ => None,
        };
        let inputs = self.queue()?.inputs(&claim)?;
        reset_peak_rss();
        let beat = Heartbeat::start(&self.options.url, &claim, &name, self.options.lease);
        let started = Instant::now();
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
            work::run(build.as_deref(), &job, &claim, inputs)
        }))
        .unwrap_or_else(|panic| {
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "a panic".into());
            Err(TaskError::Failed(format!("panicked: {why}")))
        });
        let seconds = started.elapsed().as_secs_f64();
        let lost = beat.stop();
        let outcome = match &result {
            Ok(done) => {
                let outcome = self.retrying(|q| {
                    q.complete(&claim, &done.artifact, seconds, peak_rss(), &done.detail)
                })?;
                if outcome == Outcome::Applied {
                    self.report.done += 1;
                    eprintln!(
                        "worker {name}: {} done in {seconds:.1} s ({} bytes; {})",
                        claim.name(),
                        done.artifact.len(),
                        done.detail
                    );
                }
                outcome
            }
            Err(TaskError::Failed(why)) => {
                self.report.failed += 1;
                eprintln!("worker {name}: {} failed: {why}", claim.name());
                self.retrying(|q| q.fail(&claim, why))?
            }
            Err(TaskError::Refused { producer, why }) => {
                self.report.refused_inputs += 1;
                eprintln!(
                    "worker {name}: {} refused the artifact of task {producer}: {why}",
                    claim.name()
                );
                self.retrying(|q| q.refuse_artifact(&claim, *producer, why))?
            }
        };
        if outcome == Outcome::Late {
            self.report.late += 1;
            eprintln!(
                "worker {name}: {} is no longer this worker's (lease {}): result dropped",
                claim.name(),
                if lost { "lost" } else { "expired" }
            );
        }
        if outcome == Outcome::JobFailed {
            eprintln!("worker {name}: job {} failed", claim.job);
        }
        Ok(())
    }

    /// Runs a queue write, reconnecting and retrying while the database is unreachable.
    fn retrying(
        &mut self,
        mut write: impl FnMut(&mut Queue) -> Result<Outcome, ClusterError>,
    ) -> Result<Outcome, ClusterError> {
        loop {
            let result = self.queue().and_then(&mut write);
            match result {
                Err(e) if e.is_connection() => {
                    eprintln!(
                        "worker {}: {e}; reconnecting to store the result",
                        self.options.name
                    );
                    self.queue = None;
                    std::thread::sleep(Duration::from_millis(500));
                }
                other => return other,
            }
        }
    }
}
