//! `host cluster submit` and `host serve`: a job (a guest program and its stdin), and the
//! whole task graph, stored in one transaction.
//!
//! The caller validates the input natively first (a block that is not valid is not proved);
//! the guest is built and its run metered once here with the limits every worker will use, so
//! the job records the segment count the workers must reproduce, the program commitment and
//! VM config they must match, and the input with its keccak.

use std::time::Instant;

use super::graph::{self, TaskPlan, TreeShape, Work};
use super::task::PROBE_COMMIT;
use super::work::{memory_mib, Build};
use super::{ClusterError, Db};
use prover::guest::{GuestSpec, Keccak, Program};
use prover::proof::{input_digest, segments, Limits, Subject};
use prover::vm::Vm;

/// Attempts a task gets before its job fails.
pub const MAX_ATTEMPTS: i32 = 3;

/// A submitted job.
#[derive(Debug, Clone)]
pub struct Submitted {
    /// Its id.
    pub job: i64,
    /// The run's segments.
    pub segments: usize,
    /// Tasks per stage, in graph order.
    pub tasks: Vec<(graph::Stage, usize)>,
    /// The program commitment.
    pub exe_commit: String,
    /// Seconds spent building, metering and storing.
    pub seconds: f64,
}

/// Submits the block guest (`keccak`) on `input` (the native run's guest input), labelled
/// `label`, with `limits`, its tree of the given `shape`.
pub fn submit_block(
    db: &mut Db,
    label: &str,
    input: &[Vec<u8>],
    keccak: Keccak,
    limits: Limits,
    shape: TreeShape,
) -> Result<Submitted, ClusterError> {
    let started = Instant::now();
    let build = prepare(Program::Guest, keccak, limits)?;
    let submitted = submit_program(db, &build, label, input, shape, |_, _, _| Ok(true))?;
    let mut submitted = submitted.expect("an unlinked submission is never withdrawn");
    submitted.seconds = started.elapsed().as_secs_f64();
    Ok(submitted)
}

/// The build every worker will make of `program` (`keccak`, the chips' crypto) with `limits`:
/// the guest and its keys.
pub fn prepare(program: Program, keccak: Keccak, limits: Limits) -> Result<Build, ClusterError> {
    let spec = GuestSpec::program(program, keccak);
    let (subject, _) = Subject::of(spec, limits)?;
    eprintln!("building the guest `{}` and its keys ...", program.bin());
    Build::new(&subject)
}

/// Submits `build`'s guest on the stdin items `input`, labelled `label`, its tree of the given
/// `shape`: meters the run once with the limits every worker will use, then stores the job
/// and its graph in one transaction, in which `link` runs with the new job's id and segment
/// count. When `link`
/// answers false, nothing is stored and the answer is `None` (the caller's claim on the
/// submission was lost: a canceled `host serve` proof, or one another server took over).
pub fn submit_program(
    db: &mut Db,
    build: &Build,
    label: &str,
    input: &[Vec<u8>],
    shape: TreeShape,
    link: impl FnOnce(&mut postgres::Transaction<'_>, i64, usize) -> Result<bool, postgres::Error>,
) -> Result<Option<Submitted>, ClusterError> {
    let started = Instant::now();
    let subject = &build.subject;
    eprintln!("metering the run ...");
    let items: Vec<&[u8]> = input.iter().map(Vec::as_slice).collect();
    let count = segments::count_segments(&build.sdk, build.exe.clone(), Vm::stdin_items(&items))
        .map_err(|e| ClusterError::Proof(e.into()))?;
    let plan = graph::plan(count, shape);
    let job = insert(
        db,
        &NewJob {
            label,
            kind: "proof",
            subject: Some(subject),
            exe_commit: &build.exe_commit,
            vm_config: &build.vm_config,
            input,
            segments: count,
            shape,
        },
        &plan,
        |work| memory_mib(work, subject.segment_memory),
        |tx, job| link(tx, job, count),
    )?;
    Ok(job.map(|job| Submitted {
        job,
        segments: count,
        tasks: stage_counts(&plan),
        exe_commit: build.exe_commit.clone(),
        seconds: started.elapsed().as_secs_f64(),
    }))
}

/// Submits a probe job (the queue's own tests): `plan` with every task a [`Work::Probe`] of
/// `sleep_ms`, the ones in `failing` failing every attempt.
pub fn submit_probe(
    db: &mut Db,
    label: &str,
    segments: usize,
    sleep_ms: u64,
    failing: &[usize],
) -> Result<i64, ClusterError> {
    let shape = TreeShape::openvm_default();
    let mut plan = graph::plan(segments, shape);
    for (i, task) in plan.iter_mut().enumerate() {
        task.work = Work::Probe {
            sleep_ms,
            fail: failing.contains(&i),
        };
        if task.stage != graph::Stage::Segments {
            task.stage = graph::Stage::Probe;
            task.layer = i;
        }
    }
    insert(
        db,
        &NewJob {
            label,
            kind: "probe",
            subject: None,
            exe_commit: PROBE_COMMIT,
            vm_config: PROBE_COMMIT,
            input: &[label.as_bytes().to_vec()],
            segments,
            shape,
        },
        &plan,
        |work| memory_mib(work, 0),
        |_, _| Ok(true),
    )
    .map(|job| job.expect("an unlinked submission is never withdrawn"))
}

/// Tasks per stage, in the plan's order.
pub fn stage_counts(plan: &[TaskPlan]) -> Vec<(graph::Stage, usize)> {
    let mut counts: Vec<(graph::Stage, usize)> = Vec::new();
    for task in plan {
        match counts.last_mut() {
            Some((stage, n)) if *stage == task.stage => *n += 1,
            _ => counts.push((task.stage, 1)),
        }
    }
    counts
}

/// A job's row.
struct NewJob<'a> {
    label: &'a str,
    kind: &'a str,
    subject: Option<&'a Subject>,
    exe_commit: &'a str,
    vm_config: &'a str,
    input: &'a [Vec<u8>],
    segments: usize,
    shape: TreeShape,
}

/// Inserts the job and its graph in one transaction with `link`, then notifies the workers;
/// `None` (nothing stored) when `link` answers false.
fn insert(
    db: &mut Db,
    job: &NewJob<'_>,
    plan: &[TaskPlan],
    memory: impl Fn(&Work) -> i64,
    link: impl FnOnce(&mut postgres::Transaction<'_>, i64) -> Result<bool, postgres::Error>,
) -> Result<Option<i64>, ClusterError> {
    super::schema::check(db)?;
    let name = db.name();
    let e = |source| ClusterError::Db {
        url: name.clone(),
        source,
    };
    let items: Vec<&[u8]> = job.input.iter().map(Vec::as_slice).collect();
    let input = bitcode::serialize(&job.input.to_vec())
        .map_err(|e| ClusterError::Corrupt(format!("encoding the input: {e}")))?;
    let subject = job
        .subject
        .map(|s| serde_json::to_string(s).expect("a subject encodes"));
    let shape = serde_json::to_string(&job.shape).expect("a shape encodes");
    let mut tx = db.client.transaction().map_err(e)?;
    let id: i64 = tx
        .query_one(
            "INSERT INTO cluster_jobs (label, kind, subject, exe_commit, vm_config, input, input_keccak, segments, shape)
             VALUES ($1, $2, ($3::text)::jsonb, $4, $5, $6, $7, $8, ($9::text)::jsonb) RETURNING id",
            &[
                &job.label,
                &job.kind,
                &subject,
                &job.exe_commit,
                &job.vm_config,
                &input,
                &input_digest(&items).as_slice(),
                &(job.segments as i32),
                &shape,
            ],
        )
        .map_err(e)?
        .get(0);
    let mut ids = Vec::with_capacity(plan.len());
    for task in plan {
        let work = serde_json::to_string(&task.work).expect("work encodes");
        let state = if task.deps.is_empty() {
            "ready"
        } else {
            "blocked"
        };
        let row = tx
            .query_one(
                "INSERT INTO cluster_tasks (job, stage, layer, idx, work, state, waiting, memory_mib, max_attempts)
                 VALUES ($1, $2, $3, $4, ($5::text)::jsonb, $6, $7, $8, $9) RETURNING id",
                &[
                    &id,
                    &task.stage.name(),
                    &(task.layer as i32),
                    &(task.index as i32),
                    &work,
                    &state,
                    &(task.deps.len() as i32),
                    &memory(&task.work),
                    &MAX_ATTEMPTS,
                ],
            )
            .map_err(e)?;
        let task_id: i64 = row.get(0);
        for (pos, &dep) in task.deps.iter().enumerate() {
            tx.execute(
                "INSERT INTO cluster_deps (task, dep, pos) VALUES ($1, $2, $3)",
                &[&task_id, &ids[dep], &(pos as i32)],
            )
            .map_err(e)?;
        }
        ids.push(task_id);
    }
    if !link(&mut tx, id).map_err(e)? {
        tx.rollback().map_err(e)?;
        return Ok(None);
    }
    super::queue::notify(&mut tx, id).map_err(e)?;
    tx.commit().map_err(e)?;
    Ok(Some(id))
}

/// Reads job `id` as workers use it; a row that does not decode is [`ClusterError::Corrupt`].
pub fn load_job(db: &mut Db, id: i64) -> Result<super::task::Job, ClusterError> {
    let row = db
        .client
        .query_opt(
            "SELECT label, kind, subject::text, exe_commit, vm_config, input, input_keccak, segments, shape::text
             FROM cluster_jobs WHERE id = $1",
            &[&id],
        )
        .map_err(|e| db.err(e))?
        .ok_or(ClusterError::NoJob(id))?;
    let corrupt =
        |what: &str, why: String| ClusterError::Corrupt(format!("job {id}: {what}: {why}"));
    let kind: String = row.get(1);
    let subject: Option<String> = row.get(2);
    let subject = match (kind.as_str(), subject) {
        ("probe", None) => None,
        ("proof", Some(s)) => {
            Some(serde_json::from_str(&s).map_err(|e| corrupt("subject", e.to_string()))?)
        }
        (kind, _) => return Err(corrupt("kind", format!("`{kind}` with that subject"))),
    };
    let input: Vec<u8> = row.get(5);
    let keccak: Vec<u8> = row.get(6);
    let shape: String = row.get(8);
    let segments: i32 = row.get(7);
    let input: Vec<Vec<u8>> =
        bitcode::deserialize(&input).map_err(|e| corrupt("input", e.to_string()))?;
    let items: Vec<&[u8]> = input.iter().map(Vec::as_slice).collect();
    if input_digest(&items).as_slice() != keccak.as_slice() {
        return Err(corrupt(
            "input",
            "its keccak is not the recorded one".into(),
        ));
    }
    Ok(super::task::Job {
        id,
        label: row.get(0),
        subject,
        exe_commit: row.get(3),
        vm_config: row.get(4),
        input,
        input_keccak: alloy_primitives::B256::try_from(keccak.as_slice())
            .map_err(|e| corrupt("input keccak", e.to_string()))?,
        segments: usize::try_from(segments).map_err(|e| corrupt("segments", e.to_string()))?,
        shape: serde_json::from_str(&shape).map_err(|e| corrupt("shape", e.to_string()))?,
    })
}
