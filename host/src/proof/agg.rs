//! One STARK for a whole run: OpenVM's leaf and internal aggregation over the app proofs of
//! every segment, then one more internal-recursive layer (as `StarkProver::prove` does), so
//! the proof's size does not grow with the segments.
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
use openvm_sdk::prover::StarkProver;
use openvm_sdk::{DefaultStarkEngine, Sdk, SC};
use openvm_stark_backend::codec::{Decode, Encode};
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

/// The SDK for `public_values` public values and segments of 2^`log_stacked_height` rows (and
/// at most `segment_memory` bytes of proving-memory estimate), seeded with cached aggregation keys (generated and cached on first use).
pub fn agg_sdk(
    public_values: usize,
    log_stacked_height: usize,
    segment_memory: usize,
) -> Result<(Sdk, KeysSource), ProofError> {
    let fresh = sdk_segmented(public_values, log_stacked_height, segment_memory)?;
    let app_pk = fresh.app_pk().clone();
    let app_vk = bitcode::serialize(&app_pk.get_app_vk()).map_err(vm_err)?;
    let name = format!(
        "agg-openvm{}-{}.pk",
        openvm_sdk::OPENVM_VERSION,
        alloy_primitives::hex::encode(&keccak256(&app_vk)[..8])
    );
    let path = keys_dir().join(name);
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
    /// Internal layers, the final wrap included.
    pub internal: Duration,
}

/// Aggregates an app proof of every segment into one STARK, encoded.
pub fn aggregate(sdk: &Sdk, app: ContinuationVmProof<SC>) -> Result<(Vec<u8>, AggTimes), VmError> {
    let agg = sdk.agg_prover();
    let stages = StageTimes::default();
    let started = Instant::now();
    let proof = stages.during(|| -> Result<VmStarkProof, VmError> {
        let (proof, mut metadata) = agg.prove_vm(app).map_err(vm_err)?;
        agg.wrap_proof(proof, &mut metadata).map_err(vm_err)
    })?;
    let total = started.elapsed();
    let leaf = stages.total("leaf");
    let times = AggTimes {
        leaf,
        internal: total.saturating_sub(leaf),
    };
    Ok((proof.encode_to_vec().map_err(vm_err)?, times))
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
