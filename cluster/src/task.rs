//! What every task shares, proof or probe: the job as a worker reads it, the artifact a task
//! makes, why it failed, and its inputs checked against their producers' keccaks. Below both
//! [`super::work`] (proofs) and [`super::probe`] (the queue's test jobs), so neither reaches the
//! other's module for them.

use super::graph::{TreeShape, Work};
use super::queue::Input;
use prover::proof::Subject;

/// The program commitment and VM config of test (probe) jobs.
pub const PROBE_COMMIT: &str = "probe-v1";

/// A job as a worker reads it.
#[derive(Debug, Clone)]
pub struct Job {
    /// Its id.
    pub id: i64,
    /// What it proves, for people.
    pub label: String,
    /// The guest and VM (`None` for a probe job).
    pub subject: Option<Subject>,
    /// The program commitment it was submitted with.
    pub exe_commit: String,
    /// The VM config it was submitted with.
    pub vm_config: String,
    /// The guest's input items.
    pub input: Vec<Vec<u8>>,
    /// Their digest ([`prover::proof::input_digest`]).
    pub input_keccak: alloy_primitives::B256,
    /// The run's segments.
    pub segments: usize,
    /// The tree.
    pub shape: TreeShape,
}

/// Why a task did not produce its artifact.
#[derive(Debug)]
pub enum TaskError {
    /// An input is not what its producer should have made: the producer must be redone.
    Refused {
        /// The producing task.
        producer: i64,
        /// What is wrong.
        why: String,
    },
    /// The task itself failed.
    Failed(String),
}

/// A task's artifact and a line about how it was made.
pub struct Done {
    /// The artifact's bytes.
    pub artifact: Vec<u8>,
    /// For `status`: what the time went on.
    pub detail: String,
}

/// The inputs' bytes, each checked against the keccak its producer recorded.
pub(super) fn checked_bytes(inputs: Vec<Input>) -> Result<Vec<(i64, Work, Vec<u8>)>, TaskError> {
    inputs
        .into_iter()
        .map(|input| {
            let refuse = |why: String| TaskError::Refused {
                producer: input.task,
                why,
            };
            let Some(bytes) = input.bytes else {
                return Err(refuse("no artifact stored".into()));
            };
            let hash = super::artifact_hash(&bytes);
            if input.recorded_hash.as_deref() != Some(hash.as_slice()) {
                return Err(refuse(format!(
                    "artifact keccak {} is not the recorded {}",
                    alloy_primitives::hex::encode(&hash),
                    input
                        .recorded_hash
                        .as_deref()
                        .map_or("(none)".into(), alloy_primitives::hex::encode)
                )));
            }
            Ok((input.task, input.work, bytes))
        })
        .collect()
}
