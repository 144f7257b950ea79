//! `host serve`: the OpenVM ecosystem's proving API in front of this project's cluster.
//!
//! OpenVM's own distributed prover, Axiom Edge, is driven over HTTP by a manager (its
//! `docs/API_ENDPOINTS.md`), and the stateless pipelines (zkboost's OpenVM backend, the
//! ethproofs scripts) are clients of that manager. Axiom Edge builds only against OpenVM's
//! unreleased 2.1, so it cannot prove this project's 2.0.2 guests; this crate answers the same
//! client requests the same way over the PostgreSQL cluster ([`cluster`]): upload a stdin,
//! start a proof of a program of the [`loadout`], follow its status as server-sent events,
//! download the final STARK in OpenVM's codec, cancel.
//!
//! A job is a program and its stdin, not only a block: the cluster segments, proves and
//! aggregates whatever stdin it is given, and the final check binds the proof to that stdin's
//! own result, computed natively from the same bytes ([`cluster::expect`]). Everything lives
//! in PostgreSQL ([`store`]): restarting a server loses nothing, and two servers on one
//! database share the background work ([`conductor`]) without doing any step twice.

pub mod conductor;
mod lease;
pub mod loadout;
mod routes;
pub mod stdin;
pub mod store;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use cluster::{ClusterError, Db};

pub use conductor::Settings;
pub use loadout::{Loadout, ProgramRef};

/// The largest upload accepted, bytes (a mainnet stateless input is ~2 MB; a 60 M-gas block's
/// witness stays far below this).
pub const MAX_UPLOAD: usize = 512 << 20;

/// Database work running at once for requests (each on a blocking thread and a connection):
/// what a burst of requests can take from the cluster's connection limit.
pub const MAX_DB_REQUESTS: usize = 16;

/// Event streams open at once (each holds a thread and a connection); more are a 503.
pub const MAX_EVENT_STREAMS: usize = 64;

/// What a server shares between requests.
pub struct App {
    url: String,
    loadout: Arc<Loadout>,
    /// Idle connections, at most [`MAX_DB_REQUESTS`].
    pool: Mutex<Vec<Db>>,
    requests: tokio::sync::Semaphore,
    /// Event streams open.
    streams: AtomicUsize,
}

impl App {
    /// Runs `work` on a pooled connection on a blocking thread (the `postgres` client blocks);
    /// an error is the message a 500 or 503 carries.
    async fn db<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&mut Db) -> Result<T, ClusterError> + Send + 'static,
    ) -> Result<T, String> {
        let permit = self
            .requests
            .acquire()
            .await
            .map_err(|e| format!("the server is shutting down: {e}"))?;
        let app = self.clone();
        let answer = tokio::task::spawn_blocking(move || {
            let pooled = app.pool.lock().expect("the pool's lock").pop();
            let mut db = match pooled {
                Some(db) => db,
                None => Db::connect(&app.url).map_err(|e| e.to_string())?,
            };
            let result = work(&mut db);
            match &result {
                Err(e) if e.is_connection() => {}
                _ => {
                    let mut pool = app.pool.lock().expect("the pool's lock");
                    if pool.len() < MAX_DB_REQUESTS {
                        pool.push(db);
                    }
                }
            }
            result.map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| format!("the request's task failed: {e}"))?;
        drop(permit);
        answer
    }

    /// Counts an event stream in; `None` when [`MAX_EVENT_STREAMS`] are open.
    fn open_stream(self: &Arc<Self>) -> Option<StreamSlot> {
        let open = self.streams.fetch_add(1, Ordering::SeqCst);
        let slot = StreamSlot(self.clone());
        (open < MAX_EVENT_STREAMS).then_some(slot)
    }
}

/// One open event stream's place, given back when dropped.
struct StreamSlot(Arc<App>);

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.0.streams.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The router over `app`.
pub fn router(app: Arc<App>) -> Router {
    let uploads = Router::new()
        .route("/upload_input/{proof_uuid}", post(routes::upload_input))
        .layer(DefaultBodyLimit::max(MAX_UPLOAD));
    Router::new()
        .route("/healthz", get(routes::healthz))
        .route("/readyz", get(routes::readyz))
        .route("/loadout", get(routes::loadout))
        .route("/capabilities", get(routes::capabilities))
        .route("/start_proof", post(routes::start_proof))
        .route("/proof_state/{proof_uuid}", get(routes::proof_state))
        .route("/proof_events/{proof_uuid}", get(routes::proof_events))
        .route("/proof/{proof_uuid}", get(routes::proof))
        .route("/cancel_proof", post(routes::cancel_proof))
        .merge(uploads)
        .with_state(app)
}

/// Serves on `listen` until the process ends: the schema created or upgraded, the loadout
/// built, the conductor started, then the HTTP server.
pub fn serve(listen: SocketAddr, settings: Settings, loadout: Loadout) -> Result<(), ServeError> {
    let mut db = Db::connect_patiently(&settings.url, std::time::Duration::from_secs(60))?;
    cluster::schema::init(&mut db)?;
    let app = Arc::new(App {
        url: settings.url.clone(),
        loadout: Arc::new(loadout),
        pool: Mutex::new(vec![db]),
        requests: tokio::sync::Semaphore::new(MAX_DB_REQUESTS),
        streams: AtomicUsize::new(0),
    });
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A panic in the background work would end it while the API goes on accepting proofs:
        // it is reported and the conductor started again (its state is all in the database).
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let (settings, stop) = (settings.clone(), stop.clone());
                let run = std::panic::catch_unwind(move || conductor::run(settings, stop));
                if run.is_err() {
                    eprintln!("serve: the conductor panicked; starting it again");
                    std::thread::sleep(std::time::Duration::from_secs(1));
                }
            }
        });
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Io)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| ServeError::Bind(listen, e))?;
        eprintln!("serve: listening on http://{listen}");
        axum::serve(listener, router(app))
            .await
            .map_err(ServeError::Io)
    })
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The database.
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// The address could not be bound.
    #[error("binding {0}: {1}")]
    Bind(SocketAddr, std::io::Error),
    /// The runtime or the server failed.
    #[error(transparent)]
    Io(std::io::Error),
}
