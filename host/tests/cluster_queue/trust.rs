//! What the queue does not take on trust: refused artifacts send their producers back, a
//! worker of another build refuses the job.

use crate::support::cluster::{finish, ready, run_to_end, scalar_i64, segment_task, worker};
use crate::support::pg::Pg;
use cluster::submit::submit_probe;

#[test]
fn refused_artifacts_send_their_producers_back() {
    let pg = Pg::start();
    let mut db = ready(&pg);
    // Another job, proved first: its artifacts are valid, but not this job's.
    let other = submit_probe(&mut db, "probe-other", 4, 10, &[]).unwrap();
    let (other_end, _) = run_to_end(&pg, &mut db, other);
    assert_eq!(other_end.state, "done");
    let job = submit_probe(&mut db, "probe-forged", 4, 10, &[]).unwrap();
    // Its segment tasks, and nothing else yet (aggregation waits on them).
    for _ in 0..4 {
        finish(worker(&pg.url(), &["--once"]));
    }
    let (s0, s1, s2) = (
        segment_task(&mut db, job, 0),
        segment_task(&mut db, job, 1),
        segment_task(&mut db, job, 2),
    );
    let foreign = segment_task(&mut db, other, 2);
    // Segment 0's artifact no longer matches its keccak.
    db.client
        .execute(
            "UPDATE cluster_artifacts SET bytes = bytes || '\\x00'::bytea WHERE task = $1",
            &[&s0],
        )
        .unwrap();
    // Segment 1's is garbage under a matching keccak: it does not "verify".
    let garbage = b"not a probe".to_vec();
    let hash = cluster::artifact_hash(&garbage);
    db.client
        .execute(
            "UPDATE cluster_artifacts SET bytes = $2, hash = $3 WHERE task = $1",
            &[&s1, &garbage, &hash],
        )
        .unwrap();
    db.client
        .execute(
            "UPDATE cluster_tasks SET output_hash = $2 WHERE id = $1",
            &[&s1, &hash],
        )
        .unwrap();
    // Segment 2's is the other job's, with its keccak: valid, but not this job's.
    db.client
        .execute(
            "UPDATE cluster_artifacts SET bytes = (SELECT bytes FROM cluster_artifacts WHERE task = $2),
                 hash = (SELECT hash FROM cluster_artifacts WHERE task = $2) WHERE task = $1",
            &[&s2, &foreign],
        )
        .unwrap();
    db.client
        .execute(
            "UPDATE cluster_tasks SET output_hash = (SELECT output_hash FROM cluster_tasks WHERE id = $2) WHERE id = $1",
            &[&s2, &foreign],
        )
        .unwrap();
    let (end, log) = run_to_end(&pg, &mut db, job);
    assert_eq!(end.state, "done", "{end:?}");
    assert!(log.contains("is not the recorded"), "{log}");
    assert!(log.contains("not a probe artifact of this job"), "{log}");
    for t in &end.tasks[..3] {
        assert_eq!(t.attempts, 2, "{t:?}");
    }
    assert_eq!(end.tasks[3].attempts, 1);
}

#[test]
fn a_worker_of_another_build_refuses_the_job() {
    let pg = Pg::start();
    let mut db = ready(&pg);
    let job = submit_probe(&mut db, "probe-build", 2, 10, &[]).unwrap();
    db.client
        .execute(
            "UPDATE cluster_jobs SET exe_commit = '0xother' WHERE id = $1",
            &[&job],
        )
        .unwrap();
    let log = finish(worker(&pg.url(), &["--once"]));
    assert!(
        log.contains(&format!("refusing job {job}"))
            && log.contains("0xother")
            && log.contains("no task to claim"),
        "{log}"
    );
    let claimed = scalar_i64(
        &mut db,
        "SELECT count(*) FROM cluster_tasks WHERE job = $1 AND attempts > 0",
        job,
    );
    assert_eq!(claimed, 0, "a task of another build was claimed");
}
