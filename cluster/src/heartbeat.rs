//! A running task's lease, kept alive by a thread of its own on a connection of its own: a
//! task proves for minutes on every core, and a lease that lapsed under that load would hand
//! the task to a second worker. The thread says when it finds the claim lost.

use std::sync::mpsc;
use std::time::Duration;

use super::queue::{heartbeat, Claim};
use super::Db;

/// Resets the process's peak resident memory (Linux: `5` to `/proc/self/clear_refs`), so the
/// peak read after a task is that task's, not the worker's lifetime peak.
pub(crate) fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// A thread that extends a claim's lease every third of it, on its own connection.
pub(crate) struct Heartbeat {
    stop: mpsc::Sender<()>,
    thread: std::thread::JoinHandle<bool>,
}

impl Heartbeat {
    pub(crate) fn start(url: &str, claim: &Claim, worker: &str, lease: Duration) -> Self {
        let (stop, stopped) = mpsc::channel::<()>();
        let (url, claim, worker) = (url.to_owned(), claim.clone(), worker.to_owned());
        let thread = std::thread::spawn(move || {
            let mut db: Option<Db> = None;
            loop {
                match stopped.recv_timeout(lease / 3) {
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return false,
                }
                if db.is_none() {
                    db = Db::connect(&url).ok();
                }
                if let Some(conn) = db.as_mut() {
                    match heartbeat(conn, &claim, &worker, lease) {
                        Ok(true) => {}
                        Ok(false) => return true,
                        Err(_) => db = None,
                    }
                }
            }
        });
        Self { stop, thread }
    }

    /// Stops it; whether the claim was found lost.
    pub(crate) fn stop(self) -> bool {
        let _ = self.stop.send(());
        self.thread.join().unwrap_or(false)
    }
}
