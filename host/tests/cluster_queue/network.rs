//! The database as a network service: workers reconnect after a restart, TCP with a password
//! that is never printed, workers in network namespaces of their own.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::cli::host_output;
use crate::support::cluster::{ready, scalar_i64, stop, wait_for, worker, Worker};
use crate::support::pg::{Pg, PASSWORD};
use cluster::submit::submit_probe;
use cluster::Db;

#[test]
fn workers_reconnect_when_the_database_restarts_mid_job() {
    let pg = Pg::start();
    let mut db = ready(&pg);
    let job = submit_probe(&mut db, "probe-restart", 12, 400, &[]).unwrap();
    let workers: Vec<Worker> = (0..2).map(|_| worker(&pg.url(), &[])).collect();
    let started = Instant::now();
    while scalar_i64(
        &mut db,
        "SELECT count(*) FROM cluster_tasks WHERE job = $1 AND state = 'done'",
        job,
    ) < 2
    {
        assert!(started.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(db);
    pg.restart();
    let mut db = Db::connect(&pg.url()).unwrap();
    let end = wait_for(&mut db, job, Duration::from_secs(120));
    let logs: Vec<String> = workers.into_iter().map(stop).collect();
    assert_eq!(end.state, "done", "{end:?}\n{logs:?}");
    assert!(logs.iter().any(|l| l.contains("reconnecting")), "{logs:?}");
}

#[test]
fn workers_over_tcp_with_a_password_never_print_it() {
    let pg = Pg::start_with(true);
    let url = pg.tcp_url(PASSWORD);
    let (ok, text) = host_output(&["cluster", "init", "--db", &url]);
    assert!(ok, "{text}");
    assert!(
        !text.contains(PASSWORD)
            && text.contains("host=127.0.0.1")
            && text.contains("user=prover password=***"),
        "{text}"
    );
    let mut db = Db::connect(&url).unwrap();
    let job = submit_probe(&mut db, "probe-tcp", 3, 10, &[]).unwrap();
    let w = worker(&url, &[]);
    let end = wait_for(&mut db, job, Duration::from_secs(60));
    let log = stop(w);
    assert_eq!(end.state, "done");
    assert!(!log.contains(PASSWORD));
    // A wrong password is refused, and neither password is printed.
    let wrong = pg.tcp_url("wrong-pw");
    let (ok, text) = host_output(&["cluster", "status", "--db", &wrong]);
    assert!(
        !ok && text.contains("password authentication failed"),
        "{text}"
    );
    assert!(
        !text.contains("wrong-pw") && !text.contains(PASSWORD),
        "{text}"
    );
    // So is the environment's.
    let output = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(["cluster", "status"])
        .env("DATABASE_URL", &wrong)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && !text.contains("wrong-pw"),
        "{text}"
    );
}

/// The database in one network namespace, each worker in its own, linked only to the
/// database's by a veth pair, as separate machines. Namespaces need root and iproute2's
/// `ip netns`: ignored by a plain `cargo test`, run by `.ci/run` (as root) with `--ignored`,
/// where a machine without them fails it rather than skipping it.
#[test]
#[ignore = "needs root and `ip netns`; .ci/run runs it with --ignored"]
fn workers_in_their_own_network_namespaces_reach_the_database_over_tcp() {
    let mut pg = Pg::start_in_netns()
        .expect("no network namespaces here: `ip netns add` failed (run as root, with iproute2)");
    let mut db = ready(&pg);
    let job = submit_probe(&mut db, "probe-netns", 6, 100, &[]).unwrap();
    let workers: Vec<Worker> = (1..=2)
        .map(|i| {
            let (netns, url) = pg.worker_netns(i, PASSWORD);
            Worker::spawn(
                Command::new("ip")
                    .args(["netns", "exec", &netns, env!("CARGO_BIN_EXE_host")])
                    .args(["cluster", "worker", "--db", &url, "--poll-secs", "0.2"])
                    .args(["--name", &format!("ns-{i}")])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped()),
            )
        })
        .collect();
    let end = wait_for(&mut db, job, Duration::from_secs(120));
    let logs: Vec<String> = workers.into_iter().map(stop).collect();
    assert_eq!(end.state, "done", "{end:?}\n{logs:?}");
    assert!(logs.iter().all(|l| !l.contains(PASSWORD)));
    let workers = scalar_i64(
        &mut db,
        "SELECT count(DISTINCT worker) FROM cluster_tasks WHERE job = $1 AND worker LIKE 'ns-%'",
        job,
    );
    assert!(workers >= 1);
}
