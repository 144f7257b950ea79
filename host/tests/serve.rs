//! `host serve` as zkboost's OpenVM backend drives it, over a private PostgreSQL and real
//! `host cluster worker` processes.
//!
//! - `bad_requests_get_the_managers_answers`: every request the manager's document refuses, with
//!   its status and body (no worker, nothing proved), and a block over the server's gas cap
//!   failed before anything runs on it.
//! - `zkboost_sequence_proves_the_standard_input_through_a_cancel_and_a_restart`: two servers on
//!   one database. zkboost's loadout check (the standard guest's name from its ELF's SHA-256),
//!   a proof canceled while a worker proves its first segment (no task stays claimed; its event
//!   stream ends `canceled`), then the devnet-small block's standard input uploaded, started,
//!   followed as server-sent events, its server killed mid-proof and started again, the stream
//!   followed again to `completed`; the downloaded proof is accepted by `host verify --request`
//!   with no other file; the cluster holds one job for it (two servers did not both submit).

mod support;

use std::time::{Duration, Instant};

use cluster::Db;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use support::cli::{host, host_status};
use support::cluster::logging_worker;
use support::pg::Pg;
use support::serve::{encode_stdin, free_port, Api, Server};

/// The standard input of the devnet's small block, written by `host stateless-input`.
fn standard_input(dir: &std::path::Path) -> (std::path::PathBuf, Vec<u8>) {
    let path = dir.join("devnet-small.ssz");
    host(&[
        "stateless-input",
        "--block",
        "devnet-small",
        "--blocks-dir",
        support::blocks().to_str().unwrap(),
        "--out",
        path.to_str().unwrap(),
    ]);
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

/// zkboost's name of the standard guest: from the ELF `host serve` wrote, as zkboost names the
/// ELF it is configured with; checked against `/loadout` as zkboost checks it.
fn standard_program(api: &Api, elf_dir: &std::path::Path) -> String {
    let elf = prover::guest::GuestSpec::program(
        prover::guest::Program::Standard,
        prover::guest::Keccak::Ours,
    )
    .build_bytes()
    .unwrap();
    let digest = Sha256::digest(&elf);
    let name = format!("program-{}", alloy_primitives::hex::encode(&digest[..8]));
    assert_eq!(
        std::fs::read(elf_dir.join(format!("{name}.elf"))).unwrap(),
        elf,
        "the ELF host serve wrote is the standard guest's"
    );
    let (status, loadout) = api.get("/loadout");
    assert_eq!(status, 200);
    assert!(
        loadout["programs"]
            .as_array()
            .unwrap()
            .contains(&json!({ "name": name, "version": 0 })),
        "{loadout}"
    );
    name
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("serve-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn bad_requests_get_the_managers_answers() {
    let dir = temp("bad");
    let pg = Pg::start();
    // A gas cap below the devnet block's: a start of it fails at submission (below).
    let server = Server::start_with(
        &pg.url(),
        free_port(),
        &dir.join("elfs"),
        "serve-bad",
        &["--max-gas", "1000"],
    );
    let api = Api::new(&server.base);
    let program = standard_program(&api, &dir.join("elfs"));
    assert_eq!(api.get("/healthz"), (200, json!({ "status": "healthy" })));
    // No worker yet: not ready, and it says why.
    let (status, ready) = api.get("/readyz");
    assert_eq!(status, 503, "{ready}");
    assert_eq!(ready["ready"], false);
    assert!(
        ready["message"].as_str().unwrap().contains("no worker"),
        "{ready}"
    );
    let (status, caps) = api.get("/capabilities");
    assert_eq!(status, 200);
    assert_eq!(caps["proof_types"], json!(["stark"]));

    let stdin = encode_stdin(b"not a stateless input");
    // The proof_uuid allowlist: ASCII alphanumerics, '_' and '-', at most 256 characters.
    let long = "a".repeat(257);
    for uuid in ["bad.uuid", "bad%20uuid", long.as_str()] {
        let (status, body) = api.upload(uuid, "input", &stdin);
        assert_eq!(status, 400, "{uuid}: {body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("Invalid proof_uuid"),
            "{body}"
        );
        let (status, body) = api.start(uuid, &program);
        assert_eq!(status, 400, "{body}");
        for path in ["/proof_state/", "/proof/", "/proof_events/"] {
            let (status, body) = api.get(&format!("{path}{uuid}"));
            assert_eq!(status, 400, "{path}{uuid}: {body}");
        }
        let (status, _) = api.post("/cancel_proof", &json!({ "proof_uuid": uuid }));
        assert_eq!(status, 400);
    }
    // A refused upload is answered, not cut off, when its body is larger than what the
    // client writes in one go: the server reads it before it refuses.
    let large = encode_stdin(&vec![7u8; 512 << 10]);
    for _ in 0..8 {
        let (status, body) = api.upload("bad.uuid", "input", &large);
        assert_eq!(status, 400, "{body}");
        let (status, body) = api.upload("large", "proof", &large);
        assert_eq!(status, 400, "{body}");
    }
    assert_eq!(api.upload(&"a".repeat(256), "input", &stdin).0, 200);
    // Malformed stdins, each named.
    let mut deferred = stdin.clone();
    let n = deferred.len();
    deferred[n - 8] = 1;
    let mut trailing = stdin.clone();
    trailing.push(7);
    for (bytes, says) in [
        (&stdin[..5], "ends inside the buffer count"),
        (&stdin[..20], "claims 21 bytes"),
        (&deferred[..], "1 deferral"),
        (&trailing[..], "1 byte(s) after"),
        (&encode_stdin(b"")[..8], "ends inside"),
    ] {
        let (status, body) = api.upload("malformed", "input", bytes);
        assert_eq!(status, 400, "{body}");
        assert!(
            body["error"].as_str().unwrap().contains(says),
            "{says}: {body}"
        );
    }
    let (status, body) = api.upload("malformed", "deferral_state_0", &stdin);
    assert_eq!(status, 400);
    assert!(
        body["error"].as_str().unwrap().contains("deferral_state_0"),
        "{body}"
    );
    let (status, body) = api.post_raw(
        "/upload_input/malformed",
        &stdin,
        "application/octet-stream",
    );
    assert_eq!(status, 400, "not multipart: {body}");
    // Start: a malformed body, no program, a program not in the loadout, EVM, no input.
    let (status, body) = api.post_raw("/start_proof", b"{not json", "application/json");
    assert_eq!(status, 400);
    assert!(
        body["error"].as_str().unwrap().contains("Malformed body"),
        "{body}"
    );
    let (status, body) = api.post("/start_proof", &json!({ "proof_uuid": "p1" }));
    assert_eq!(status, 400);
    assert_eq!(body["error"], "program_required");
    assert_eq!(body["current_loadout"], api.get("/loadout").1["programs"]);
    let (status, body) = api.start("p1", "program-0000000000000000");
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"], "program_not_in_loadout");
    assert_eq!(body["current_loadout"], api.get("/loadout").1["programs"]);
    let (status, body) = api.post(
        "/start_proof",
        &json!({ "proof_uuid": "p1", "program": { "name": program, "version": 0 }, "proof_type": "evm" }),
    );
    assert_eq!(status, 400);
    assert!(
        body["error"].as_str().unwrap().contains("not supported"),
        "{body}"
    );
    let (status, body) = api.start("never-uploaded", &program);
    assert_eq!(status, 400);
    assert!(
        body["error"].as_str().unwrap().contains("No input staged"),
        "{body}"
    );
    // Unknown proofs.
    for path in ["/proof_state/nope", "/proof/nope", "/proof_events/nope"] {
        let (status, body) = api.get(path);
        assert_eq!(status, 404, "{path}: {body}");
    }
    // A cancel of an unknown proof is answered as the manager answers it.
    assert_eq!(
        api.post("/cancel_proof", &json!({ "proof_uuid": "nope" })),
        (200, json!({ "status": "canceled" }))
    );
    // Nothing above made a proof.
    let mut db = Db::connect(&pg.url()).unwrap();
    let proofs: i64 = db
        .client
        .query_one("SELECT count(*) FROM serve_proofs", &[])
        .unwrap()
        .get(0);
    assert_eq!(proofs, 0);
    // A block whose gas limit is above the server's cap is refused before anything runs on
    // it, and the refusal is the stream's settled status.
    let (_, input) = standard_input(&dir);
    assert_eq!(
        api.upload("over-gas", "input", &encode_stdin(&input)).0,
        200
    );
    assert_eq!(api.start("over-gas", &program).0, 200);
    let statuses = api.events("over-gas").rest();
    let failed = statuses
        .last()
        .and_then(|s| s["failed"].as_str())
        .unwrap_or_default();
    assert!(
        failed.contains("above this server's --max-gas 1000"),
        "{statuses:?}"
    );
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn scalar(db: &mut Db, sql: &str, uuid: &str) -> i64 {
    db.client.query_one(sql, &[&uuid]).unwrap().get(0)
}

const RUNNING: &str = "SELECT count(*) FROM cluster_tasks t JOIN serve_proofs p ON p.job = t.job
                       WHERE p.proof_uuid = $1 AND t.state = 'running'";

/// Waits until a task of proof `uuid`'s job is claimed.
fn until_claimed(db: &mut Db, uuid: &str) {
    let started = Instant::now();
    while scalar(db, RUNNING, uuid) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(1800),
            "no task of {uuid} was claimed"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn zkboost_sequence_proves_the_standard_input_through_a_cancel_and_a_restart() {
    let start = Instant::now();
    let phase = |what: &str| eprintln!("[{:>5.0} s] {what}", start.elapsed().as_secs_f64());
    let dir = temp("proof");
    let elfs = dir.join("elfs");
    let pg = Pg::start();
    let url = pg.url();
    let (port_a, port_b) = (free_port(), free_port());
    phase("starting two servers");
    let a = Server::start(&url, port_a, &elfs, "serve-a");
    let b = Server::start(&url, port_b, &elfs, "serve-b");
    let (api_a, api_b) = (Api::new(&a.base), Api::new(&b.base));
    let program = standard_program(&api_a, &elfs);
    let (input_path, input) = standard_input(&dir);
    let stdin = encode_stdin(&input);
    let mut db = Db::connect(&url).unwrap();

    // A proof canceled while its first segment is being proved.
    phase("a proof to cancel");
    let w1 = logging_worker(&url, &["--name", "w1", "--lease-secs", "10"]);
    assert_eq!(api_a.upload("cancel-me", "input", &stdin).0, 200);
    let (status, body) = api_a.start("cancel-me", &program);
    assert_eq!(
        (status, &body["status"]),
        (200, &json!("started")),
        "{body}"
    );
    let mut events = api_b.events("cancel-me");
    assert_eq!(events.next_status(), Some(json!("in_progress")));
    until_claimed(&mut db, "cancel-me");
    let (status, ready) = api_b.get("/readyz");
    assert_eq!((status, &ready["ready"]), (200, &json!(true)), "{ready}");
    assert_eq!(
        api_b.post("/cancel_proof", &json!({ "proof_uuid": "cancel-me" })),
        (200, json!({ "status": "canceled" }))
    );
    assert_eq!(
        scalar(&mut db, RUNNING, "cancel-me"),
        0,
        "a task stays claimed"
    );
    assert_eq!(events.rest(), vec![json!("canceled")]);
    assert_eq!(api_a.get("/proof_state/cancel-me").1["status"], "canceled");
    assert_eq!(api_a.download("cancel-me").0, 404);
    // The worker is proving a segment whose claim is gone: its result would be dropped.
    drop(w1);

    // zkboost's sequence: upload, start, follow, download.
    phase("the devnet-small standard input");
    let uuid = format!(
        "{:032x}",
        0x5eed_u128 << 64 | u128::from(std::process::id())
    );
    let w2 = logging_worker(&url, &["--name", "w2", "--lease-secs", "10"]);
    let (status, body) = api_a.upload(&uuid, "input", &stdin);
    assert_eq!(status, 200, "{body}");
    let (status, body) = api_a.start(&uuid, &program);
    assert_eq!(status, 200, "{body}");
    let mut events = api_a.events(&uuid);
    assert_eq!(events.next_status(), Some(json!("in_progress")));
    until_claimed(&mut db, &uuid);
    phase("proving: server A killed and started again");
    a.kill();
    let a = Server::start(&url, port_a, &elfs, "serve-a2");
    let api_a = Api::new(&a.base);
    // The stream was cut with its server; a client reconnects and is sent the status again.
    assert_eq!(events.rest(), Vec::<Value>::new());
    let statuses = api_a.events(&uuid).rest();
    phase("settled");
    assert_eq!(statuses.last(), Some(&json!("completed")), "{statuses:?}");
    let (status, state) = api_a.get(&format!("/proof_state/{uuid}"));
    assert_eq!(status, 200);
    assert_eq!(state["status"], "completed", "{state}");
    assert_eq!(state["program"], json!({ "name": program, "version": 0 }));
    assert!(state["num_segments"].as_i64().unwrap() >= 1, "{state}");
    assert_eq!(state["app_proofs_count"], state["num_segments"], "{state}");
    assert!(state["e2e_latency_ms"].as_i64().unwrap() > 0, "{state}");
    drop(w2);
    // Two servers, one job.
    let jobs = scalar(
        &mut db,
        "SELECT count(*) FROM cluster_jobs WHERE label = 'serve:' || $1",
        &uuid,
    );
    assert_eq!(jobs, 1);
    // The same id again: refused, upload and start alike.
    assert_eq!(
        api_b.upload(&uuid, "input", &stdin).1["error"],
        "proof_already_exists"
    );
    let (status, body) = api_b.start(&uuid, &program);
    assert_eq!(
        (status, &body["error"]),
        (409, &json!("proof_already_exists"))
    );

    // The download, verified with the request alone.
    let (status, proof) = api_b.download(&uuid);
    assert_eq!(status, 200);
    let proof_path = dir.join("served.proof");
    std::fs::write(&proof_path, &proof).unwrap();
    let (code, stdout) = host_status(&[
        "verify",
        proof_path.to_str().unwrap(),
        "--request",
        input_path.to_str().unwrap(),
        "--chain",
        "devnet",
    ]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("block VALID (proved) on devnet"),
        "{stdout}"
    );
    // Another request (the devnet's default block): the proof is not about it (exit 6).
    let other = dir.join("devnet.ssz");
    host(&[
        "stateless-input",
        "--block",
        "devnet",
        "--blocks-dir",
        support::blocks().to_str().unwrap(),
        "--out",
        other.to_str().unwrap(),
    ]);
    let (code, stdout) = host_status(&[
        "verify",
        proof_path.to_str().unwrap(),
        "--request",
        other.to_str().unwrap(),
        "--chain",
        "devnet",
    ]);
    assert_eq!(code, Some(6), "{stdout}");
    assert!(stdout.contains("NOT THE REQUEST ASKED"), "{stdout}");
    // A flipped byte of the proof: refused, as not verifying (exit 1) or, where the flip
    // breaks the codec, as no proof at all (exit 2).
    let mut forged = proof.clone();
    let mid = forged.len() / 2;
    forged[mid] ^= 1;
    std::fs::write(&proof_path, &forged).unwrap();
    let (code, stdout) = host_status(&[
        "verify",
        proof_path.to_str().unwrap(),
        "--request",
        input_path.to_str().unwrap(),
        "--chain",
        "devnet",
    ]);
    assert!(matches!(code, Some(1 | 2)), "{stdout}");
    assert!(!stdout.contains("VALID ("), "{stdout}");
    drop((a, b));
    std::fs::remove_dir_all(&dir).unwrap();
}
