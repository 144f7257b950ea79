//! `host serve`'s state in PostgreSQL, beside the cluster's (schema version 3): the stdin each
//! client uploaded (`serve_inputs`) and each proof's state, cluster job and final proof
//! (`serve_proofs`). Nothing lives in a server's memory, so a restarted server loses nothing,
//! and every transition is one conditional `UPDATE`: two servers on one database never both
//! submit a proof or both settle it.
//!
//! A proof's states: `queued` (started, not yet submitted), `submitting` (a server holds it
//! under a lease while it validates the stdin natively and meters the run), `proving` (its
//! cluster job runs), `checking` (a server holds it while it checks the final proof), then
//! `completed`, `failed` or `canceled`; `failing` while a failed job's other tasks drain.

use cluster::queue::tx_err;
use cluster::{ClusterError, Db, CHANNEL};
use postgres::GenericClient;

use super::loadout::{Entry, ProgramRef};

/// The longest `proof_uuid` accepted.
pub const MAX_UUID_LEN: usize = 256;

/// Whether `uuid` is a `proof_uuid` this service accepts: 1 to [`MAX_UUID_LEN`] ASCII
/// alphanumerics, `_` and `-`. Anything else is refused before it reaches the database.
pub fn check_uuid(uuid: &str) -> Result<(), &'static str> {
    if uuid.is_empty() {
        return Err("must not be empty");
    }
    if uuid.len() > MAX_UUID_LEN {
        return Err("too long (at most 256 characters)");
    }
    if !uuid
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
    {
        return Err("contains characters other than ASCII letters, digits, '_' and '-'");
    }
    Ok(())
}

/// A proof's status as the API reports it (zkboost's `ProofStatus`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Queued, submitting, proving or checking.
    InProgress,
    /// The final proof is checked and stored.
    Completed,
    /// The job failed and its other tasks are draining.
    Failing(String),
    /// Failed, with why.
    Failed(String),
    /// Canceled by a client.
    Canceled,
}

impl Status {
    /// Whether it is final.
    pub fn settled(&self) -> bool {
        matches!(
            self,
            Status::Completed | Status::Failed(_) | Status::Canceled
        )
    }
}

/// A proof's row.
#[derive(Debug, Clone)]
pub struct ProofRow {
    /// Its id.
    pub uuid: String,
    /// The program as the client named it.
    pub program: ProgramRef,
    /// The state column.
    pub state: String,
    /// Why it failed.
    pub error: Option<String>,
    /// Its cluster job.
    pub job: Option<i64>,
    /// The run's segments, once metered.
    pub segments: Option<i32>,
    /// When it was started (RFC 3339, UTC).
    pub created: String,
    /// When it last changed.
    pub updated: String,
    /// Milliseconds from start to its end, once it ended.
    pub latency_ms: Option<i64>,
}

impl ProofRow {
    /// Its status.
    pub fn status(&self) -> Status {
        let why = || self.error.clone().unwrap_or_default();
        match self.state.as_str() {
            "completed" => Status::Completed,
            "failing" => Status::Failing(why()),
            "failed" => Status::Failed(why()),
            "canceled" => Status::Canceled,
            _ => Status::InProgress,
        }
    }
}

const RFC3339: &str = r#"'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'"#;

fn e(db: &Db) -> impl Fn(postgres::Error) -> ClusterError + '_ {
    |source| db.err(source)
}

/// What an upload did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uploaded {
    /// Stored (replacing an earlier upload for a proof not started).
    Stored,
    /// A proof of that id exists: its input is fixed.
    ProofExists,
}

/// Stores `stdin` (already decoded once, so known well-formed) for proof `uuid`.
pub fn upload(db: &mut Db, uuid: &str, stdin: &[u8]) -> Result<Uploaded, ClusterError> {
    let name = db.name();
    let err = tx_err(&name);
    let mut tx = db.client.transaction().map_err(&err)?;
    // Serialised with `start` on the id, so an upload never lands under a started proof.
    tx.execute(
        "SELECT pg_advisory_xact_lock(7452021, hashtext($1))",
        &[&uuid],
    )
    .map_err(&err)?;
    let exists: bool = tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM serve_proofs WHERE proof_uuid = $1)",
            &[&uuid],
        )
        .map_err(&err)?
        .get(0);
    if exists {
        return Ok(Uploaded::ProofExists);
    }
    tx.execute(
        "INSERT INTO serve_inputs (proof_uuid, stdin) VALUES ($1, $2)
         ON CONFLICT (proof_uuid) DO UPDATE SET stdin = EXCLUDED.stdin, uploaded = now()",
        &[&uuid, &stdin],
    )
    .map_err(&err)?;
    tx.commit().map_err(&err)?;
    Ok(Uploaded::Stored)
}

/// What a start did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Started {
    /// Queued.
    Queued,
    /// A proof of that id exists.
    ProofExists,
    /// Nothing was uploaded for it.
    NoInput,
}

/// Starts proof `uuid` of `entry`'s guest (named `asked` by the client) on its uploaded stdin.
pub fn start(
    db: &mut Db,
    uuid: &str,
    entry: &Entry,
    asked: &ProgramRef,
) -> Result<Started, ClusterError> {
    let name = db.name();
    let err = tx_err(&name);
    let mut tx = db.client.transaction().map_err(&err)?;
    tx.execute(
        "SELECT pg_advisory_xact_lock(7452021, hashtext($1))",
        &[&uuid],
    )
    .map_err(&err)?;
    let (exists, uploaded): (bool, bool) = {
        let row = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM serve_proofs WHERE proof_uuid = $1),
                        EXISTS (SELECT 1 FROM serve_inputs WHERE proof_uuid = $1)",
                &[&uuid],
            )
            .map_err(&err)?;
        (row.get(0), row.get(1))
    };
    if exists {
        return Ok(Started::ProofExists);
    }
    if !uploaded {
        return Ok(Started::NoInput);
    }
    tx.execute(
        "INSERT INTO serve_proofs (proof_uuid, program, version, bin, state)
         VALUES ($1, $2, $3, $4, 'queued')",
        &[
            &uuid,
            &asked.name,
            &(asked.version as i32),
            &entry.program.bin(),
        ],
    )
    .map_err(&err)?;
    notify(&mut tx, uuid).map_err(&err)?;
    tx.commit().map_err(&err)?;
    Ok(Started::Queued)
}

/// Wakes the servers (and the cluster's listeners) on [`CHANNEL`].
pub fn notify(tx: &mut impl GenericClient, uuid: &str) -> Result<(), postgres::Error> {
    tx.execute(
        "SELECT pg_notify($1, $2)",
        &[&CHANNEL, &format!("serve:{uuid}")],
    )?;
    Ok(())
}

/// Proof `uuid`'s row.
pub fn get(db: &mut Db, uuid: &str) -> Result<Option<ProofRow>, ClusterError> {
    let sql = format!(
        "SELECT proof_uuid, program, version, state, error, job, segments,
                to_char(created AT TIME ZONE 'UTC', {RFC3339}),
                to_char(updated AT TIME ZONE 'UTC', {RFC3339}),
                (extract(epoch FROM finished - created) * 1000)::BIGINT
         FROM serve_proofs WHERE proof_uuid = $1"
    );
    let row = db.client.query_opt(&sql, &[&uuid]).map_err(e(db))?;
    Ok(row.map(|r| ProofRow {
        uuid: r.get(0),
        program: ProgramRef {
            name: r.get(1),
            version: r.get::<_, i32>(2) as u32,
        },
        state: r.get(3),
        error: r.get(4),
        job: r.get(5),
        segments: r.get(6),
        created: r.get(7),
        updated: r.get(8),
        latency_ms: r.get(9),
    }))
}

/// Done proofs of `job` per stage: (app, leaf, internal).
pub fn proofs_done(db: &mut Db, job: i64) -> Result<(i64, i64, i64), ClusterError> {
    let row = db
        .client
        .query_one(
            "SELECT count(*) FILTER (WHERE stage = 'segments'),
                    count(*) FILTER (WHERE stage = 'leaves'),
                    count(*) FILTER (WHERE stage = 'internal')
             FROM cluster_tasks WHERE job = $1 AND state = 'done'",
            &[&job],
        )
        .map_err(e(db))?;
    Ok((row.get(0), row.get(1), row.get(2)))
}

/// A proof's state column and, once completed, its final proof's bytes.
pub type Download = (String, Option<Vec<u8>>);

/// Proof `uuid`'s state and, once completed, its final proof's bytes.
pub fn proof(db: &mut Db, uuid: &str) -> Result<Option<Download>, ClusterError> {
    let row = db
        .client
        .query_opt(
            "SELECT state, proof FROM serve_proofs WHERE proof_uuid = $1",
            &[&uuid],
        )
        .map_err(e(db))?;
    Ok(row.map(|r| (r.get(0), r.get(1))))
}

/// Cancels proof `uuid` if it has not ended: it is `canceled`, and its cluster job is canceled
/// with it (no task of it stays claimed). Whether it was canceled now.
pub fn cancel(db: &mut Db, uuid: &str) -> Result<bool, ClusterError> {
    let name = db.name();
    let err = tx_err(&name);
    let mut tx = db.client.transaction().map_err(&err)?;
    let row = tx
        .query_opt(
            "UPDATE serve_proofs SET state = 'canceled', owner = NULL, lease_until = NULL,
                 updated = now(), finished = now()
             WHERE proof_uuid = $1
               AND state IN ('queued', 'submitting', 'proving', 'checking', 'failing')
             RETURNING job",
            &[&uuid],
        )
        .map_err(&err)?;
    let Some(row) = row else {
        return Ok(false);
    };
    if let Some(job) = row.get::<_, Option<i64>>(0) {
        cluster::queue::cancel_job(&mut tx, job, &format!("proof {uuid} canceled by a client"))
            .map_err(&err)?;
    }
    notify(&mut tx, uuid).map_err(&err)?;
    tx.commit().map_err(&err)?;
    Ok(true)
}

/// Workers seen in the last `within_secs` seconds.
pub fn workers_seen(db: &mut Db, within_secs: f64) -> Result<i64, ClusterError> {
    let row = db
        .client
        .query_one(
            "SELECT count(*) FROM cluster_workers WHERE seen > now() - make_interval(secs => $1)",
            &[&within_secs],
        )
        .map_err(e(db))?;
    Ok(row.get(0))
}
