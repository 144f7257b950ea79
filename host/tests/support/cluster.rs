//! The queue tests' helpers: `host` and worker processes, a private database made ready, and
//! waiting for a job to end.

use std::ops::{Deref, DerefMut};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cluster::status::{status, JobStatus};
use cluster::{schema, Db};

use super::cli::host_output;
use super::pg::Pg;

/// `host cluster status JOB --tasks`: whether it succeeded, and what it printed.
pub fn status_tasks(pg: &Pg, job: i64) -> (bool, String) {
    host_output(&[
        "cluster",
        "status",
        &job.to_string(),
        "--db",
        &pg.url(),
        "--tasks",
    ])
}

/// `host cluster worker` on `url`, polling every 0.2 s, with `extra` arguments.
fn worker_command(url: &str, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_host"));
    command
        .args(["cluster", "worker", "--db", url, "--poll-secs", "0.2"])
        .args(extra);
    command
}

/// A worker process that is killed when dropped: a test that fails (a panicking assertion)
/// leaves no worker behind, reconnecting to its vanished database and writing into the next
/// run's log.
#[derive(Debug)]
pub struct Worker(Option<Child>);

impl Worker {
    /// Starts `command` as a worker.
    pub fn spawn(command: &mut Command) -> Self {
        Self(Some(command.spawn().expect("start a worker")))
    }

    /// The process, no longer killed on drop.
    fn into_child(mut self) -> Child {
        self.0
            .take()
            .expect("a worker's process is taken only here")
    }
}

impl Deref for Worker {
    type Target = Child;
    fn deref(&self) -> &Child {
        self.0
            .as_ref()
            .expect("a worker's process is taken only on its way out")
    }
}

impl DerefMut for Worker {
    fn deref_mut(&mut self) -> &mut Child {
        self.0
            .as_mut()
            .expect("a worker's process is taken only on its way out")
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Starts a worker ([`worker_command`]) whose output the test reads ([`stop`], [`finish`]).
pub fn worker(url: &str, extra: &[&str]) -> Worker {
    Worker::spawn(
        worker_command(url, extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
}

/// Starts a worker ([`worker_command`]) whose log goes to the test's stderr as it runs (a long
/// job shows its progress).
pub fn logging_worker(url: &str, extra: &[&str]) -> Worker {
    Worker::spawn(
        worker_command(url, extra)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit()),
    )
}

/// Kills a worker; returns what it printed.
pub fn stop(worker: Worker) -> String {
    let mut child = worker.into_child();
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&output.stderr).into_owned();
    println!("worker:\n{text}");
    text
}

/// Waits for a worker to exit by itself, which it must do successfully.
pub fn finish(worker: Worker) -> String {
    let output = worker.into_child().wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&output.stderr).into_owned();
    println!("worker:\n{text}");
    assert!(output.status.success(), "the worker failed: {text}");
    text
}

/// Connects to `pg` and creates the schema.
pub fn ready(pg: &Pg) -> Db {
    let mut db = Db::connect(&pg.url()).unwrap();
    schema::init(&mut db).unwrap();
    db
}

/// Waits up to `limit` for `job` to end.
pub fn wait_for(db: &mut Db, job: i64, limit: Duration) -> JobStatus {
    let started = Instant::now();
    loop {
        let s = status(db, Some(job)).unwrap().remove(0);
        if s.state != "running" {
            return s;
        }
        assert!(started.elapsed() < limit, "job {job} still running: {s:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One `BIGINT` that `sql` selects for `job` (`$1`).
pub fn scalar_i64(db: &mut Db, sql: &str, job: i64) -> i64 {
    db.client.query_one(sql, &[&job]).unwrap().get(0)
}

/// Sends signal `name` to `child`.
pub fn signal(child: &Worker, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Runs one worker until `job` ends.
pub fn run_to_end(pg: &Pg, db: &mut Db, job: i64) -> (JobStatus, String) {
    let w = worker(&pg.url(), &[]);
    let end = wait_for(db, job, Duration::from_secs(60));
    (end, stop(w))
}

/// The id of `job`'s segment task `idx`.
pub fn segment_task(db: &mut Db, job: i64, idx: i32) -> i64 {
    db.client
        .query_one(
            "SELECT id FROM cluster_tasks WHERE job = $1 AND stage = 'segments' AND idx = $2",
            &[&job, &idx],
        )
        .unwrap()
        .get(0)
}
