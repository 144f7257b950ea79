//! `host cluster …`: one block proved by many workers through PostgreSQL (`cluster`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use cluster::{self, model, status, submit, worker, Db};
use host::print::write_json;
use host::target::Target;
use prover::guest::Keccak;
use prover::proof::Limits;

#[derive(Args)]
pub struct ClusterArgs {
    /// The database: `postgres://USER:PASSWORD@HOST:PORT/DB` or `host=… user=… dbname=…`.
    /// Default: `$DATABASE_URL`. The password is never printed.
    #[arg(long, global = true)]
    db: Option<String>,
    #[command(subcommand)]
    command: ClusterCommand,
}

/// How a job's run is cut and its proofs aggregated: `host cluster submit`'s and `host serve`'s.
#[derive(Args)]
pub struct SplitArgs {
    /// End a segment when its proving-memory estimate reaches this many MiB (default as
    /// `host prove`: 4096 on the CPU prover).
    #[arg(long)]
    pub segment_memory_mib: Option<usize>,
    /// Segments per segment task.
    #[arg(long, default_value_t = 1)]
    segments_per_task: usize,
    /// App proofs per leaf node (1 to OpenVM's 4): fewer make more leaves to prove at once.
    #[arg(long, default_value_t = openvm_sdk::config::MAX_NUM_CHILDREN_LEAF)]
    leaf_children: usize,
    /// Proofs per internal node (2 to OpenVM's 3).
    #[arg(long, default_value_t = openvm_sdk::config::MAX_NUM_CHILDREN_INTERNAL)]
    internal_children: usize,
}

impl SplitArgs {
    /// The aggregation tree they give.
    pub fn shape(&self) -> Result<cluster::TreeShape, cluster::ShapeError> {
        cluster::TreeShape::new(
            self.segments_per_task,
            self.leaf_children,
            self.internal_children,
        )
    }
}

#[derive(Subcommand)]
enum ClusterCommand {
    /// Create (or upgrade) the cluster's tables; idempotent.
    Init,
    /// Validate a block natively, meter its run once, and store the job with its whole task
    /// graph (segments, leaf and internal aggregation nodes, the wrap); prints `job <id>`.
    Submit {
        #[command(flatten)]
        target: Target,
        /// The guest's keccak.
        #[arg(long, value_enum, default_value_t = Keccak::Ours)]
        keccak: Keccak,
        /// log2 of a segment's maximum trace height.
        #[arg(long, default_value_t = 21)]
        log_stacked_height: usize,
        #[command(flatten)]
        split: SplitArgs,
    },
    /// Claim and run tasks until stopped: prove, store the artifact, release what waits on it.
    Worker {
        /// Run one task (none when none is ready) and exit.
        #[arg(long)]
        once: bool,
        /// Claim only tasks that need at most this many MiB. Default: this machine's memory.
        #[arg(long)]
        max_memory_mib: Option<i64>,
        /// The machine this worker runs on: the workers of one machine share its memory
        /// budget. Default: the hostname.
        #[arg(long)]
        machine: Option<String>,
        /// What the running tasks of all this machine's workers may need together, MiB (0: no
        /// shared budget). Default: this machine's memory.
        #[arg(long)]
        machine_memory_mib: Option<i64>,
        /// Seconds a claim holds without a heartbeat (a dead worker's task is retried after).
        #[arg(long, default_value_t = 60.0)]
        lease_secs: f64,
        /// Seconds between looks at the queue when no notification arrives.
        #[arg(long, default_value_t = 5.0)]
        poll_secs: f64,
        /// This worker's name in the tasks. Default: `hostname:pid`.
        #[arg(long)]
        name: Option<String>,
    },
    /// Per job and stage: tasks done, running, ready, blocked, failed; with `--tasks` each
    /// task's worker, attempts, time and peak memory. Given a running job on a terminal, it
    /// then follows it on one live line.
    Status {
        /// Only this job.
        job: Option<i64>,
        /// Every task.
        #[arg(long)]
        tasks: bool,
        /// Write the status as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Wait for a job, check its proof and write it: the job's guest and VM, verified against
    /// their pinned commitments (as `host verify`), its public values the job's block and chain
    /// config. Exit 1 when the proof is refused.
    Wait {
        /// The job.
        job: i64,
        /// Where to write the proof.
        #[arg(long)]
        out: PathBuf,
        /// No live progress line.
        #[arg(long)]
        quiet: bool,
    },
    /// Model a job's wall time on N workers by the queue's own order: from a job's measured
    /// tasks (`--job`), or from per-kind seconds for a run of `--segments` segments.
    Plan {
        /// A job whose tasks are done (their measured seconds).
        #[arg(long, conflicts_with = "segments")]
        job: Option<i64>,
        /// Segments of the run to model.
        #[arg(long, required_unless_present = "job")]
        segments: Option<usize>,
        /// Seconds per segment task, in order (cycled).
        #[arg(long, value_delimiter = ',')]
        segment_secs: Vec<f64>,
        /// Seconds per leaf node.
        #[arg(long)]
        leaf_secs: Option<f64>,
        /// Seconds per internal node, per layer (the last for deeper layers).
        #[arg(long, value_delimiter = ',')]
        internal_secs: Vec<f64>,
        /// Seconds of the wrap.
        #[arg(long)]
        wrap_secs: Option<f64>,
        /// Worker counts to model.
        #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,43")]
        workers: Vec<usize>,
        /// Write the schedules as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

/// This machine's memory, MiB.
fn physical_memory_mib() -> i64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
            line.split_whitespace().nth(1)?.parse::<i64>().ok()
        })
        .map_or(i64::MAX, |kb| kb / 1024)
}

pub fn run(args: ClusterArgs) -> anyhow::Result<ExitCode> {
    let url = || cluster::database_url(args.db.as_deref());
    match args.command {
        ClusterCommand::Init => {
            let mut db = Db::connect(&url()?)?;
            let applied = cluster::schema::init(&mut db)?;
            match applied.as_slice() {
                [] => println!(
                    "{}: schema up to date (version {})",
                    db.name(),
                    cluster::schema::version()
                ),
                versions => println!("{}: applied schema version(s) {versions:?}", db.name()),
            }
        }
        ClusterCommand::Submit {
            target,
            keccak,
            log_stacked_height,
            split,
        } => {
            let shape = split.shape()?;
            let mut db = Db::connect(&url()?)?;
            let native = super::validate_valid(&target, "nothing to prove")?;
            let limits = Limits::for_proving(log_stacked_height)
                .with_segment_memory_mib(split.segment_memory_mib);
            let input = native.guest_input();
            let submitted =
                submit::submit_block(&mut db, &target.block, &input, keccak, limits, shape)?;
            let stages: Vec<String> = submitted
                .tasks
                .iter()
                .map(|(s, n)| format!("{n} {}", s.name()))
                .collect();
            eprintln!(
                "{} segments; tasks: {}; program {}; submitted in {:.1} s",
                submitted.segments,
                stages.join(", "),
                submitted.exe_commit,
                submitted.seconds
            );
            println!("job {}", submitted.job);
        }
        ClusterCommand::Worker {
            once,
            max_memory_mib,
            machine,
            machine_memory_mib,
            lease_secs,
            poll_secs,
            name,
        } => {
            anyhow::ensure!(lease_secs >= 1.0, "--lease-secs must be at least 1");
            let options = worker::WorkerOptions {
                url: url()?,
                once,
                max_memory_mib: max_memory_mib.unwrap_or_else(physical_memory_mib),
                machine: machine.unwrap_or_else(worker::machine_name),
                machine_memory_mib: match machine_memory_mib {
                    Some(0) => None,
                    Some(mib) => Some(mib),
                    None => Some(physical_memory_mib()),
                },
                lease: Duration::from_secs_f64(lease_secs),
                name: name.unwrap_or_else(worker::default_name),
                poll: Duration::from_secs_f64(poll_secs.max(0.05)),
                patience: Duration::from_secs(600),
            };
            let name = options.name.clone();
            let report = worker::run(options)?;
            eprintln!(
                "worker {name}: {} done, {} failed, {} dropped late, {} inputs refused, {} jobs refused",
                report.done,
                report.failed,
                report.late,
                report.refused_inputs,
                report.refused_jobs.len()
            );
        }
        ClusterCommand::Status { job, tasks, json } => {
            let mut db = Db::connect(&url()?)?;
            let jobs = status::status(&mut db, job)?;
            status::print_status(&jobs, tasks);
            if let Some(path) = json {
                write_json(&path, &jobs)?;
            }
            let running = jobs.first().is_some_and(|j| j.state == "running");
            if let (Some(id), true) = (job, running) {
                if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                    let end = status::follow(&mut db, id, false)?;
                    println!("job {id} {}", end.state.to_uppercase());
                }
            }
        }
        ClusterCommand::Wait { job, out, quiet } => {
            let mut db = Db::connect(&url()?)?;
            let file = match status::wait(&mut db, job, &out, quiet) {
                Ok(file) => file,
                // A proof that does not verify, or is not the job's: refused, exit 1 (as
                // `host verify`'s INVALID); anything else is an error (exit 2).
                Err(
                    e
                    @ (cluster::ClusterError::NotTheJobs { .. } | cluster::ClusterError::Proof(_)),
                ) => {
                    println!("job {job}: proof REFUSED: {e}");
                    return Ok(ExitCode::from(1));
                }
                Err(e) => return Err(e.into()),
            };
            println!(
                "job {job}: proof of {} segments verified against {} -> {}",
                file.segments,
                if prover::proof::pin::Pinned::builtin(prover::guest::Program::Guest)?
                    .covers(&file.subject)
                {
                    "the pinned commitments"
                } else {
                    "this build"
                },
                out.display()
            );
        }
        ClusterCommand::Plan {
            job,
            segments,
            segment_secs,
            leaf_secs,
            internal_secs,
            wrap_secs,
            workers,
            json,
        } => {
            let (plan, seconds, source) = match (job, segments) {
                (Some(job), _) => {
                    let mut db = Db::connect(&url()?)?;
                    measured(&mut db, job)?
                }
                (None, Some(segments)) => {
                    anyhow::ensure!(
                        !segment_secs.is_empty() && !internal_secs.is_empty(),
                        "give --segment-secs and --internal-secs (and --leaf-secs, --wrap-secs)"
                    );
                    let (Some(leaf), Some(wrap)) = (leaf_secs, wrap_secs) else {
                        anyhow::bail!("give --leaf-secs and --wrap-secs");
                    };
                    let plan = cluster::graph::plan(segments, cluster::TreeShape::openvm_default());
                    let seconds =
                        model::kind_seconds(&plan, &segment_secs, leaf, &internal_secs, wrap);
                    (plan, seconds, "the given per-kind seconds".to_owned())
                }
                (None, None) => unreachable!("clap requires one"),
            };
            let path = model::critical_path(&plan, &seconds);
            let serial: f64 = seconds.iter().sum();
            println!(
                "{} tasks, from {source}: serial {serial:.0} s, critical path {path:.0} s ({:.1} min)",
                plan.len(),
                path / 60.0
            );
            println!("| workers | wall | wall (min) | utilisation |\n|---:|---:|---:|---:|");
            let schedules: Vec<model::Schedule> = workers
                .iter()
                .map(|&w| model::schedule(&plan, &seconds, w.max(1)))
                .collect();
            for s in &schedules {
                println!(
                    "| {} | {:.0} s | {:.1} | {:.0}% |",
                    s.workers,
                    s.makespan,
                    s.makespan / 60.0,
                    s.utilisation * 100.0
                );
            }
            if let Some(path) = json {
                write_json(&path, &schedules)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A finished job's graph and each task's measured seconds.
fn measured(
    db: &mut Db,
    job: i64,
) -> anyhow::Result<(Vec<cluster::graph::TaskPlan>, Vec<f64>, String)> {
    let loaded = submit::load_job(db, job)?;
    let plan = cluster::graph::plan(loaded.segments, loaded.shape);
    let rows = status::status(db, Some(job))?.remove(0).tasks;
    anyhow::ensure!(
        rows.len() == plan.len(),
        "job {job} has {} tasks, its graph {}",
        rows.len(),
        plan.len()
    );
    let seconds = rows
        .iter()
        .map(|t| {
            t.seconds.ok_or_else(|| {
                anyhow::anyhow!(
                    "task {} {}/{} of job {job} has no measured time",
                    t.stage,
                    t.layer,
                    t.index
                )
            })
        })
        .collect::<anyhow::Result<Vec<f64>>>()?;
    Ok((plan, seconds, format!("job {job}'s measured tasks")))
}
