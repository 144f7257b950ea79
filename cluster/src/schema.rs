//! The cluster's tables, as versioned migrations.
//!
//! `cluster_schema` records each migration applied. [`init`] applies the missing ones in order,
//! each in its own transaction under an advisory lock, so it is idempotent and two processes
//! running it at once apply each migration once. A database newer than this build is refused.

use super::{ClusterError, Db};

/// The migrations, in order: version `i + 1` is `MIGRATIONS[i]`.
const MIGRATIONS: &[&str] = &[
    // 1: jobs, tasks, their dependencies, artifacts.
    r"
    CREATE TABLE cluster_jobs (
        id           BIGSERIAL PRIMARY KEY,
        label        TEXT NOT NULL,
        kind         TEXT NOT NULL,            -- 'proof' or 'probe' (the queue's own tests)
        state        TEXT NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'done', 'failed')),
        error        TEXT,
        subject      JSONB,                    -- proof::Subject: guest, keccak, VM limits
        exe_commit   TEXT NOT NULL,            -- the program commitment workers must match
        vm_config    TEXT NOT NULL,            -- keccak of the app verifying key
        input        BYTEA NOT NULL,           -- the guest's input items (bitcode)
        input_keccak BYTEA NOT NULL,           -- proof::input_digest of them
        segments     INTEGER NOT NULL,
        shape        JSONB NOT NULL,           -- graph::TreeShape
        created      TIMESTAMPTZ NOT NULL DEFAULT now(),
        finished     TIMESTAMPTZ
    );
    CREATE TABLE cluster_tasks (
        id           BIGSERIAL PRIMARY KEY,
        job          BIGINT NOT NULL REFERENCES cluster_jobs (id) ON DELETE CASCADE,
        stage        TEXT NOT NULL,
        layer        INTEGER NOT NULL,
        idx          INTEGER NOT NULL,
        work         JSONB NOT NULL,           -- graph::Work
        state        TEXT NOT NULL CHECK (state IN ('blocked', 'ready', 'running', 'done', 'failed')),
        waiting      INTEGER NOT NULL,         -- dependencies not done
        memory_mib   BIGINT NOT NULL,          -- what a worker needs to run it
        attempts     INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL,
        worker       TEXT,
        lease_until  TIMESTAMPTZ,
        started      TIMESTAMPTZ,
        finished     TIMESTAMPTZ,
        seconds      DOUBLE PRECISION,
        peak_rss     BIGINT,
        detail       TEXT,
        error        TEXT,
        output_hash  BYTEA,
        UNIQUE (job, stage, layer, idx)
    );
    CREATE INDEX cluster_tasks_claimable ON cluster_tasks (job, layer) WHERE state IN ('ready', 'running');
    CREATE TABLE cluster_deps (
        task BIGINT NOT NULL REFERENCES cluster_tasks (id) ON DELETE CASCADE,
        dep  BIGINT NOT NULL REFERENCES cluster_tasks (id) ON DELETE CASCADE,
        pos  INTEGER NOT NULL,
        PRIMARY KEY (task, dep)
    );
    CREATE INDEX cluster_deps_dep ON cluster_deps (dep);
    CREATE TABLE cluster_artifacts (
        task  BIGINT PRIMARY KEY REFERENCES cluster_tasks (id) ON DELETE CASCADE,
        hash  BYTEA NOT NULL,
        bytes BYTEA NOT NULL
    );
    ",
    // 2: the machine each claim runs on, for budgets shared by the workers of one machine.
    r"
    ALTER TABLE cluster_tasks ADD COLUMN machine TEXT;
    CREATE INDEX cluster_tasks_machine ON cluster_tasks (machine) WHERE state = 'running';
    ",
    // 3: the workers seen (`host serve`'s readiness), and `host serve`'s proofs: the stdin a
    // client uploaded, then the proof's state, its cluster job and its final proof.
    r"
    CREATE TABLE cluster_workers (
        name      TEXT PRIMARY KEY,
        machine   TEXT NOT NULL,
        seen      TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE TABLE serve_inputs (
        proof_uuid TEXT PRIMARY KEY,
        stdin      BYTEA NOT NULL,            -- OpenVM's StdIn as the client encoded it
        uploaded   TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE TABLE serve_proofs (
        proof_uuid  TEXT PRIMARY KEY,
        program     TEXT NOT NULL,            -- the loadout's name
        version     INTEGER NOT NULL,
        bin         TEXT NOT NULL,            -- the guest program it names
        state       TEXT NOT NULL CHECK (state IN ('queued', 'submitting', 'proving', 'checking',
                                                   'completed', 'failing', 'failed', 'canceled')),
        error       TEXT,
        job         BIGINT REFERENCES cluster_jobs (id) ON DELETE SET NULL,
        owner       TEXT,                     -- the `host serve` holding a submission or check
        lease_until TIMESTAMPTZ,
        segments    INTEGER,
        instructions BIGINT,
        proof       BYTEA,                    -- the final STARK, OpenVM's codec
        created     TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated     TIMESTAMPTZ NOT NULL DEFAULT now(),
        finished    TIMESTAMPTZ
    );
    CREATE INDEX serve_proofs_open ON serve_proofs (state)
        WHERE state IN ('queued', 'submitting', 'proving', 'checking', 'failing');
    ",
];

/// This build's schema version.
pub fn version() -> i32 {
    MIGRATIONS.len() as i32
}

/// Creates or upgrades the schema; returns the versions applied now (none when up to date).
pub fn init(db: &mut Db) -> Result<Vec<i32>, ClusterError> {
    db.client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS cluster_schema (
                version INTEGER PRIMARY KEY,
                applied TIMESTAMPTZ NOT NULL DEFAULT now()
            )",
        )
        .or_else(|e| {
            // Two processes creating it at once: one wins, the other sees a unique violation.
            if e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION) {
                Ok(())
            } else {
                Err(db.err(e))
            }
        })?;
    let mut applied = Vec::new();
    let name = db.name();
    for (i, sql) in MIGRATIONS.iter().enumerate() {
        let v = i as i32 + 1;
        let mut tx = db.client.transaction().map_err(|e| db_err(&name, e))?;
        tx.execute("SELECT pg_advisory_xact_lock(7452019)", &[])
            .map_err(|e| db_err(&name, e))?;
        let done: bool = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM cluster_schema WHERE version = $1)",
                &[&v],
            )
            .map_err(|e| db_err(&name, e))?
            .get(0);
        if !done {
            tx.batch_execute(sql).map_err(|e| db_err(&name, e))?;
            tx.execute("INSERT INTO cluster_schema (version) VALUES ($1)", &[&v])
                .map_err(|e| db_err(&name, e))?;
            applied.push(v);
        }
        tx.commit().map_err(|e| db_err(&name, e))?;
    }
    check(db)?;
    Ok(applied)
}

/// Refuses a database whose schema is missing or newer than this build's.
pub fn check(db: &mut Db) -> Result<(), ClusterError> {
    let row = db
        .client
        .query_one("SELECT coalesce(max(version), 0) FROM cluster_schema", &[])
        .map_err(|e| db.err(e))?;
    let found: i32 = row.get(0);
    if found != version() {
        return Err(ClusterError::SchemaVersion {
            found,
            known: version(),
        });
    }
    Ok(())
}

fn db_err(url: &str, source: postgres::Error) -> ClusterError {
    ClusterError::Db {
        url: url.to_owned(),
        source,
    }
}
