//! A claim's lease on a proof ([`super::conductor`]'s submissions and checks), renewed on a
//! thread and a connection of its own while the work runs.

use std::sync::mpsc;

use std::time::Duration;

use cluster::Db;

/// A claim's lease, renewed every third of it on a connection of its own until dropped: a
/// submission builds the guest and meters the run (minutes on a cold machine), and a lapsed
/// lease would hand the proof to another server (whose work this one's would then lose to).
pub(crate) struct Lease {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Lease {
    /// Holds `owner`'s claim on `uuid` in `state` (the database at `url`) for `lease` at a time.
    pub(crate) fn hold(
        url: &str,
        owner: &str,
        lease: Duration,
        uuid: &str,
        state: &'static str,
    ) -> Self {
        let (stop, stopped) = mpsc::channel::<()>();
        let (url, owner, uuid) = (url.to_owned(), owner.to_owned(), uuid.to_owned());
        let spawned = std::thread::Builder::new().spawn(move || {
            let mut db: Option<Db> = None;
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(lease / 3) {
                if db.is_none() {
                    db = Db::connect(&url).ok();
                }
                if let Some(conn) = db.as_mut() {
                    let renewed = conn.client.execute(
                        "UPDATE serve_proofs SET lease_until = now() + make_interval(secs => $4)
                         WHERE proof_uuid = $1 AND owner = $2 AND state = $3",
                        &[&uuid, &owner, &state, &lease.as_secs_f64()],
                    );
                    if renewed.is_err() {
                        db = None;
                    }
                }
            }
        });
        // Without a thread the claim is not renewed: another server may take it over, and
        // this one's work is then dropped by the owner conditions (never done twice).
        let thread = spawned
            .inspect_err(|e| eprintln!("serve: no thread to renew a lease: {e}"))
            .ok();
        Self {
            stop: Some(stop),
            thread,
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
