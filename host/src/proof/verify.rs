//! Verifying a proof file: the guest rebuilt from this host's source, its program commitment
//! (and, for an aggregated proof, the whole verification baseline) recomputed, the proof
//! checked against them, and the public values it commits to compared with the file's claim.
//! A [`Verifier`] does the recomputing once per guest and proof kind (tens of seconds: the
//! guest's program is committed as the prover commits it) and checks any number of files.

use openvm_sdk::prover::verify_app_proof_with_expected_exe_commit;
use openvm_sdk::{DefaultStarkEngine, Sdk, F};
use openvm_stark_backend::p3_field::PrimeField32;
use openvm_verify_stark_host::vk::VerificationBaseline;

use super::{agg, field_bytes, Proof, ProofError, ProofFile, ProofKind, Subject, FORMAT};
use crate::guest::Program;
use crate::vm::vm_err;

/// What proofs of one subject and kind are checked against.
enum Expected {
    /// The program's commitment.
    App(openvm_stark_sdk::config::baby_bear_poseidon2::Digest),
    /// The program's commitment and the aggregation verifiers' keys.
    Stark(Box<VerificationBaseline>),
}

/// Verifies proofs of one guest (and VM) of one kind.
pub struct Verifier {
    subject: Subject,
    kind: ProofKind,
    sdk: Sdk,
    expected: Expected,
}

impl Verifier {
    /// Rebuilds `subject`'s guest from this host's source and recomputes what a proof of `kind`
    /// must verify against.
    pub fn new(subject: &Subject, kind: ProofKind) -> Result<Self, ProofError> {
        let elf = subject.build()?;
        let (sdk, _) = subject.sdk(kind)?;
        let exe = sdk.convert_to_exe(elf).map_err(vm_err)?;
        let expected = match kind {
            ProofKind::App => Expected::App(sdk.app_prover(exe).map_err(vm_err)?.app_exe_commit()),
            ProofKind::Stark => Expected::Stark(Box::new(agg::baseline(&sdk, exe)?)),
        };
        Ok(Self {
            subject: subject.clone(),
            kind,
            sdk,
            expected,
        })
    }

    /// Verifies `file`: a valid proof of this verifier's guest, committing to the public
    /// values the file claims; returns them. A file of another guest or kind gets a verifier
    /// of its own.
    pub fn verify(&self, file: &ProofFile) -> Result<Vec<u8>, ProofError> {
        if file.format != FORMAT {
            return Err(ProofError::Format(file.format));
        }
        if file.subject != self.subject || file.proof.kind() != self.kind {
            return Verifier::new(&file.subject, file.proof.kind())?.verify(file);
        }
        let proved = match (&file.proof, &self.expected) {
            (Proof::App(app), Expected::App(commit)) => {
                verify_app_proof_with_expected_exe_commit::<DefaultStarkEngine>(
                    &self.sdk.app_vk(),
                    app,
                    Some(*commit),
                )
                .map_err(vm_err)?;
                field_bytes(&app.user_public_values.public_values)
            }
            (Proof::Stark { baseline, encoded }, Expected::Stark(expected)) => {
                check_baseline(baseline, expected)?;
                let proof = agg::decode(encoded)?;
                agg::verify(&self.sdk, expected.as_ref().clone(), &proof)?;
                field_bytes(&proof.user_pvs_proof.public_values)
            }
            _ => unreachable!("the kind was matched above"),
        };
        let claimed_len = file.public_values.len();
        if proved.len() < claimed_len || proved[..claimed_len] != file.public_values[..] {
            return Err(ProofError::PublicValues {
                proved,
                claimed: file.public_values.clone(),
            });
        }
        Ok(file.public_values.clone())
    }

    /// [`Verifier::verify`] for the block guest, then its chain digest against `chain`
    /// (named `chain_name` in errors).
    pub fn verify_block(
        &self,
        file: &ProofFile,
        chain: &program::ChainConfig,
        chain_name: &str,
    ) -> Result<program::PublicValues, BlockProofError> {
        if file.subject.bin != Program::Guest.bin() {
            return Err(BlockProofError::NotABlockProof(file.subject.bin.clone()));
        }
        let public = self.verify(file)?;
        let values = program::PublicValues::from_bytes(&public)
            .ok_or(BlockProofError::ShortPublicValues(public.len()))?;
        check_chain(&values, chain, chain_name)?;
        Ok(values)
    }
}

/// Verifies `file` with a verifier of its own ([`Verifier::verify`]).
pub fn verify(file: &ProofFile) -> Result<Vec<u8>, ProofError> {
    Verifier::new(&file.subject, file.proof.kind())?.verify(file)
}

/// Verifies a proof of the block guest made under `chain` ([`Verifier::verify_block`]).
pub fn verify_block(
    file: &ProofFile,
    chain: &program::ChainConfig,
    chain_name: &str,
) -> Result<program::PublicValues, BlockProofError> {
    Verifier::new(&file.subject, file.proof.kind())?.verify_block(file, chain, chain_name)
}

/// Refuses a baseline other than the verifier's own, naming what differs.
fn check_baseline(
    proved: &VerificationBaseline,
    expected: &VerificationBaseline,
) -> Result<(), ProofError> {
    let hex = |digest: &[F]| {
        let bytes: Vec<u8> = digest
            .iter()
            .flat_map(|f| f.as_canonical_u32().to_le_bytes())
            .collect();
        alloy_primitives::hex::encode_prefixed(bytes)
    };
    if proved.app_exe_commit != expected.app_exe_commit {
        return Err(ProofError::Baseline {
            what: "program commitment",
            proved: hex(&proved.app_exe_commit),
            expected: hex(&expected.app_exe_commit),
        });
    }
    let encode = |b: &VerificationBaseline| bitcode::serialize(b).unwrap_or_default();
    if encode(proved) != encode(expected) {
        return Err(ProofError::Baseline {
            what: "VM layout or aggregation verifying keys",
            proved: format!("{:?}", proved.internal_recursive_vk_commit),
            expected: format!("{:?}", expected.internal_recursive_vk_commit),
        });
    }
    Ok(())
}

/// Why a verified proof of the block guest is still not accepted.
#[derive(Debug, thiserror::Error)]
pub enum BlockProofError {
    /// The proof itself does not verify.
    #[error(transparent)]
    Proof(#[from] ProofError),
    /// The proof is of another guest program than the block verifier.
    #[error("the proof is of guest `{0}`, not of the block verifier `guest`")]
    NotABlockProof(String),
    /// The public values are fewer than the block guest reveals.
    #[error("the proof commits to {0} bytes of public values, fewer than a block proof's {len}", len = program::PublicValues::LEN)]
    ShortPublicValues(usize),
    /// The block was validated under another chain config.
    #[error("the proof was made under chain config {proved}, not the expected {expected_name} ({expected})")]
    ChainDigest {
        /// The digest the proof commits to.
        proved: alloy_primitives::B256,
        /// The expected config's digest.
        expected: alloy_primitives::B256,
        /// The expected config's name.
        expected_name: String,
    },
}

/// Checks that `values` were proved under `chain`.
fn check_chain(
    values: &program::PublicValues,
    chain: &program::ChainConfig,
    chain_name: &str,
) -> Result<(), BlockProofError> {
    let expected = chain.digest();
    if values.chain_digest == expected {
        Ok(())
    } else {
        Err(BlockProofError::ChainDigest {
            proved: values.chain_digest,
            expected,
            expected_name: chain_name.to_owned(),
        })
    }
}
