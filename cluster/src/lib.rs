//! One block proved on many machines: PostgreSQL holds the queue, the task graph and the
//! artifacts; workers are `host cluster worker` processes on any machine that reaches it.
//!
//! A job ([`submit`]) is one run of a guest on its stdin (the block guest on a block, or, from
//! `host serve`, the standard guest on a stateless input) cut into tasks ([`graph`]): an app proof per
//! segment (or small group of segments), then every node of OpenVM's aggregation tree as its
//! own task, then the wrap. A worker ([`worker`]) claims a ready task with
//! `FOR UPDATE SKIP LOCKED` and a lease it heartbeats, proves it, and in one transaction stores
//! the artifact with its keccak and releases the tasks that wait on it ([`queue`]). Idle
//! workers sleep on `LISTEN`; every state change `NOTIFY`s them. `status` and `wait`
//! ([`status`]) read the same tables; `plan` ([`model`]) models the wall time for N workers.
//!
//! **The database is not trusted with soundness.** Whoever can write its rows can make a job
//! fail or stall, never make a wrong proof verify:
//! - every artifact a task consumes is checked against the keccak its producer stored, then
//!   decoded and checked again: app proofs against the app verifying key and the job's program,
//!   input and segment count; aggregation proofs against their circuit's verifying key. A
//!   refused artifact sends its producer back to the queue ([`queue::Queue::refuse_artifact`]);
//! - a worker builds the guest from its own source and refuses a job whose program commitment
//!   or VM config is not its own build's;
//! - the final proof is what `host verify` checks against the pinned commitments, and
//!   `host cluster wait` checks it the same way before writing it.
//!
//! Credentials come from `--db URL` or `DATABASE_URL` and are never printed ([`redact`]).

pub mod claim;
pub mod expect;
pub mod graph;
mod heartbeat;
pub mod model;
pub mod probe;
pub mod queue;
mod redact;
pub mod schema;
pub mod status;
pub mod submit;
pub mod task;
pub mod work;
pub mod worker;

use std::time::Duration;

pub use graph::{ShapeError, Stage, TreeShape, Work};
pub use queue::Queue;
pub use redact::redact;

/// The environment variable that names the database when `--db` is not given.
pub const DATABASE_URL: &str = "DATABASE_URL";

/// The channel every state change is notified on.
pub const CHANNEL: &str = "stateless_verifier_tasks";

/// What can go wrong in the cluster.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// No database named.
    #[error("no database: give --db URL or set {DATABASE_URL}")]
    NoDatabase,
    /// The database refused or dropped the connection, or a statement failed.
    #[error("database {url}: {}", describe(source))]
    Db {
        /// The URL, without its password.
        url: String,
        /// PostgreSQL's error.
        source: postgres::Error,
    },
    /// The schema is newer than this build knows.
    #[error("the database's cluster schema is version {found}; this build knows up to {known}")]
    SchemaVersion {
        /// The database's.
        found: i32,
        /// This build's.
        known: i32,
    },
    /// No such job.
    #[error("no job {0}")]
    NoJob(i64),
    /// The job failed.
    #[error("job {job} failed: {error}")]
    JobFailed {
        /// The job.
        job: i64,
        /// Its error.
        error: String,
    },
    /// Proving, verifying or building failed.
    #[error(transparent)]
    Proof(#[from] prover::proof::ProofError),
    /// A job's final proof verifies but is not the job's: of another guest or VM, or of
    /// another block or chain config.
    #[error("job {job}'s proof is not the job's: {what}")]
    NotTheJobs {
        /// The job.
        job: i64,
        /// What differs.
        what: String,
    },
    /// A stored row or artifact is not what it should be.
    #[error("{0}")]
    Corrupt(String),
}

impl ClusterError {
    /// A connection-level failure (the server went away, refused or restarted): worth a
    /// reconnect, unlike a failed statement.
    pub fn is_connection(&self) -> bool {
        match self {
            ClusterError::Db { source, .. } => {
                source.is_closed()
                    || source.as_db_error().is_none_or(|db| {
                        // admin_shutdown, crash_shutdown, cannot_connect_now
                        matches!(db.code().code(), "57P01" | "57P02" | "57P03")
                    })
            }
            _ => false,
        }
    }
}

/// A PostgreSQL error with the server's message (its `Display` alone says only "db error").
fn describe(error: &postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return format!("{} ({})", db.message(), db.code().code());
    }
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// The database URL: `--db`, else `$DATABASE_URL`.
pub fn database_url(flag: Option<&str>) -> Result<String, ClusterError> {
    match flag {
        Some(url) => Ok(url.to_owned()),
        None => std::env::var(DATABASE_URL).map_err(|_| ClusterError::NoDatabase),
    }
}

/// A connection, with the URL it was opened with (for reconnects and redacted errors).
pub struct Db {
    /// The connection.
    pub client: postgres::Client,
    url: String,
}

impl Db {
    /// Connects to `url` (no TLS: run it over a private network or an SSH tunnel).
    pub fn connect(url: &str) -> Result<Self, ClusterError> {
        let client =
            postgres::Client::connect(url, postgres::NoTls).map_err(|source| ClusterError::Db {
                url: redact(url),
                source,
            })?;
        Ok(Self {
            client,
            url: url.to_owned(),
        })
    }

    /// Connects, retrying connection failures for up to `patience` (a server restarting).
    pub fn connect_patiently(url: &str, patience: Duration) -> Result<Self, ClusterError> {
        let started = std::time::Instant::now();
        let mut said = false;
        loop {
            match Self::connect(url) {
                Ok(db) => return Ok(db),
                Err(e) if started.elapsed() < patience => {
                    if !said {
                        eprintln!("waiting for the database: {e}");
                        said = true;
                    }
                    std::thread::sleep(Duration::from_millis(500));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The URL without its password.
    pub fn name(&self) -> String {
        redact(&self.url)
    }

    /// The URL, for another connection.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Wraps a PostgreSQL error with the redacted URL.
    pub fn err(&self, source: postgres::Error) -> ClusterError {
        ClusterError::Db {
            url: self.name(),
            source,
        }
    }
}

/// Keccak of an artifact, as stored beside it.
pub fn artifact_hash(bytes: &[u8]) -> Vec<u8> {
    alloy_primitives::keccak256(bytes).to_vec()
}
