//! The cluster queue's rules, with a real PostgreSQL (a private server per test) and real
//! `host cluster worker` processes, on test jobs whose tasks are cheap probes run by the same
//! worker loop and database as proofs (`cluster_proof.rs` proves real segments): concurrent
//! workers in dependency order, retries that fail a job with its error kept, a late completion
//! that changes nothing, a database restart mid-job, refused artifacts redone by their
//! producers, two jobs at once that do not mix (and another job's artifact refused), a worker
//! of another build, TCP with a password that is never printed, and workers in network
//! namespaces of their own.

#[path = "../support/mod.rs"]
mod support;

mod network;
mod rules;
mod trust;
