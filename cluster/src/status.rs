//! `host cluster status` and `host cluster wait`: what each job's stages are doing, and the
//! finished proof, checked before it is written.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;

use super::{ClusterError, Db, CHANNEL};
use prover::proof::{self, ProofFile, Verifier};

/// One task as `status` shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TaskRow {
    /// Its stage.
    pub stage: String,
    /// Its layer.
    pub layer: i32,
    /// Its index.
    pub index: i32,
    /// blocked, ready, running, done or failed.
    pub state: String,
    /// The worker that has (or last had) it.
    pub worker: Option<String>,
    /// Attempts so far.
    pub attempts: i32,
    /// Wall time of the attempt that finished it.
    pub seconds: Option<f64>,
    /// That worker's peak resident memory then, bytes.
    pub peak_rss: Option<i64>,
    /// What the time went on.
    pub detail: Option<String>,
    /// The last error.
    pub error: Option<String>,
}

/// One job as `status` shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct JobStatus {
    /// Its id.
    pub id: i64,
    /// What it proves.
    pub label: String,
    /// running, done or failed.
    pub state: String,
    /// Why it failed.
    pub error: Option<String>,
    /// Seconds from submission to the end (or now).
    pub seconds: f64,
    /// Its tasks, in graph order.
    pub tasks: Vec<TaskRow>,
}

impl JobStatus {
    /// Per stage, in graph order: (stage, [done, running, ready, blocked, failed]).
    pub fn stages(&self) -> Vec<(String, [usize; 5])> {
        let mut stages: Vec<(String, [usize; 5])> = Vec::new();
        for task in &self.tasks {
            if stages.last().is_none_or(|(s, _)| *s != task.stage) {
                stages.push((task.stage.clone(), [0; 5]));
            }
            let slot = ["done", "running", "ready", "blocked", "failed"]
                .iter()
                .position(|s| *s == task.state)
                .unwrap_or(3);
            stages.last_mut().expect("pushed").1[slot] += 1;
        }
        stages
    }

    /// `done/total` over all tasks.
    pub fn progress(&self) -> (usize, usize) {
        let done = self.tasks.iter().filter(|t| t.state == "done").count();
        (done, self.tasks.len())
    }
}

/// The jobs (all, or `job`), newest first.
pub fn status(db: &mut Db, job: Option<i64>) -> Result<Vec<JobStatus>, ClusterError> {
    super::schema::check(db)?;
    let rows = db
        .client
        .query(
            "SELECT id, label, state, error,
                    extract(epoch FROM coalesce(finished, now()) - created)::float8
             FROM cluster_jobs WHERE $1::bigint IS NULL OR id = $1 ORDER BY id DESC",
            &[&job],
        )
        .map_err(|e| db.err(e))?;
    if let (Some(id), true) = (job, rows.is_empty()) {
        return Err(ClusterError::NoJob(id));
    }
    let mut jobs = Vec::new();
    for row in rows {
        let id: i64 = row.get(0);
        let tasks = db
            .client
            .query(
                "SELECT stage, layer, idx, state, worker, attempts, seconds, peak_rss, detail, error
                 FROM cluster_tasks WHERE job = $1 ORDER BY id",
                &[&id],
            )
            .map_err(|e| db.err(e))?
            .iter()
            .map(|t| TaskRow {
                stage: t.get(0),
                layer: t.get(1),
                index: t.get(2),
                state: t.get(3),
                worker: t.get(4),
                attempts: t.get(5),
                seconds: t.get(6),
                peak_rss: t.get(7),
                detail: t.get(8),
                error: t.get(9),
            })
            .collect();
        jobs.push(JobStatus {
            id,
            label: row.get(1),
            state: row.get(2),
            error: row.get(3),
            seconds: row.get(4),
            tasks,
        });
    }
    Ok(jobs)
}

/// Prints `jobs`: per job a line, its stages' counts, and with `tasks` every task.
pub fn print_status(jobs: &[JobStatus], tasks: bool) {
    for job in jobs {
        let (done, total) = job.progress();
        println!(
            "job {} {} {}: {done}/{total} tasks, {:.0} s",
            job.id,
            job.label,
            job.state.to_uppercase(),
            job.seconds
        );
        if let Some(error) = &job.error {
            println!("  error: {error}");
        }
        println!(
            "  {:<9} {:>5} {:>7} {:>5} {:>7} {:>6}",
            "stage", "done", "running", "ready", "blocked", "failed"
        );
        for (stage, [d, r, y, b, f]) in job.stages() {
            println!("  {stage:<9} {d:>5} {r:>7} {y:>5} {b:>7} {f:>6}");
        }
        if tasks {
            println!(
                "  {:<14} {:<8} {:<22} {:>8} {:>9} {:>9}  detail",
                "task", "state", "worker", "attempts", "seconds", "peak GB"
            );
            for t in &job.tasks {
                println!(
                    "  {:<14} {:<8} {:<22} {:>8} {:>9} {:>9}  {}",
                    format!("{} {}/{}", t.stage, t.layer, t.index),
                    t.state,
                    t.worker.as_deref().unwrap_or("-"),
                    t.attempts,
                    t.seconds.map_or("-".into(), |s| format!("{s:.1}")),
                    t.peak_rss
                        .map_or("-".into(), |b| format!("{:.1}", b as f64 / 1e9)),
                    t.error
                        .as_deref()
                        .map(|e| format!("error: {e}"))
                        .or_else(|| t.detail.clone())
                        .unwrap_or_default()
                );
            }
        }
    }
}

/// One line of progress for `job`.
fn progress_line(job: &JobStatus) -> String {
    let stages: Vec<String> = job
        .stages()
        .iter()
        .map(|(s, [d, r, y, b, f])| {
            let total = d + r + y + b + f;
            let failed = if *f > 0 {
                format!(" {f} failed")
            } else {
                String::new()
            };
            format!("{s} {d}/{total} ({r} running){failed}")
        })
        .collect();
    format!("job {} {:.0} s: {}", job.id, job.seconds, stages.join(", "))
}

/// Waits for `job` to end, showing a live progress line on a terminal; returns its status.
pub fn follow(db: &mut Db, job: i64, quiet: bool) -> Result<JobStatus, ClusterError> {
    db.client
        .batch_execute(&format!("LISTEN {CHANNEL}"))
        .map_err(|e| db.err(e))?;
    let live = !quiet && std::io::stderr().is_terminal();
    loop {
        let status = status(db, Some(job))?.remove(0);
        if live {
            eprint!("\r\x1b[2K{}", progress_line(&status));
            let _ = std::io::stderr().flush();
        }
        if status.state != "running" {
            if live {
                eprintln!();
            }
            return Ok(status);
        }
        let mut notifications = db.client.notifications();
        let _ = notifications.timeout_iter(Duration::from_secs(2)).next();
        let _ = notifications.iter().count();
    }
}

/// Waits for `job`, then checks its proof ([`final_proof`]) and writes it to `out` (the format
/// `host prove` writes). A failed job is an error with the job's error.
pub fn wait(db: &mut Db, job: i64, out: &Path, quiet: bool) -> Result<ProofFile, ClusterError> {
    let status = follow(db, job, quiet)?;
    if status.state == "failed" {
        return Err(ClusterError::JobFailed {
            job,
            error: status.error.unwrap_or_default(),
        });
    }
    let (file, _) = final_proof(db, job)?;
    proof::write(out, &file)?;
    Ok(file)
}

/// The final proof of the finished `job`, checked.
///
/// The wrap artifact is whatever the worker that held the wrap task stored, and it is not
/// trusted: the proof must be of the subject (guest and VM) the job was submitted for, verified
/// against that subject's pinned commitments when the pins cover it, else against the guest
/// and keys rebuilt from this host's source (never the file's own subject, never the key
/// cache), and its public values must be the job's input's: for the block guest, the hash,
/// parent hash and state root of the header in the job's input, and the digest of the chain
/// config it carries; for the standard guest, the result the same bytes give natively
/// ([`super::expect`]). A genuine proof of another input, config or guest is
/// [`ClusterError::NotTheJobs`]. Returns the proof and the job as it was checked against.
pub fn final_proof(db: &mut Db, job: i64) -> Result<(ProofFile, super::task::Job), ClusterError> {
    let loaded = super::submit::load_job(db, job)?;
    let subject = loaded
        .subject
        .clone()
        .ok_or_else(|| ClusterError::Corrupt(format!("job {job} is a probe: it has no proof")))?;
    let program = prover::guest::Program::from_bin(&subject.bin)
        .filter(|p| {
            matches!(
                p,
                prover::guest::Program::Guest | prover::guest::Program::Standard
            )
        })
        .ok_or_else(|| ClusterError::Corrupt(format!("job {job} runs guest `{}`", subject.bin)))?;
    let row = db
        .client
        .query_opt(
            "SELECT a.bytes FROM cluster_tasks t JOIN cluster_artifacts a ON a.task = t.id
             WHERE t.job = $1 AND t.stage = 'wrap' AND t.state = 'done'",
            &[&job],
        )
        .map_err(|e| db.err(e))?
        .ok_or_else(|| ClusterError::Corrupt(format!("job {job} is done but has no proof")))?;
    let bytes: Vec<u8> = row.get(0);
    let file: ProofFile = bitcode::deserialize(&bytes)
        .map_err(|e| ClusterError::Corrupt(format!("job {job}'s proof: {e}")))?;
    let not_the_jobs = |what: String| ClusterError::NotTheJobs { job, what };
    if file.subject != subject {
        return Err(not_the_jobs(format!(
            "the proof is of {}, the job was submitted for {}",
            describe(&file.subject),
            describe(&subject)
        )));
    }
    if file.proof.kind() != proof::ProofKind::Stark {
        return Err(not_the_jobs(
            "the proof is an app proof, not one STARK".into(),
        ));
    }
    let pinned = proof::pin::Pinned::builtin(program)?;
    let verifier = if pinned.covers(&subject) {
        Verifier::pinned(program)?
    } else {
        Verifier::new(&subject, proof::ProofKind::Stark)?
    };
    let public = verifier.verify(&file)?;
    if program == prover::guest::Program::Standard {
        let expected = super::expect::public_values(program, &loaded.input)
            .map_err(|why| ClusterError::Corrupt(format!("job {job}'s input: {why}")))?;
        if public != expected {
            return Err(not_the_jobs(format!(
                "its public values are {}, the job's input gives {} natively",
                alloy_primitives::hex::encode(&public),
                alloy_primitives::hex::encode(&expected)
            )));
        }
        return Ok((file, loaded));
    }
    let expected = job_public_values(&loaded.input)
        .map_err(|why| ClusterError::Corrupt(format!("job {job}'s input: {why}")))?;
    let proved = program::PublicValues::from_bytes(&public).ok_or_else(|| {
        not_the_jobs(format!(
            "the proof has {} public values, not a block's 128",
            public.len()
        ))
    })?;
    for (what, proved, expected) in [
        ("block hash", proved.block_hash, expected.block_hash),
        ("parent hash", proved.parent_hash, expected.parent_hash),
        (
            "post-state root",
            proved.post_state_root,
            expected.post_state_root,
        ),
        ("chain digest", proved.chain_digest, expected.chain_digest),
    ] {
        if proved != expected {
            return Err(not_the_jobs(format!(
                "its {what} is {proved}, the job's is {expected}"
            )));
        }
    }
    Ok((file, loaded))
}

/// The public values a valid proof of the job's input must reveal: its block's hash, parent
/// hash and (claimed) post-state root, and the digest of its chain config.
fn job_public_values(input: &[Vec<u8>]) -> Result<program::PublicValues, String> {
    let input = program::input::GuestInput::from_items(input).map_err(|e| e.to_string())?;
    let block = program::decode_block(&input.block).map_err(|e| e.to_string())?;
    let header = &block.header;
    Ok(program::PublicValues {
        block_hash: header.hash_slow(),
        parent_hash: header.parent_hash,
        post_state_root: header.state_root,
        chain_digest: input.chain.digest(),
    })
}

fn describe(subject: &proof::Subject) -> String {
    format!(
        "`{}` ({} keccak, {} public values, 2^{} rows, {} MiB segments)",
        subject.bin,
        subject.keccak.name(),
        subject.public_values_len,
        subject.log_stacked_height,
        subject.segment_memory >> 20
    )
}
