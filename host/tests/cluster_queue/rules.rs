//! The queue's rules: schema versions, dependency order across concurrent workers, a
//! machine's shared memory budget, retries that fail a job with its error, a late completion.

use std::time::{Duration, Instant};

use crate::support::cli::host_output;
use crate::support::cluster::{
    finish, ready, scalar_i64, signal, status_tasks, stop, wait_for, worker, Worker,
};
use crate::support::pg::Pg;
use cluster::submit::submit_probe;
use cluster::{schema, Db};

#[test]
fn init_is_idempotent_and_versioned() {
    let pg = Pg::start();
    let url = pg.url();
    let (ok, text) = host_output(&["cluster", "init", "--db", &url]);
    assert!(
        ok && text.contains("applied schema version(s) [1, 2, 3]"),
        "{text}"
    );
    let (ok, text) = host_output(&["cluster", "init", "--db", &url]);
    assert!(
        ok && text.contains("schema up to date (version 3)"),
        "{text}"
    );
    let mut db = Db::connect(&url).unwrap();
    assert!(schema::init(&mut db).unwrap().is_empty());
    // A database of a newer build is refused, not used.
    db.client
        .execute("INSERT INTO cluster_schema (version) VALUES (99)", &[])
        .unwrap();
    let (ok, text) = host_output(&["cluster", "status", "--db", &url]);
    assert!(!ok && text.contains("schema is version 99"), "{text}");
}

#[test]
fn three_workers_run_a_job_in_dependency_order() {
    let pg = Pg::start();
    let mut db = ready(&pg);
    // Two jobs at once: a probe refuses any input that is not its own job's, so a mix-up
    // would show as a second attempt.
    let job = submit_probe(&mut db, "probe-a", 9, 150, &[]).unwrap();
    let second = submit_probe(&mut db, "probe-b", 5, 150, &[]).unwrap();
    let workers: Vec<Worker> = (0..3).map(|_| worker(&pg.url(), &[])).collect();
    let end = wait_for(&mut db, job, Duration::from_secs(120));
    let end_second = wait_for(&mut db, second, Duration::from_secs(120));
    let logs: Vec<String> = workers.into_iter().map(stop).collect();
    for end in [&end, &end_second] {
        assert_eq!(end.state, "done", "{end:?}");
        assert!(
            end.tasks
                .iter()
                .all(|t| t.state == "done" && t.attempts == 1),
            "{end:?}"
        );
    }
    assert!(
        logs.iter().all(|l| !l.contains("refused the artifact")),
        "{logs:?}"
    );
    // Every task started after each of its dependencies finished.
    let violations = scalar_i64(
        &mut db,
        "SELECT count(*) FROM cluster_deps d JOIN cluster_tasks t ON t.id = d.task
         JOIN cluster_tasks p ON p.id = d.dep WHERE t.job = $1 AND t.started < p.finished",
        job,
    );
    assert_eq!(violations, 0);
    // Work was shared: more than one worker completed tasks.
    let workers = scalar_i64(
        &mut db,
        "SELECT count(DISTINCT worker) FROM cluster_tasks WHERE job = $1",
        job,
    );
    assert!(workers >= 2, "one worker did everything:\n{logs:?}");
    let (ok, text) = status_tasks(&pg, job);
    assert!(
        ok && text.contains("DONE") && text.contains("segments"),
        "{text}"
    );
}

#[test]
fn workers_of_one_machine_share_its_memory_budget() {
    let pg = Pg::start();
    let mut db = ready(&pg);
    // 8 independent segments of 64 MiB each; three workers, but the machine's budget holds
    // only one task at a time.
    let job = submit_probe(&mut db, "probe-budget", 8, 200, &[]).unwrap();
    let budget = ["--machine", "box", "--machine-memory-mib", "100"];
    let workers: Vec<Worker> = (0..3).map(|_| worker(&pg.url(), &budget)).collect();
    let end = wait_for(&mut db, job, Duration::from_secs(120));
    let logs: Vec<String> = workers.into_iter().map(stop).collect();
    assert_eq!(end.state, "done", "{end:?}\n{logs:?}");
    assert!(logs[0].contains("machine box: 100 MiB shared"), "{logs:?}");
    let overlaps = scalar_i64(
        &mut db,
        "SELECT count(*) FROM cluster_tasks a JOIN cluster_tasks b ON a.id < b.id
         WHERE a.job = $1 AND b.job = $1 AND a.started < b.finished AND b.started < a.finished",
        job,
    );
    assert_eq!(overlaps, 0, "two tasks ran at once on a one-task budget");
    let on_box = scalar_i64(
        &mut db,
        "SELECT count(*) FROM cluster_tasks WHERE job = $1 AND machine = 'box'",
        job,
    );
    assert_eq!(on_box, end.tasks.len() as i64);
    // Two machines of that budget run two tasks at once.
    let job = submit_probe(&mut db, "probe-two-boxes", 8, 200, &[]).unwrap();
    let workers: Vec<Worker> = ["box-a", "box-a", "box-b", "box-b"]
        .iter()
        .map(|m| worker(&pg.url(), &["--machine", m, "--machine-memory-mib", "100"]))
        .collect();
    let end = wait_for(&mut db, job, Duration::from_secs(120));
    let logs: Vec<String> = workers.into_iter().map(stop).collect();
    assert_eq!(end.state, "done", "{end:?}\n{logs:?}");
    let same_machine_overlaps = scalar_i64(
        &mut db,
        "SELECT count(*) FROM cluster_tasks a JOIN cluster_tasks b ON a.id < b.id
         WHERE a.job = $1 AND b.job = $1 AND a.machine = b.machine
           AND a.started < b.finished AND b.started < a.finished",
        job,
    );
    assert_eq!(same_machine_overlaps, 0);
    let overlaps = scalar_i64(
        &mut db,
        "SELECT count(*) FROM cluster_tasks a JOIN cluster_tasks b ON a.id < b.id
         WHERE a.job = $1 AND b.job = $1 AND a.started < b.finished AND b.started < a.finished",
        job,
    );
    assert!(overlaps > 0, "two machines never ran at once:\n{logs:?}");
}

#[test]
fn a_task_that_fails_its_retries_fails_the_job_with_its_error() {
    let pg = Pg::start();
    let mut db = ready(&pg);
    // Task 1 (a segment task) fails every attempt.
    let job = submit_probe(&mut db, "probe-fail", 3, 10, &[1]).unwrap();
    let w = worker(&pg.url(), &[]);
    let end = wait_for(&mut db, job, Duration::from_secs(60));
    stop(w);
    assert_eq!(end.state, "failed");
    let error = end.error.clone().unwrap();
    assert!(
        error.contains("segments 0/1 failed on attempt 3") && error.contains("told to fail"),
        "{error}"
    );
    let failed: Vec<_> = end.tasks.iter().filter(|t| t.state == "failed").collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].attempts, 3);
    let (ok, text) = status_tasks(&pg, job);
    assert!(
        ok && text.contains("FAILED") && text.contains("told to fail"),
        "{text}"
    );
    let (ok, text) = host_output(&[
        "cluster",
        "wait",
        &job.to_string(),
        "--db",
        &pg.url(),
        "--out",
        "/dev/null",
        "--quiet",
    ]);
    assert!(!ok && text.contains("failed"), "{text}");
}

#[test]
fn a_late_completion_changes_nothing() {
    let pg = Pg::start();
    let mut db = ready(&pg);
    let job = submit_probe(&mut db, "probe-late", 1, 3000, &[]).unwrap();
    // Worker A claims the segment task, then freezes past its lease (no heartbeat either).
    let a = worker(
        &pg.url(),
        &["--once", "--lease-secs", "1", "--name", "late-a"],
    );
    let started = Instant::now();
    while scalar_i64(
        &mut db,
        "SELECT count(*) FROM cluster_tasks WHERE job = $1 AND worker = 'late-a' AND state = 'running'",
        job,
    ) == 0
    {
        assert!(started.elapsed() < Duration::from_secs(30), "A never claimed");
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(&a, "STOP");
    std::thread::sleep(Duration::from_millis(1500));
    // Worker B takes the expired claim and completes it.
    let b = worker(&pg.url(), &["--once", "--name", "late-b"]);
    let b_log = finish(b);
    assert!(b_log.contains("segments 0/0 done"), "{b_log}");
    let row = db
        .client
        .query_one(
            "SELECT t.worker, t.attempts, t.output_hash, a.hash FROM cluster_tasks t
             JOIN cluster_artifacts a ON a.task = t.id WHERE t.job = $1 AND t.stage = 'segments'",
            &[&job],
        )
        .unwrap();
    let (worker_b, attempts, hash): (String, i32, Vec<u8>) = (row.get(0), row.get(1), row.get(2));
    assert_eq!((worker_b.as_str(), attempts), ("late-b", 2));
    let waiting_before = scalar_i64(
        &mut db,
        "SELECT sum(waiting) FROM cluster_tasks WHERE job = $1",
        job,
    );
    // A comes back and completes: dropped, nothing changes.
    signal(&a, "CONT");
    let a_log = finish(a);
    assert!(
        a_log.contains("no longer this worker's") && a_log.contains("1 dropped late"),
        "{a_log}"
    );
    let row = db
        .client
        .query_one(
            "SELECT t.worker, t.output_hash FROM cluster_tasks t WHERE t.job = $1 AND t.stage = 'segments'",
            &[&job],
        )
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "late-b");
    assert_eq!(row.get::<_, Vec<u8>>(1), hash);
    let waiting_after = scalar_i64(
        &mut db,
        "SELECT sum(waiting) FROM cluster_tasks WHERE job = $1",
        job,
    );
    assert_eq!(
        waiting_before, waiting_after,
        "a dependent was released twice"
    );
}
