//! What each `host serve` does in the background, on a thread and a connection of its own:
//! submit the started proofs to the cluster, follow their jobs, and settle them.
//!
//! Every step is claimed in the database, so any number of servers share the work and none
//! does a step twice:
//! - **submit**: a `queued` proof (or a `submitting` one whose server's lease lapsed) is taken
//!   under a lease; its stdin is decoded, its block's gas limit held to `--max-gas` (what bounds
//!   the native run and the metering here), validated natively ([`cluster::expect`]: a block that
//!   is not valid has no proof, and says why), the run metered, and the cluster job inserted
//!   in the transaction that moves the proof to `proving`, on the condition that this server
//!   still holds it. A proof canceled meanwhile, or taken over, inserts no job.
//! - **follow**: a failed job makes its proof `failing` while other tasks still run, then
//!   `failed` with the job's error.
//! - **check**: a done job's proof is taken under a lease, its final proof checked
//!   ([`cluster::status::final_proof`]: against the pinned commitments, its public values those
//!   the job's stdin gives natively), the job it was checked against held to the proof's
//!   uploaded stdin and guest, then stored as OpenVM's codec encodes it, and the proof
//!   `completed`.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cluster::queue::tx_err;
use cluster::submit::{prepare, submit_program};
use cluster::work::Build;
use cluster::{ClusterError, Db, TreeShape, CHANNEL};
use postgres::fallible_iterator::FallibleIterator;
use prover::guest::{Keccak, Program};
use prover::proof::{input_digest, Limits};

use super::lease::Lease;
use super::store::notify;

/// How the conductor proves.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The database.
    pub url: String,
    /// This server's name in the leases it takes.
    pub owner: String,
    /// A claim's lease without renewal.
    pub lease: Duration,
    /// The guests' keccak.
    pub keccak: Keccak,
    /// Where segments end.
    pub limits: Limits,
    /// The aggregation tree.
    pub shape: TreeShape,
    /// The largest block gas limit a stdin may carry: the native validation and the metering
    /// run on this server before any worker is involved, and a hostile block's gas limit is
    /// what bounds them.
    pub max_gas: u64,
}

impl Settings {
    /// This server's lease on `uuid` in `state`, renewed until dropped.
    fn lease(&self, uuid: &str, state: &'static str) -> Lease {
        Lease::hold(&self.url, &self.owner, self.lease, uuid, state)
    }
}

/// Runs the conductor until `stop` is set.
pub fn run(settings: Settings, stop: Arc<AtomicBool>) {
    let mut conductor = Conductor {
        settings,
        builds: HashMap::new(),
    };
    let mut db: Option<Db> = None;
    while !stop.load(Ordering::Relaxed) {
        if db.is_none() {
            match Db::connect(&conductor.settings.url).and_then(|mut d| {
                d.client
                    .batch_execute(&format!("LISTEN {CHANNEL}"))
                    .map_err(|e| d.err(e))?;
                Ok(d)
            }) {
                Ok(d) => db = Some(d),
                Err(e) => {
                    eprintln!("serve: {e}; retrying");
                    std::thread::sleep(Duration::from_secs(1));
                    continue;
                }
            }
        }
        let conn = db.as_mut().expect("connected");
        match conductor.step(conn) {
            Ok(true) => {}
            Ok(false) => {
                let mut notifications = conn.client.notifications();
                let _ = notifications.timeout_iter(Duration::from_secs(1)).next();
                let _ = notifications.iter().count();
            }
            Err(e) => {
                eprintln!("serve: {e}");
                if e.is_connection() {
                    db = None;
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        }
    }
}

struct Conductor {
    settings: Settings,
    /// Per guest: its build.
    builds: HashMap<&'static str, Rc<Build>>,
}

impl Conductor {
    /// One round; whether anything was done.
    fn step(&mut self, db: &mut Db) -> Result<bool, ClusterError> {
        let mut worked = follow(db)?;
        if let Some((uuid, bin)) = self.claim::<String>(db, Claim::Submit)? {
            self.submit(db, &uuid, &bin)?;
            worked = true;
        }
        if let Some((uuid, job)) = self.claim::<i64>(db, Claim::Check)? {
            let bin: String = db
                .client
                .query_one(
                    "SELECT bin FROM serve_proofs WHERE proof_uuid = $1",
                    &[&uuid],
                )
                .map_err(|e| db.err(e))?
                .get(0);
            self.check(db, &uuid, job, &bin)?;
            worked = true;
        }
        Ok(worked)
    }

    /// Takes one proof for `what` under this server's lease: (uuid, bin) to submit, or
    /// (uuid, job) to check.
    fn claim<T: postgres::types::FromSqlOwned>(
        &self,
        db: &mut Db,
        what: Claim,
    ) -> Result<Option<(String, T)>, ClusterError> {
        let (state, sql) = match what {
            Claim::Submit => (
                "submitting",
                "SELECT proof_uuid FROM serve_proofs
                 WHERE state = 'queued' OR (state = 'submitting' AND lease_until < now())
                 ORDER BY created LIMIT 1 FOR UPDATE SKIP LOCKED",
            ),
            Claim::Check => (
                "checking",
                "SELECT p.proof_uuid FROM serve_proofs p JOIN cluster_jobs j ON j.id = p.job
                 WHERE (p.state = 'proving' AND j.state = 'done')
                    OR (p.state = 'checking' AND p.lease_until < now())
                 ORDER BY p.created LIMIT 1 FOR UPDATE OF p SKIP LOCKED",
            ),
        };
        let column = match what {
            Claim::Submit => "bin",
            Claim::Check => "job",
        };
        let row = db
            .client
            .query_opt(
                &format!(
                    "UPDATE serve_proofs SET state = $1, owner = $2,
                         lease_until = now() + make_interval(secs => $3), updated = now()
                     WHERE proof_uuid = ({sql}) RETURNING proof_uuid, {column}"
                ),
                &[
                    &state,
                    &self.settings.owner,
                    &self.settings.lease.as_secs_f64(),
                ],
            )
            .map_err(|e| db.err(e))?;
        Ok(row.map(|r| (r.get(0), r.get(1))))
    }

    /// `program`'s build, made once (a failure is not kept: the next proof tries again).
    fn build(&mut self, program: Program) -> Result<Rc<Build>, String> {
        if let Some(build) = self.builds.get(program.bin()) {
            return Ok(build.clone());
        }
        let (keccak, limits) = (self.settings.keccak, self.settings.limits);
        let build = Rc::new(prepare(program, keccak, limits).map_err(|e| e.to_string())?);
        self.builds.insert(program.bin(), build.clone());
        Ok(build)
    }

    fn submit(&mut self, db: &mut Db, uuid: &str, bin: &str) -> Result<(), ClusterError> {
        let _lease = self.settings.lease(uuid, "submitting");
        eprintln!("serve: proof {uuid}: submitting ({bin})");
        let owner = self.settings.owner.clone();
        let items = match stdin_of(db, uuid)? {
            Ok(items) => items,
            Err(why) => return settle(db, uuid, "submitting", &owner, Err(&why)),
        };
        let program = Program::from_bin(bin);
        if let Some(gas) = program.and_then(|p| gas_limit(p, &items)) {
            if gas > self.settings.max_gas {
                let why = format!(
                    "its block's gas limit {gas} is above this server's --max-gas {}",
                    self.settings.max_gas
                );
                return settle(db, uuid, "submitting", &owner, Err(&why));
            }
        }
        let expected = match program {
            Some(program) => cluster::expect::public_values(program, &items),
            None => Err(cluster::expect::NoProof::Program(bin.to_owned())),
        };
        if let Err(why) = expected {
            return settle(db, uuid, "submitting", &owner, Err(&why.to_string()));
        }
        let build = match self.build(program.expect("known above")) {
            Ok(build) => build,
            Err(why) => {
                let why = format!("this server cannot build the guest: {why}");
                return settle(db, uuid, "submitting", &owner, Err(&why));
            }
        };
        let linked = submit_program(
            db,
            &build,
            &format!("serve:{uuid}"),
            &items,
            self.settings.shape,
            |tx, job, segments| {
                let n = tx.execute(
                    "UPDATE serve_proofs SET state = 'proving', job = $2, segments = $3,
                         owner = NULL, lease_until = NULL, updated = now()
                     WHERE proof_uuid = $1 AND state = 'submitting' AND owner = $4",
                    &[&uuid, &job, &(segments as i32), &owner],
                )?;
                notify(tx, uuid)?;
                Ok(n == 1)
            },
        );
        match linked {
            Ok(Some(submitted)) => eprintln!(
                "serve: proof {uuid}: job {} of {} segments",
                submitted.job, submitted.segments
            ),
            Ok(None) => eprintln!("serve: proof {uuid}: no longer this server's; not submitted"),
            Err(e) if e.is_connection() => return Err(e),
            Err(e) => {
                let why = format!("submitting its job: {e}");
                return settle(db, uuid, "submitting", &owner, Err(&why));
            }
        }
        Ok(())
    }

    fn check(&mut self, db: &mut Db, uuid: &str, job: i64, bin: &str) -> Result<(), ClusterError> {
        let _lease = self.settings.lease(uuid, "checking");
        eprintln!("serve: proof {uuid}: checking job {job}'s proof");
        let owner = self.settings.owner.clone();
        let items = match stdin_of(db, uuid)? {
            Ok(items) => items,
            Err(why) => return settle(db, uuid, "checking", &owner, Err(&why)),
        };
        let (file, loaded) = match cluster::status::final_proof(db, job) {
            Ok(checked) => checked,
            Err(e) if e.is_connection() => return Err(e),
            Err(e) => {
                let why = format!("the final proof was refused: {e}");
                return settle(db, uuid, "checking", &owner, Err(&why));
            }
        };
        // The job the proof was checked against must be this proof's: its stdin and its guest.
        let slices: Vec<&[u8]> = items.iter().map(Vec::as_slice).collect();
        if loaded.input_keccak != input_digest(&slices) {
            let why = format!("job {job}'s input is not the stdin uploaded for this proof");
            return settle(db, uuid, "checking", &owner, Err(&why));
        }
        if file.subject.bin != bin {
            let why = format!(
                "job {job} proves guest `{}`, this proof asked for `{bin}`",
                file.subject.bin
            );
            return settle(db, uuid, "checking", &owner, Err(&why));
        }
        let prover::proof::Proof::Stark { encoded, .. } = file.proof else {
            unreachable!("final_proof refuses app proofs")
        };
        settle(db, uuid, "checking", &owner, Ok(&encoded))
    }
}

#[derive(Clone, Copy)]
enum Claim {
    Submit,
    Check,
}

/// The gas limit of the block `items` carry for `program` (`None` when they do not decode:
/// the guest then ends at once).
fn gas_limit(program: Program, items: &[Vec<u8>]) -> Option<u64> {
    match program {
        Program::Standard => {
            let [bytes] = items else { return None };
            let input = stateless_ssz::decode_input(bytes).ok()?;
            Some(input.new_payload_request.payload().gas_limit)
        }
        Program::Guest => {
            let input = program::input::GuestInput::from_items(items).ok()?;
            Some(program::decode_block(&input.block).ok()?.header.gas_limit)
        }
        _ => None,
    }
}

/// Proof `uuid`'s stdin buffers, or why there are none.
fn stdin_of(db: &mut Db, uuid: &str) -> Result<Result<Vec<Vec<u8>>, String>, ClusterError> {
    let row = db
        .client
        .query_opt(
            "SELECT stdin FROM serve_inputs WHERE proof_uuid = $1",
            &[&uuid],
        )
        .map_err(|e| db.err(e))?;
    let Some(row) = row else {
        return Ok(Err("its uploaded stdin is gone".into()));
    };
    let bytes: Vec<u8> = row.get(0);
    Ok(super::stdin::decode(&bytes).map_err(|e| format!("its stdin: {e}")))
}

/// Ends the step `from` (held by `owner`) of proof `uuid`: `completed` with its final proof,
/// or `failed` with why. Nothing changes when the proof is no longer `owner`'s.
fn settle(
    db: &mut Db,
    uuid: &str,
    from: &str,
    owner: &str,
    outcome: Result<&[u8], &str>,
) -> Result<(), ClusterError> {
    let name = db.name();
    let err = tx_err(&name);
    let mut tx = db.client.transaction().map_err(&err)?;
    let (state, proof, error) = match outcome {
        Ok(proof) => ("completed", Some(proof), None),
        Err(why) => ("failed", None, Some(why)),
    };
    let n = tx
        .execute(
            "UPDATE serve_proofs SET state = $2, proof = $3, error = $4, owner = NULL,
                 lease_until = NULL, updated = now(), finished = now()
             WHERE proof_uuid = $1 AND state = $5 AND owner = $6",
            &[&uuid, &state, &proof, &error, &from, &owner],
        )
        .map_err(&err)?;
    notify(&mut tx, uuid).map_err(&err)?;
    tx.commit().map_err(&err)?;
    if n == 1 {
        eprintln!(
            "serve: proof {uuid}: {state}{}",
            error.map(|e| format!(": {e}")).unwrap_or_default()
        );
    }
    Ok(())
}

/// Moves the proofs whose job failed (or vanished) to `failing` while other tasks of the job
/// still run, then to `failed` with the job's error; whether any moved.
fn follow(db: &mut Db) -> Result<bool, ClusterError> {
    let n = db
        .client
        .execute(
            "UPDATE serve_proofs p SET
                 state = CASE WHEN EXISTS (SELECT 1 FROM cluster_tasks t
                                           WHERE t.job = j.id AND t.state = 'running'
                                             AND t.lease_until >= now())
                              THEN 'failing' ELSE 'failed' END,
                 error = coalesce(j.error, 'its cluster job failed'),
                 updated = now(),
                 finished = CASE WHEN EXISTS (SELECT 1 FROM cluster_tasks t
                                              WHERE t.job = j.id AND t.state = 'running'
                                             AND t.lease_until >= now())
                                 THEN NULL ELSE now() END
             FROM cluster_jobs j
             WHERE j.id = p.job AND j.state = 'failed' AND p.state IN ('proving', 'failing')
               AND p.state <> CASE WHEN EXISTS (SELECT 1 FROM cluster_tasks t
                                                WHERE t.job = j.id AND t.state = 'running'
                                             AND t.lease_until >= now())
                                   THEN 'failing' ELSE 'failed' END",
            &[],
        )
        .map_err(|e| db.err(e))?;
    let gone = db
        .client
        .execute(
            "UPDATE serve_proofs SET state = 'failed', error = 'its cluster job was deleted',
                 updated = now(), finished = now()
             WHERE job IS NULL AND state IN ('proving', 'checking', 'failing')",
            &[],
        )
        .map_err(|e| db.err(e))?;
    Ok(n + gone > 0)
}
