//! Test helpers shared by the host crate's integration tests (each test binary uses some).

#[allow(dead_code)]
pub mod cli;
#[allow(dead_code)]
pub mod cluster;
#[allow(dead_code)]
pub mod pg;
#[allow(dead_code)]
pub mod planted;
#[allow(dead_code)]
pub mod refusals;
#[allow(dead_code)]
pub mod serve;

/// The project's own `blocks/` (the generated devnet blocks).
#[allow(dead_code)]
pub fn blocks() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../blocks")
}
