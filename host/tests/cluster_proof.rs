//! One block's segments proved by a cluster of `host cluster worker` processes over a private
//! PostgreSQL, one of them killed mid-task; the block guest's aggregated proof of the job
//! accepted by `host cluster wait`, verified, and every tampering refused; the cluster's
//! segment parts joined by `host prove --join` into an app proof of the same public values.
//!
//! The small devnet block is cut into 2 segments by lowering the segment memory cap
//! (`--segment-memory-mib 1536`; from 2048 on it is one segment), the fewest that still make a
//! join. `host cluster submit` stores the job and its graph (2 segment tasks, a leaf, two
//! internal nodes, the wrap). Worker A claims a segment and is killed (SIGKILL) while proving
//! it; workers B and C prove one segment each, A's once its lease expires.
//!
//! The aggregation nodes are not proved here: they are the same leaf, internal and wrap
//! circuits over the same VM for every guest, and `serve.rs` proves them through these
//! workers for the standard guest. The block guest's aggregated proof of this job is the one
//! committed in `tests/data/devnet-small.block.proof` (made by `scripts/block-proof.sh`),
//! planted as the job's final artifact: `host cluster wait` accepts it only if it verifies
//! against the pinned commitments and proves the job's own block (a proof left stale by a
//! guest change fails here), and the app proof joined from the cluster's fresh segments must
//! prove the same public values. The proof is then checked here: valid under the devnet's
//! chain config with the native run's public values, against the repository's pinned
//! commitments (verifying against the guest rebuilt from source, `host verify --rebuild`, is
//! `prove.rs`'s and `standard_prove.rs`'s, for app proofs; for this aggregated proof, checked
//! against another program rebuilt from source, it refuses); every refusal of `host verify`
//! with its own error (another chain's digest, another guest, short public values, another VM
//! layout or segment height, claims, program, bytes or file tampered with). The cluster's
//! segment artifacts are `host prove --segments` part files: joins of a missing, duplicated or
//! foreign part are refused before any aggregation, and `host prove --join --app` joins them.
//! The proof's own bytes are within EIP-8025's 307,200. The database is not trusted: a forged
//! final artifact, a genuine proof of another block planted as another job's, and the same
//! proof planted as the proof of a job of another VM are each refused by `host cluster wait`
//! (exit 1, naming what differs; the two other jobs are copies of the job's rows with another
//! block's input or another VM's subject, what `host cluster submit` would write a minute
//! later); a real segment part with a byte flipped, and another segment's part stored under a
//! segment task, are refused by the leaf, which sends the producer back.

mod support;

use std::time::{Duration, Instant};

use cluster::{schema, Db};
use prover::proof::{self, Proof, ProofError};
use support::blocks;
use support::cli::host;
use support::cluster::{logging_worker, segment_task, Worker};
use support::pg::Pg;
use support::planted::{copy_job, leaf_with_input, plant_wrap, refused_wait, submit};

const BLOCK: &str = "devnet-small";
const SEGMENT_MEMORY_MIB: &str = "1536";

fn worker(url: &str, name: &str) -> Worker {
    logging_worker(url, &["--name", name, "--lease-secs", "10"])
}

fn count(db: &mut Db, sql: &str, job: i64) -> i64 {
    db.client.query_one(sql, &[&job]).unwrap().get(0)
}

/// Waits until `sql`, a count over job `job`, reaches `at_least`; fails with `what` after
/// `limit_secs`.
fn until(db: &mut Db, sql: &str, job: i64, at_least: i64, limit_secs: u64, what: &str) {
    let started = Instant::now();
    while count(db, sql, job) < at_least {
        assert!(
            started.elapsed() < Duration::from_secs(limit_secs),
            "{what}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn refused_join(parts: Vec<proof::PartFile>) -> String {
    match proof::join(parts, proof::ProofKind::Stark) {
        Err(ProofError::Parts(why)) => why,
        Err(e) => panic!("expected a refused join, got {e}"),
        Ok(_) => panic!("a bad join was accepted"),
    }
}

#[test]
fn a_block_proved_by_a_cluster_with_a_killed_worker_verifies() {
    // Each phase's time since the start: the test is CI's longest (minutes per phase).
    let start = Instant::now();
    let phase = |what: &str| eprintln!("[{:>5.0} s] {what}", start.elapsed().as_secs_f64());
    let dir = std::env::temp_dir().join(format!("cluster-proof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let joined = dir.join("joined.proof");
    let pg = Pg::start();
    phase("submitting the job");
    let url = pg.url();
    host(&["cluster", "init", "--db", &url]);
    let job = submit(&url, &blocks(), BLOCK, SEGMENT_MEMORY_MIB);
    let mut db = Db::connect(&url).unwrap();
    schema::check(&mut db).unwrap();
    assert_eq!(
        count(
            &mut db,
            "SELECT count(*) FROM cluster_tasks WHERE job = $1",
            job
        ),
        6
    );

    // Worker A claims a segment and dies mid-proof.
    phase("worker A starts");
    let mut a = worker(&url, "killed-a");
    let running_a = "SELECT count(*) FROM cluster_tasks WHERE job = $1 AND worker = 'killed-a' AND state = 'running'";
    until(&mut db, running_a, job, 1, 900, "worker A never claimed");
    std::thread::sleep(Duration::from_secs(5));
    a.kill().unwrap();
    a.wait().unwrap();
    phase("worker A killed; workers B and C start");
    // B and C prove the segments concurrently, A's again once its lease expires. The
    // aggregation nodes are not proved here: `serve.rs` proves them, through these workers, for
    // the standard guest (the same leaf, internal and wrap circuits, the same VM), and the
    // block guest's aggregated proof is the committed one below.
    let workers = [worker(&url, "b"), worker(&url, "c")];
    let cluster_started = Instant::now();
    let segments_done =
        "SELECT count(*) FROM cluster_tasks WHERE job = $1 AND stage = 'segments' AND state = 'done'";
    until(
        &mut db,
        segments_done,
        job,
        2,
        1800,
        "the segments were not proved in 30 minutes",
    );
    println!(
        "the cluster proved both segments in {:.0} s",
        cluster_started.elapsed().as_secs_f64()
    );
    for mut w in workers {
        w.kill().unwrap();
        w.wait().unwrap();
    }
    // A's task was redone by another worker; both B and C proved a segment.
    let redone = count(
        &mut db,
        "SELECT count(*) FROM cluster_tasks WHERE job = $1 AND stage = 'segments' AND attempts = 2 AND worker <> 'killed-a'",
        job,
    );
    let tasks = || support::cluster::status_tasks(&pg, job).1;
    assert_eq!(redone, 1, "{}", tasks());
    let by = |db: &mut Db, name: &str| -> i64 {
        db.client
            .query_one(
                "SELECT count(*) FROM cluster_tasks WHERE job = $1 AND worker = $2 AND stage = 'segments' AND state = 'done'",
                &[&job, &name],
            )
            .unwrap()
            .get(0)
    };
    assert!(
        by(&mut db, "b") == 1 && by(&mut db, "c") == 1,
        "{}",
        tasks()
    );

    // The block guest's aggregated proof of this job: the committed one, made by
    // `scripts/block-proof.sh` from this block with these limits. Planted as the job's final
    // artifact, `host cluster wait` accepts it only if it verifies against the pinned
    // commitments and proves the job's own block: a proof left stale by a guest change fails
    // here, naming the script that makes it again.
    phase("the block guest's aggregated proof, planted as the job's");
    let committed_path = committed_proof();
    let committed = proof::read(&committed_path)
        .unwrap_or_else(|e| panic!("{e}: make it with scripts/block-proof.sh"));
    plant_wrap(&mut db, job, &bitcode::serialize(&committed).unwrap());
    let (code, out) = support::cli::host_status(&[
        "cluster",
        "wait",
        &job.to_string(),
        "--db",
        &url,
        "--out",
        joined.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(
        code,
        Some(0),
        "{out}\n{}: not this guest's proof of the job; make it again with scripts/block-proof.sh",
        committed_path.display()
    );
    let (listed, status) = support::cluster::status_tasks(&pg, job);
    assert!(listed && status.contains("DONE"), "{status}");
    assert_eq!(
        std::fs::read(&joined).unwrap(),
        std::fs::read(&committed_path).unwrap(),
        "host cluster wait wrote another file than the job's proof"
    );

    phase("the cluster's proof written");
    // The segment artifacts are part files.
    let mut parts = Vec::new();
    for idx in 0..2 {
        let bytes: Vec<u8> = db
            .client
            .query_one(
                "SELECT a.bytes FROM cluster_tasks t JOIN cluster_artifacts a ON a.task = t.id
                 WHERE t.job = $1 AND t.stage = 'segments' AND t.idx = $2",
                &[&job, &idx],
            )
            .unwrap()
            .get(0);
        let part: proof::PartFile = bitcode::deserialize(&bytes).unwrap();
        let path = dir.join(format!("part-{idx}"));
        proof::write_part(&path, &part).unwrap();
        parts.push(path);
    }
    let (a, b) = (&parts[0], &parts[1]);
    let part_a = proof::read_part(a).unwrap();
    assert_eq!((part_a.total, part_a.range()), (2, 0..1));
    assert!(part_a.public_values.is_none() && proof::read_part(b).unwrap().public_values.is_some());

    // Refused joins, each before any aggregation.
    let why = refused_join(vec![proof::read_part(a).unwrap()]);
    assert!(why.contains("segments 1..2 are missing"), "{why}");
    let why = refused_join(vec![
        proof::read_part(a).unwrap(),
        proof::read_part(a).unwrap(),
        proof::read_part(b).unwrap(),
    ]);
    assert!(why.contains("proved twice"), "{why}");
    let mut foreign = proof::read_part(a).unwrap();
    foreign.input = alloy_primitives::B256::repeat_byte(7);
    let why = refused_join(vec![foreign, proof::read_part(b).unwrap()]);
    assert!(why.contains("another run"), "{why}");
    // Segment 0's proof presented as segment 1, the last, with the last part's public values:
    // the claims line up, the proofs do not chain.
    let mut shifted = proof::read_part(a).unwrap();
    shifted.first = 1;
    shifted.public_values = proof::read_part(b).unwrap().public_values;
    let why = refused_join(vec![proof::read_part(a).unwrap(), shifted]);
    assert!(why.contains("do not verify"), "{why}");

    phase("joining the parts into an app proof");
    // The parts join, in another process, into the app proof (one STARK per segment).
    let app = dir.join("app.proof");
    host(&[
        "prove",
        "--join",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--app",
        "--out",
        app.to_str().unwrap(),
    ]);
    let app_file = proof::read(&app).unwrap();
    assert!(matches!(app_file.proof, Proof::App(_)) && app_file.segments == 2);

    // The job's proof: one aggregated STARK.
    let file = proof::read(&joined).unwrap();
    assert_eq!(file.segments, 2);
    assert!(matches!(file.proof, Proof::Stark { .. }));
    let size = std::fs::metadata(&joined).unwrap().len();
    println!("2 segments joined into one STARK of {size} bytes");
    // Within EIP-8025's cap: the proof's own bytes, not only the file's.
    let Proof::Stark { encoded, .. } = &file.proof else {
        unreachable!()
    };
    assert!(
        encoded.len() <= prover::proof::agg::MAX_PROOF_SIZE,
        "{} bytes",
        encoded.len()
    );

    phase("verifying against the pin");
    // Valid under the devnet's config, proving the native run's public values, against the
    // repository's pinned commitments: no rebuild, no key cache. (Verifying against the guest
    // rebuilt from source, `host verify --rebuild`, is `standard_prove.rs`'s and `prove.rs`'s;
    // an aggregated proof checked against another program rebuilt from source is refused in
    // `every_refusal`; `pin.rs` checks the pins are what the source gives.)
    let native = host::native::run_native(&blocks(), BLOCK, None).unwrap();
    let chain = blocks().join(format!("{BLOCK}.chain.json"));
    let stdout = host(&[
        "verify",
        joined.to_str().unwrap(),
        "--chain",
        chain.to_str().unwrap(),
    ]);
    assert!(stdout.contains("VALID"), "{stdout}");
    let pinned = proof::Verifier::pinned(prover::guest::Program::Guest).unwrap();
    let started = std::time::Instant::now();
    let values = pinned.verify_block(&file, &native.chain, "devnet").unwrap();
    println!(
        "verified against the pinned commitments in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        values,
        program::PublicValues::new(&native.verdict.clone().unwrap(), &native.chain)
    );
    // The join's app proof proves the same public values.
    assert_eq!(verifier_app(&app_file), file.public_values);
    // The same by name.
    let stdout = host(&["verify", joined.to_str().unwrap(), "--chain", "devnet"]);
    assert!(stdout.contains("VALID"), "{stdout}");

    phase("every refusal");
    // Every refusal of `host verify` and of the verifiers, each with its own error.
    support::refusals::every_refusal(&joined, &dir, &pinned, &native);

    phase("planted final proofs");
    // The database is not trusted: the final artifact forged (a claim the proof does not
    // commit to, with a matching keccak) is refused by `host cluster wait`, exit 1, naming it.
    let genuine = bitcode::serialize(&proof::read(&joined).unwrap()).unwrap();
    let mut forged = proof::read(&joined).unwrap();
    forged.public_values[0] ^= 1;
    plant_wrap(&mut db, job, &bitcode::serialize(&forged).unwrap());
    let refused = refused_wait(&url, job, &dir);
    assert!(
        refused.contains("proof REFUSED") && refused.contains("the file claims"),
        "{refused}"
    );
    plant_wrap(&mut db, job, &genuine);

    // A genuine proof of another block, planted as the final proof of a job of the default
    // devnet block with the same guest and VM: refused naming the block hash.
    phase("another block's job");
    let devnet = host::native::run_native(&blocks(), "devnet", None).unwrap();
    let other = copy_job(&mut db, job, Some(&devnet.guest_input()), None);
    plant_wrap(&mut db, other, &genuine);
    let refused = refused_wait(&url, other, &dir);
    assert!(
        refused.contains(&format!("job {other}'s proof is not the job's"))
            && refused.contains("its block hash is"),
        "{refused}"
    );
    // The same block's job with another VM (segments cut elsewhere): refused naming the
    // subject, before any verification.
    phase("another VM's job");
    let mut subject = file.subject.clone();
    subject.segment_memory = 2048 << 20;
    let other_vm = copy_job(&mut db, job, None, Some(&subject));
    plant_wrap(&mut db, other_vm, &genuine);
    let refused = refused_wait(&url, other_vm, &dir);
    assert!(
        refused.contains("the job was submitted for") && refused.contains("2048 MiB segments"),
        "{refused}"
    );

    phase("tampered segment parts");
    // Real segment parts tampered with, under matching keccaks: the leaf refuses each and
    // sends its producer back. First segment 0's part with one byte flipped.
    let (s0, s1) = (segment_task(&mut db, job, 0), segment_task(&mut db, job, 1));
    let part = |db: &mut Db, task: i64| -> Vec<u8> {
        db.client
            .query_one(
                "SELECT bytes FROM cluster_artifacts WHERE task = $1",
                &[&task],
            )
            .unwrap()
            .get(0)
    };
    let mut flipped = part(&mut db, s0);
    let at = flipped.len() / 2;
    flipped[at] ^= 0x01;
    let log = leaf_with_input(&url, &mut db, job, s0, &flipped);
    assert!(
        log.contains(&format!("refused the artifact of task {s0}")),
        "{log}"
    );
    phase("a substituted segment part");
    // Then segment 1's genuine part stored as segment 0's: a part of the run, not of its task.
    let substituted = part(&mut db, s1);
    let log = leaf_with_input(&url, &mut db, job, s0, &substituted);
    assert!(
        log.contains(&format!("refused the artifact of task {s0}"))
            && log.contains("a part of segments 1..2, its task proves segments 0..1"),
        "{log}"
    );
    phase("done");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The block guest's aggregated proof of [`BLOCK`] with [`SEGMENT_MEMORY_MIB`] segments, as
/// `scripts/block-proof.sh` makes it.
fn committed_proof() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/devnet-small.block.proof")
}

/// The public values an app proof commits to, checked against the program rebuilt from source.
fn verifier_app(file: &proof::ProofFile) -> Vec<u8> {
    proof::verify(file).unwrap()
}
