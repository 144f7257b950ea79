//! Test helpers shared by the host crate's integration tests.

#[allow(dead_code)]
pub mod cli;
#[allow(dead_code)]
pub mod cluster;
pub mod pg;
#[allow(dead_code)]
pub mod planted;
#[allow(dead_code)]
pub mod refusals;
