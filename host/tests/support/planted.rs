//! What a worker with database access could plant, and the checks that refuse it: a job made
//! done with a final proof of someone's choosing, a job that is a copy of another with its
//! input or subject changed, a segment part replaced under a matching keccak and the leaf that
//! reads it run again.

use std::path::Path;

use cluster::Db;
use prover::proof::{self, Subject};

use super::cli::{host, host_status};

/// `host cluster submit` of `block` in `blocks_dir` (segment memory `mib`); the job's id.
pub fn submit(url: &str, blocks_dir: &Path, block: &str, mib: &str) -> i64 {
    let out = host(&[
        "cluster",
        "submit",
        "--db",
        url,
        "--block",
        block,
        "--blocks-dir",
        blocks_dir.to_str().unwrap(),
        "--segment-memory-mib",
        mib,
    ]);
    out.lines()
        .find_map(|l| l.strip_prefix("job "))
        .expect("`job <id>` printed")
        .trim()
        .parse()
        .unwrap()
}

/// A copy of `job` (its row and its tasks, no artifacts) with `input` (guest input items) or
/// `subject` in place of its own, as a database holds another block's or another VM's job:
/// `host cluster wait` reads only the job's row and its final artifact. (`host cluster submit`
/// would write the same row after building the guest and metering the run, a minute each.)
pub fn copy_job(
    db: &mut Db,
    job: i64,
    input: Option<&[Vec<u8>]>,
    subject: Option<&Subject>,
) -> i64 {
    let row = db
        .client
        .query_one(
            "SELECT input, input_keccak, subject::text FROM cluster_jobs WHERE id = $1",
            &[&job],
        )
        .unwrap();
    let (mut bytes, mut keccak, mut text): (Vec<u8>, Vec<u8>, String) =
        (row.get(0), row.get(1), row.get(2));
    if let Some(items) = input {
        bytes = bitcode::serialize(&items.to_vec()).unwrap();
        let slices: Vec<&[u8]> = items.iter().map(Vec::as_slice).collect();
        keccak = proof::input_digest(&slices).to_vec();
    }
    if let Some(subject) = subject {
        text = serde_json::to_string(subject).unwrap();
    }
    let mut tx = db.client.transaction().unwrap();
    let copy: i64 = tx
        .query_one(
            "INSERT INTO cluster_jobs (label, kind, subject, exe_commit, vm_config, input, input_keccak, segments, shape)
             SELECT label || ' (copy)', kind, ($2::text)::jsonb, exe_commit, vm_config, $3, $4, segments, shape
             FROM cluster_jobs WHERE id = $1 RETURNING id",
            &[&job, &text, &bytes, &keccak],
        )
        .unwrap()
        .get(0);
    tx.execute(
        "INSERT INTO cluster_tasks (job, stage, layer, idx, work, state, waiting, memory_mib, max_attempts)
         SELECT $2, stage, layer, idx, work, 'blocked', 1, memory_mib, max_attempts
         FROM cluster_tasks WHERE job = $1",
        &[&job, &copy],
    )
    .unwrap();
    tx.commit().unwrap();
    copy
}

/// Makes `job` done with `bytes` as its wrap artifact (its hash matching): what a worker that
/// held every task could store.
pub fn plant_wrap(db: &mut Db, job: i64, bytes: &[u8]) {
    let hash = cluster::artifact_hash(bytes);
    let mut tx = db.client.transaction().unwrap();
    tx.execute(
        "UPDATE cluster_tasks SET state = 'done', waiting = 0 WHERE job = $1",
        &[&job],
    )
    .unwrap();
    tx.execute(
        "INSERT INTO cluster_artifacts (task, hash, bytes)
             SELECT id, $2, $3 FROM cluster_tasks WHERE job = $1 AND stage = 'wrap'
         ON CONFLICT (task) DO UPDATE SET hash = $2, bytes = $3",
        &[&job, &hash, &bytes],
    )
    .unwrap();
    tx.execute(
        "UPDATE cluster_tasks SET output_hash = $2 WHERE job = $1 AND stage = 'wrap'",
        &[&job, &hash],
    )
    .unwrap();
    tx.execute(
        "UPDATE cluster_jobs SET state = 'done', finished = now() WHERE id = $1",
        &[&job],
    )
    .unwrap();
    tx.commit().unwrap();
}

/// `host cluster wait` on a job whose proof must be refused: exit 1, nothing written; returns
/// what it printed.
pub fn refused_wait(url: &str, job: i64, dir: &Path) -> String {
    let out = dir.join(format!("refused-{job}.proof"));
    let (code, stdout) = host_status(&[
        "cluster",
        "wait",
        &job.to_string(),
        "--db",
        url,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(!out.exists(), "a refused proof was written");
    stdout
}

/// Stores `bytes` as segment task `producer`'s part (its keccak recorded), makes `job`'s leaf
/// the one ready task, and runs one worker for one task; returns the worker's log after
/// checking the producer was sent back to be proved again.
pub fn leaf_with_input(url: &str, db: &mut Db, job: i64, producer: i64, bytes: &[u8]) -> String {
    let hash = cluster::artifact_hash(bytes);
    let mut tx = db.client.transaction().unwrap();
    tx.execute(
        "INSERT INTO cluster_artifacts (task, hash, bytes) VALUES ($1, $2, $3)
         ON CONFLICT (task) DO UPDATE SET hash = $2, bytes = $3",
        &[&producer, &hash, &bytes],
    )
    .unwrap();
    tx.execute(
        "UPDATE cluster_tasks SET state = 'done', output_hash = $2, attempts = 1 WHERE id = $1",
        &[&producer, &hash],
    )
    .unwrap();
    tx.execute(
        "UPDATE cluster_tasks SET state = 'blocked', waiting = 1 WHERE job = $1 AND stage IN ('internal', 'wrap')",
        &[&job],
    )
    .unwrap();
    tx.execute(
        "UPDATE cluster_tasks SET state = 'ready', waiting = 0, worker = NULL, lease_until = NULL
         WHERE job = $1 AND stage = 'leaves'",
        &[&job],
    )
    .unwrap();
    tx.execute(
        "UPDATE cluster_jobs SET state = 'running', finished = NULL WHERE id = $1",
        &[&job],
    )
    .unwrap();
    tx.commit().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_host"))
        .args([
            "cluster",
            "worker",
            "--db",
            url,
            "--once",
            "--name",
            "leaf-check",
        ])
        .output()
        .expect("run a worker");
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    let (state, leaf): (String, String) = {
        let row = db
            .client
            .query_one(
                "SELECT p.state, l.state FROM cluster_tasks p, cluster_tasks l
                 WHERE p.id = $1 AND l.job = $2 AND l.stage = 'leaves'",
                &[&producer, &job],
            )
            .unwrap();
        (row.get(0), row.get(1))
    };
    assert_eq!(
        (state.as_str(), leaf.as_str()),
        ("ready", "blocked"),
        "{log}"
    );
    log
}
