//! One STARK for a whole run: OpenVM's leaf and internal aggregation over the app proofs of
//! every segment, then one-child internal-recursive wraps until the proof's shape is the
//! chain's fixed point ([`finish`]), so that its size depends neither on the segments nor on
//! the tree's depth and stays under EIP-8025's cap ([`MAX_PROOF_SIZE`]).
//!
//! The aggregation keys (leaf, internal-for-leaf, internal-recursive) depend on the app VM's
//! verifying key and on OpenVM's aggregation parameters, not on the guest program: they are
//! generated once and cached under [`keys_dir`], in a file named after a keccak of the app
//! verifying key, so a changed VM config or segment height gets its own keys and a stale file is
//! never used.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use alloy_primitives::keccak256;
use openvm_sdk::keygen::AggProvingKey;
use openvm_sdk::openvm_circuit::arch::ContinuationVmProof;
use openvm_sdk::prover::{AggProver, InternalLayerMetadata, StarkProver};
use openvm_sdk::{DefaultStarkEngine, SC};

use crate::vm::Sdk;
use openvm_stark_backend::codec::{Decode, Encode};
use openvm_stark_backend::proof::Proof;
use openvm_verify_stark_host::vk::VerificationBaseline;
use openvm_verify_stark_host::VmStarkProof;

use super::{file_error, read_object, write_object, ProofError};
use crate::progress::StageTimes;
use crate::vm::{sdk_segmented, vm_err, VmError};

/// Where aggregation keys are cached: `$STATELESS_VERIFIER_KEYS`, else
/// `$HOME/.cache/stateless-verifier/keys`.
pub fn keys_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("STATELESS_VERIFIER_KEYS") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map_or_else(std::env::temp_dir, PathBuf::from);
    home.join(".cache/stateless-verifier/keys")
}

/// Where the keys came from.
#[derive(Debug, Clone)]
pub struct KeysSource {
    /// The cache file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// `Some(time)` when they were generated (and written) by this call.
    pub generated: Option<Duration>,
}

/// The cache file of the aggregation keys of `sdk`'s app VM: under [`keys_dir`], named after
/// a keccak of its app verifying key.
pub fn keys_path(sdk: &Sdk) -> Result<PathBuf, ProofError> {
    let app_vk = bitcode::serialize(&sdk.app_pk().get_app_vk()).map_err(vm_err)?;
    let name = format!(
        "agg-openvm{}-{}.pk",
        openvm_sdk::OPENVM_VERSION,
        alloy_primitives::hex::encode(&keccak256(&app_vk)[..8])
    );
    Ok(keys_dir().join(name))
}

/// [`keys_path`] of the VM for `public_values` public values and segments of
/// 2^`log_stacked_height` rows.
pub fn keys_path_for(
    public_values: usize,
    log_stacked_height: usize,
    segment_memory: usize,
) -> Result<PathBuf, ProofError> {
    keys_path(&sdk_segmented(
        public_values,
        log_stacked_height,
        segment_memory,
    )?)
}

/// The SDK for `public_values` public values and segments of 2^`log_stacked_height` rows (and
/// at most `segment_memory` bytes of proving-memory estimate), seeded with cached aggregation keys (generated and cached on first use).
pub fn agg_sdk(
    public_values: usize,
    log_stacked_height: usize,
    segment_memory: usize,
) -> Result<(Sdk, KeysSource), ProofError> {
    let fresh = sdk_segmented(public_values, log_stacked_height, segment_memory)?;
    let app_pk = fresh.app_pk().clone();
    let path = keys_path(&fresh)?;
    let (agg_pk, generated) = match read_object::<AggProvingKey>(&path) {
        Ok(pk) => (pk, None),
        Err(_) => {
            eprintln!(
                "generating the aggregation keys (once; cached in {}) ...",
                path.display()
            );
            let started = Instant::now();
            let pk = fresh.agg_pk();
            let generated = started.elapsed();
            std::fs::create_dir_all(keys_dir()).map_err(|e| file_error(&path, e))?;
            // Written whole, then renamed: a concurrent or killed run never leaves half a file.
            let partial = path.with_extension(format!("partial-{}", std::process::id()));
            write_object(&partial, &pk)?;
            std::fs::rename(&partial, &path).map_err(|e| file_error(&path, e))?;
            (pk, Some(generated))
        }
    };
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
    let sdk = Sdk::builder()
        .app_pk(app_pk)
        .agg_pk(agg_pk)
        .build()
        .map_err(vm_err)?;
    Ok((
        sdk,
        KeysSource {
            path,
            bytes,
            generated,
        },
    ))
}

/// The baseline a proof of `exe` must verify against: the program's commitment and the
/// aggregation verifiers' keys.
pub fn baseline(
    sdk: &Sdk,
    exe: std::sync::Arc<openvm_sdk::openvm_circuit::arch::instructions::exe::VmExe<openvm_sdk::F>>,
) -> Result<VerificationBaseline, VmError> {
    let prover: StarkProver<DefaultStarkEngine, _> = sdk.prover(exe).map_err(vm_err)?;
    Ok(prover.generate_baseline())
}

/// Time per aggregation stage.
#[derive(Debug, Clone, Default)]
pub struct AggTimes {
    /// Leaf layer (verifies the app proofs).
    pub leaf: Duration,
    /// Internal layers, the final wraps included.
    pub internal: Duration,
    /// One-child wraps on top of the tree's root ([`finish`]).
    pub wraps: u32,
    /// The soundness of each layer.
    pub security: Option<Security>,
    /// Each aggregation node's layer (OpenVM's group: `leaf`, `internal_for_leaf`,
    /// `internal_recursive.N`) and time, in the order proved: the tree layer by layer, then
    /// the wraps. Empty where the nodes were not timed one by one (a cluster's join).
    pub nodes: Vec<(String, Duration)>,
}

/// Aggregates an app proof of every segment into one STARK, encoded.
pub fn aggregate(sdk: &Sdk, app: ContinuationVmProof<SC>) -> Result<(Vec<u8>, AggTimes), VmError> {
    let agg = sdk.agg_prover();
    let stages = StageTimes::default();
    let started = Instant::now();
    let finished = stages.during(|| -> Result<Finished, VmError> {
        let (proof, mut metadata) = agg.prove_vm(app).map_err(vm_err)?;
        Ok(finish(&agg, proof, &mut metadata)?)
    })?;
    let total = started.elapsed();
    let leaf = stages.total("leaf");
    let times = AggTimes {
        leaf,
        internal: total.saturating_sub(leaf),
        wraps: finished.wraps,
        security: Some(security(sdk)),
        nodes: stages.nodes(),
    };
    Ok((finished.proof.encode_to_vec().map_err(vm_err)?, times))
}

/// EIP-8025's `MAX_PROOF_SIZE`: the most bytes a proof of a block may take.
pub const MAX_PROOF_SIZE: usize = 307_200;

/// The most internal-recursive wraps [`finish`] adds on top of the tree's root.
pub const MAX_WRAPS: u32 = 6;

/// The shape of a proof: each AIR's log2 trace height (`None`: no trace). With the circuit's
/// fixed parameters it decides the proof's size, and the next wrap's shape.
pub fn shape(proof: &Proof<SC>) -> Vec<Option<usize>> {
    proof
        .trace_vdata
        .iter()
        .map(|vdata| vdata.as_ref().map(|v| v.log_height))
        .collect()
}

/// A finished aggregated proof and how it was reached.
pub struct Finished {
    /// The proof.
    pub proof: VmStarkProof,
    /// Wraps added on top of the tree's root (at least one, as `StarkProver::prove` makes).
    pub wraps: u32,
    /// Its encoded size, bytes.
    pub bytes: usize,
}

/// Why a proof could not be finished under the size cap.
#[derive(Debug, thiserror::Error)]
pub enum FinishError {
    /// The prover failed.
    #[error(transparent)]
    Vm(#[from] VmError),
    /// The wraps did not bring the proof under [`MAX_PROOF_SIZE`].
    #[error("after {wraps} wraps the aggregated proof is {bytes} bytes, over EIP-8025's {MAX_PROOF_SIZE}")]
    TooLarge {
        /// Wraps made.
        wraps: u32,
        /// Its size.
        bytes: usize,
    },
}

impl From<FinishError> for VmError {
    fn from(e: FinishError) -> Self {
        match e {
            FinishError::Vm(e) => e,
            other => VmError::Vm(other.to_string()),
        }
    }
}

/// The tree's root, wrapped into the final proof: one internal-recursive proof of one child
/// (`AggProver::wrap_proof`), then more while a wrap still changes the proof's [`shape`] or
/// the proof is over [`MAX_PROOF_SIZE`] (at most [`MAX_WRAPS`] in all).
///
/// Why: an internal-recursive proof's traces are those of a verifier of its children, so its
/// size follows theirs. A tree root that joined several recursive children (37 segments or
/// more: 24171384's 43 gave 316,168 bytes) is larger than one over a single child (268,111).
/// Each one-child wrap maps a shape to the next, and once a wrap gives the shape it was fed
/// the chain has reached its fixed point: every block's final proof then has that one shape
/// and size, whatever its segment count. Each wrap costs one small recursive proof (~25–65 s
/// on 2 CPU cores); the verifier accepts any recursion depth up to 256.
pub fn finish(
    agg: &AggProver,
    mut proof: VmStarkProof,
    metadata: &mut InternalLayerMetadata,
) -> Result<Finished, FinishError> {
    let mut wraps = 0;
    loop {
        let before = shape(&proof.inner);
        proof = agg.wrap_proof(proof, metadata).map_err(vm_err)?;
        wraps += 1;
        let bytes = proof.encode_to_vec().map_err(vm_err)?.len();
        let settled = shape(&proof.inner) == before;
        if next_step(settled, bytes, wraps, MAX_PROOF_SIZE)? == Step::Done {
            return Ok(Finished {
                proof,
                wraps,
                bytes,
            });
        }
    }
}

/// What [`finish`] does after a wrap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Wrap once more.
    Wrap,
    /// The proof is final.
    Done,
}

/// After `wraps` wraps giving a proof of `bytes` whose shape the last wrap kept (`settled`):
/// done once settled under `cap`; another wrap while not, up to [`MAX_WRAPS`]; then
/// [`FinishError::TooLarge`] if still over `cap`.
fn next_step(settled: bool, bytes: usize, wraps: u32, cap: usize) -> Result<Step, FinishError> {
    if (settled && bytes <= cap) || wraps >= MAX_WRAPS {
        if bytes > cap {
            return Err(FinishError::TooLarge { wraps, bytes });
        }
        return Ok(Step::Done);
    }
    Ok(Step::Wrap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_over_the_cap_is_wrapped_then_refused() {
        let cap = MAX_PROOF_SIZE;
        // Settled under the cap: final; at the cap exactly too.
        assert_eq!(next_step(true, 268_116, 1, cap).unwrap(), Step::Done);
        assert_eq!(next_step(true, cap, 3, cap).unwrap(), Step::Done);
        // Not settled, or over the cap: another wrap while wraps are left.
        assert_eq!(next_step(false, 268_116, 1, cap).unwrap(), Step::Wrap);
        assert_eq!(next_step(true, 316_168, 1, cap).unwrap(), Step::Wrap);
        assert_eq!(
            next_step(true, cap + 1, MAX_WRAPS - 1, cap).unwrap(),
            Step::Wrap
        );
        // Out of wraps: an unsettled proof under the cap is final; one over it refused, with
        // its size.
        assert_eq!(
            next_step(false, 268_116, MAX_WRAPS, cap).unwrap(),
            Step::Done
        );
        match next_step(true, cap + 1, MAX_WRAPS, cap) {
            Err(FinishError::TooLarge { wraps, bytes }) => {
                assert_eq!((wraps, bytes), (MAX_WRAPS, cap + 1))
            }
            other => panic!("{other:?}"),
        }
        let refused = next_step(false, 400_000, MAX_WRAPS, cap)
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("400000 bytes, over EIP-8025's 307200"),
            "{refused}"
        );
    }
}

/// The soundness of each layer's proofs, in bits, as OpenVM's calculator gives it from the
/// layer's verifying key (`SoundnessCalculator::calculate_from_vk`: conservative, over the
/// largest traces the key allows). An aggregated proof is as sound as its weakest layer.
#[derive(Debug, Clone, Copy)]
pub struct Security {
    /// The app (segment) proofs.
    pub app: f64,
    /// The leaf layer.
    pub leaf: f64,
    /// The internal-for-leaf layer.
    pub internal_for_leaf: f64,
    /// The internal-recursive layers and the final wraps.
    pub internal_recursive: f64,
}

impl Security {
    /// The weakest layer's bits.
    pub fn min(&self) -> f64 {
        self.app
            .min(self.leaf)
            .min(self.internal_for_leaf)
            .min(self.internal_recursive)
    }
}

/// [`Security`] of the proofs `sdk` makes.
pub fn security(sdk: &Sdk) -> Security {
    use openvm_stark_backend::soundness::SoundnessCalculator;
    let bits = |vk: &openvm_stark_backend::keygen::types::MultiStarkVerifyingKey<SC>| {
        SoundnessCalculator::calculate_from_vk(vk).total_bits
    };
    let agg = sdk.agg_pk();
    Security {
        app: bits(&sdk.app_pk().app_vm_pk.vm_pk.get_vk()),
        leaf: bits(&agg.prefix.leaf.get_vk()),
        internal_for_leaf: bits(&agg.prefix.internal_for_leaf.get_vk()),
        internal_recursive: bits(&agg.internal_recursive.get_vk()),
    }
}

/// Decodes an aggregated proof.
pub fn decode(bytes: &[u8]) -> Result<VmStarkProof, VmError> {
    VmStarkProof::decode_from_bytes(bytes).map_err(|e| VmError::Vm(format!("proof bytes: {e}")))
}

/// Verifies an aggregated proof against `baseline` under `sdk`'s aggregation keys.
pub fn verify(
    sdk: &Sdk,
    baseline: VerificationBaseline,
    proof: &VmStarkProof,
) -> Result<(), VmError> {
    Sdk::verify_proof(sdk.agg_vk().as_ref().clone(), baseline, proof).map_err(vm_err)
}
