//! The HTTP endpoints: Axiom Edge manager's client-facing API (its `docs/API_ENDPOINTS.md`),
//! with the event stream zkboost's OpenVM client follows (`GET /proof_events/{proof_uuid}`).
//! Handlers are thin: each checks what the request names, then reads or writes the database on
//! a blocking thread ([`super::store`]); error bodies are the manager's (`{"error": …}`, and
//! `program_not_in_loadout` with the loadout).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Multipart, Path, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::loadout::ProgramRef;
use super::store::{self, Started, Status, Uploaded};
use super::{stdin, App};

/// Workers seen within this many seconds make the service ready.
pub const READY_WINDOW_SECS: f64 = 60.0;

fn reply(status: StatusCode, body: Value) -> Response {
    (status, Json(body)).into_response()
}

fn bad(message: String) -> Response {
    reply(StatusCode::BAD_REQUEST, json!({ "error": message }))
}

fn invalid_uuid(uuid: &str) -> Option<Response> {
    store::check_uuid(uuid)
        .err()
        .map(|why| bad(format!("Invalid proof_uuid: {why}")))
}

fn not_found() -> Response {
    reply(StatusCode::NOT_FOUND, json!({ "error": "Proof not found" }))
}

/// `GET /healthz`.
pub async fn healthz() -> Response {
    reply(StatusCode::OK, json!({ "status": "healthy" }))
}

/// `GET /readyz`: 200 when the database answers and a worker was seen within
/// [`READY_WINDOW_SECS`].
pub async fn readyz(State(app): State<Arc<App>>) -> Response {
    match app
        .db(|db| store::workers_seen(db, READY_WINDOW_SECS))
        .await
    {
        Ok(n) if n > 0 => reply(StatusCode::OK, json!({ "ready": true, "num_workers": n })),
        Ok(_) => reply(
            StatusCode::SERVICE_UNAVAILABLE,
            json!({
                "ready": false,
                "num_workers": 0,
                "message": format!("no worker seen in the last {READY_WINDOW_SECS} s: start `host cluster worker`"),
            }),
        ),
        Err(e) => reply(
            StatusCode::SERVICE_UNAVAILABLE,
            json!({ "ready": false, "num_workers": 0, "message": e }),
        ),
    }
}

/// `GET /loadout`.
pub async fn loadout(State(app): State<Arc<App>>) -> Response {
    reply(
        StatusCode::OK,
        json!({ "programs": app.loadout.programs() }),
    )
}

/// `GET /capabilities`: what this service proves.
pub async fn capabilities(State(app): State<Arc<App>>) -> Response {
    reply(
        StatusCode::OK,
        json!({
            "proof_types": ["stark"],
            "evm": false,
            "deferrals": false,
            "programs": app.loadout.programs(),
            "max_proof_uuid_len": store::MAX_UUID_LEN,
            "persisted_proofs": true,
            "openvm": openvm_sdk::OPENVM_VERSION,
        }),
    )
}

/// At most this many bytes of a refused upload are read (and dropped) before the refusal is
/// sent. hyper closes a connection whose request body was left unread; a client still sending
/// then loses the answer to a broken pipe. Reading a small body to its end lets every client see
/// why it was refused; a larger one is cut off, as any server must.
const DRAIN_BEFORE_REFUSAL: usize = 1 << 20;

/// Reads what is left of a refused multipart body, up to [`DRAIN_BEFORE_REFUSAL`] bytes.
async fn drain(multipart: &mut Multipart) {
    let mut read = 0usize;
    while let Ok(Some(mut field)) = multipart.next_field().await {
        while let Ok(Some(chunk)) = field.chunk().await {
            read += chunk.len();
            if read > DRAIN_BEFORE_REFUSAL {
                return;
            }
        }
    }
}

/// The one `input` part of an upload, or the refusal that names what is wrong with the body.
async fn input_part(multipart: &mut Multipart) -> Result<Bytes, Response> {
    let mut input: Option<Bytes> = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(e) => return Err(bad(format!("Malformed multipart body: {e}"))),
        };
        let name = field.name().unwrap_or_default().to_owned();
        if name != "input" {
            return Err(bad(format!(
                "Unexpected multipart part `{name}`: this service takes one part, `input` (it proves no deferrals)"
            )));
        }
        match field.bytes().await {
            Ok(bytes) if input.is_none() => input = Some(bytes),
            Ok(_) => return Err(bad("More than one `input` part".into())),
            Err(e) => return Err(bad(format!("Failed to read multipart part `input`: {e}"))),
        }
    }
    input.ok_or_else(|| bad("No `input` part: upload the stdin as multipart part `input`".into()))
}

/// `POST /upload_input/{proof_uuid}`: multipart, part `input` holding the encoded stdin.
pub async fn upload_input(
    State(app): State<Arc<App>>,
    Path(uuid): Path<String>,
    mut multipart: Multipart,
) -> Response {
    if let Some(refused) = invalid_uuid(&uuid) {
        drain(&mut multipart).await;
        return refused;
    }
    let input = match input_part(&mut multipart).await {
        Ok(input) => input,
        Err(refused) => {
            drain(&mut multipart).await;
            return refused;
        }
    };
    if let Err(e) = stdin::decode(&input) {
        return bad(format!("The `input` part is not an OpenVM stdin: {e}"));
    }
    let stored = {
        let uuid = uuid.clone();
        app.db(move |db| store::upload(db, &uuid, &input)).await
    };
    match stored {
        Ok(Uploaded::Stored) => (StatusCode::OK, "Input staged").into_response(),
        Ok(Uploaded::ProofExists) => exists(&uuid),
        Err(e) => server_error(e),
    }
}

fn exists(uuid: &str) -> Response {
    reply(
        StatusCode::CONFLICT,
        json!({
            "error": "proof_already_exists",
            "message": format!("Proof {uuid} already exists"),
        }),
    )
}

fn server_error(message: String) -> Response {
    reply(
        StatusCode::INTERNAL_SERVER_ERROR,
        json!({ "error": message }),
    )
}

#[derive(serde::Deserialize)]
struct StartProof {
    proof_uuid: String,
    program: Option<ProgramRef>,
    #[serde(default = "stark")]
    proof_type: String,
}

fn stark() -> String {
    "stark".into()
}

/// `POST /start_proof`.
pub async fn start_proof(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let request: StartProof = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => return bad(format!("Malformed body: {e}")),
    };
    if let Some(refused) = invalid_uuid(&request.proof_uuid) {
        return refused;
    }
    let programs = app.loadout.programs();
    let Some(asked) = request.program else {
        return reply(
            StatusCode::BAD_REQUEST,
            json!({
                "error": "program_required",
                "message": "Multiple programs loaded; specify `program: {name, version}` in the request",
                "current_loadout": programs,
            }),
        );
    };
    let Some(entry) = app.loadout.find(&asked).cloned() else {
        return reply(
            StatusCode::CONFLICT,
            json!({
                "error": "program_not_in_loadout",
                "message": format!("Program {asked} is not in the current loadout"),
                "current_loadout": programs,
            }),
        );
    };
    match request.proof_type.as_str() {
        "stark" => {}
        "evm" => {
            return bad(
                "proof_type `evm` is not supported: this service proves STARKs (OpenVM 2.0.2 has no EVM wrapper for this project's guests)".into(),
            )
        }
        other => return bad(format!("Unknown proof_type `{other}` (expected `stark`)")),
    }
    let uuid = request.proof_uuid;
    let started = {
        let (uuid, asked) = (uuid.clone(), asked.clone());
        app.db(move |db| store::start(db, &uuid, &entry, &asked))
            .await
    };
    match started {
        Ok(Started::Queued) => reply(
            StatusCode::OK,
            json!({ "proof_uuid": uuid, "status": "started" }),
        ),
        Ok(Started::ProofExists) => exists(&uuid),
        Ok(Started::NoInput) => bad(format!(
            "No input staged for proof {uuid}: POST the stdin to /upload_input/{uuid} before /start_proof"
        )),
        Err(e) => server_error(e),
    }
}

/// `GET /proof_state/{proof_uuid}`.
pub async fn proof_state(State(app): State<Arc<App>>, Path(uuid): Path<String>) -> Response {
    if let Some(refused) = invalid_uuid(&uuid) {
        return refused;
    }
    let found = app
        .db(move |db| {
            let Some(row) = store::get(db, &uuid)? else {
                return Ok(None);
            };
            let counts = match row.job {
                Some(job) => store::proofs_done(db, job)?,
                None => (0, 0, 0),
            };
            Ok(Some((row, counts)))
        })
        .await;
    match found {
        Ok(Some((row, (app_proofs, leaves, internal)))) => reply(
            StatusCode::OK,
            json!({
                "proof_uuid": row.uuid,
                "program": row.program,
                "status": row.status(),
                "num_segments": row.segments,
                "num_instructions": null,
                "proof_start_time": row.created,
                "e2e_latency_ms": row.latency_ms,
                "app_proofs_count": app_proofs,
                "leaf_proofs_count": leaves,
                "internal_proofs_count": internal,
                "last_updated": row.updated,
                "cluster_job": row.job,
            }),
        ),
        Ok(None) => not_found(),
        Err(e) => server_error(e),
    }
}

/// `GET /proof_events/{proof_uuid}`: server-sent `status` events, the current status first,
/// one per change, ending after a settled one.
pub async fn proof_events(State(app): State<Arc<App>>, Path(uuid): Path<String>) -> Response {
    if let Some(refused) = invalid_uuid(&uuid) {
        return refused;
    }
    let known = {
        let uuid = uuid.clone();
        app.db(move |db| store::get(db, &uuid)).await
    };
    match known {
        Ok(Some(_)) => {}
        Ok(None) => return not_found(),
        Err(e) => return server_error(e),
    }
    let Some(slot) = app.open_stream() else {
        return reply(
            StatusCode::SERVICE_UNAVAILABLE,
            json!({ "error": format!("{} event streams are open: try again later", super::MAX_EVENT_STREAMS) }),
        );
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Event, Infallible>>(4);
    let url = app.url.clone();
    let spawned = std::thread::Builder::new().spawn(move || {
        watch(&url, &uuid, tx);
        drop(slot);
    });
    if let Err(e) = spawned {
        return server_error(format!("no thread for the event stream: {e}"));
    }
    Sse::new(tokio_stream::wrappers::ReceiverStream::new(rx))
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Sends proof `uuid`'s status on each change until it settles or the client leaves.
fn watch(url: &str, uuid: &str, tx: tokio::sync::mpsc::Sender<Result<Event, Infallible>>) {
    let mut db: Option<cluster::Db> = None;
    let mut last: Option<Status> = None;
    while !tx.is_closed() {
        if db.is_none() {
            db = cluster::Db::connect(url).ok();
        }
        let row = match db.as_mut().map(|db| store::get(db, uuid)) {
            Some(Ok(Some(row))) => row,
            Some(Ok(None)) => return,
            Some(Err(_)) | None => {
                db = None;
                std::thread::sleep(Duration::from_secs(1));
                continue;
            }
        };
        let status = row.status();
        if last.as_ref() != Some(&status) {
            let data = serde_json::to_string(&status).expect("a status encodes");
            let event = Event::default().event("status").data(data);
            if tx.blocking_send(Ok(event)).is_err() {
                return;
            }
            if status.settled() {
                return;
            }
            last = Some(status);
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// `GET /proof/{proof_uuid}`: the final STARK, OpenVM's codec of a `VmStarkProof`.
pub async fn proof(State(app): State<Arc<App>>, Path(uuid): Path<String>) -> Response {
    if let Some(refused) = invalid_uuid(&uuid) {
        return refused;
    }
    match app.db(move |db| store::proof(db, &uuid)).await {
        Ok(Some((_, Some(bytes)))) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/octet-stream")],
            bytes,
        )
            .into_response(),
        Ok(Some((state, None))) => reply(
            StatusCode::NOT_FOUND,
            json!({ "error": format!("proof not available: it is {state}, not completed") }),
        ),
        Ok(None) => not_found(),
        Err(e) => server_error(e),
    }
}

#[derive(serde::Deserialize)]
struct CancelProof {
    proof_uuid: String,
}

/// `POST /cancel_proof`: a proof not yet ended is canceled with its cluster job; a settled or
/// unknown one is answered alike (as the manager does).
pub async fn cancel_proof(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let request: CancelProof = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => return bad(format!("Malformed body: {e}")),
    };
    if let Some(refused) = invalid_uuid(&request.proof_uuid) {
        return refused;
    }
    let uuid = request.proof_uuid;
    match app.db(move |db| store::cancel(db, &uuid)).await {
        Ok(_) => reply(StatusCode::OK, json!({ "status": "canceled" })),
        Err(e) => server_error(e),
    }
}
