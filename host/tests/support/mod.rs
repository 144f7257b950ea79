//! Test helpers shared by the host crate's integration tests.

pub mod pg;
