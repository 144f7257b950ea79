//! Probe tasks: the queue's own test jobs, run by the same worker loop and database as proofs
//! but cheap. A probe sleeps, then hashes its inputs; like a proof task verifying its children,
//! it refuses an input that is not a probe artifact of its own job, so a forged or mixed-up
//! artifact sends its producer back exactly as a bad proof would.

use std::time::Duration;

use super::graph::Work;
use super::queue::Claim;
use super::task::{Done, Job, TaskError};

/// A probe's artifact: what it is of, and its inputs' keccaks; a probe checks each input is
/// one (of this job), as a proof task verifies its children.
#[derive(serde::Serialize, serde::Deserialize)]
struct ProbeArtifact {
    job: i64,
    task: String,
    inputs: Vec<String>,
}

pub fn run(
    job: &Job,
    claim: &Claim,
    inputs: &[(i64, Work, Vec<u8>)],
    sleep_ms: u64,
    fail: bool,
) -> Result<Done, TaskError> {
    let mut hashes = Vec::new();
    for (producer, _, bytes) in inputs {
        let artifact: Result<ProbeArtifact, _> = serde_json::from_slice(bytes);
        match artifact {
            Ok(a) if a.job == job.id => {}
            _ => {
                return Err(TaskError::Refused {
                    producer: *producer,
                    why: "not a probe artifact of this job".into(),
                })
            }
        }
        hashes.push(alloy_primitives::hex::encode(super::artifact_hash(bytes)));
    }
    std::thread::sleep(Duration::from_millis(sleep_ms));
    if fail {
        return Err(TaskError::Failed("the probe was told to fail".into()));
    }
    let artifact = ProbeArtifact {
        job: job.id,
        task: claim.name(),
        inputs: hashes,
    };
    Ok(Done {
        artifact: serde_json::to_vec(&artifact).map_err(|e| TaskError::Failed(e.to_string()))?,
        detail: format!("slept {sleep_ms} ms"),
    })
}
