//! Verifying a proof file against what a proof of its program must commit to, then the public
//! values it commits to against the file's claim. Two anchors:
//! - [`Verifier::pinned`]: a pinned guest's commitments (the block guest's, the standard
//!   guest's) in the repository ([`super::pin`]): no build, no keys, no cache; seconds. What
//!   `host verify` uses.
//! - [`Verifier::new`]: the guest rebuilt from this host's source, its program commitment (and,
//!   for an aggregated proof, the whole verification baseline) recomputed (tens of seconds, and
//!   the aggregation keys): `host verify --rebuild`, any guest, app proofs too.
//!
//! A [`Verifier`] checks any number of files.

use openvm_sdk::prover::verify_app_proof_with_expected_exe_commit;
use openvm_sdk::{DefaultStarkEngine, F};

use crate::vm::Sdk;
use openvm_stark_backend::p3_field::PrimeField32;
use openvm_verify_stark_host::vk::VerificationBaseline;

use super::pin::Pinned;
use super::{agg, field_bytes, Proof, ProofError, ProofFile, ProofKind, Subject, FORMAT};
use crate::guest::Program;
use crate::vm::vm_err;

/// What proofs of one subject and kind are checked against.
enum Expected {
    /// The program's commitment.
    App(openvm_stark_sdk::config::baby_bear_poseidon2::Digest),
    /// The program's commitment and the aggregation verifiers' keys.
    Stark(Box<VerificationBaseline>),
    /// A pinned guest's baseline and aggregation verifying key.
    Pinned(Box<Pinned>),
}

/// Verifies proofs of one guest (and VM) of one kind.
pub struct Verifier {
    subject: Option<Subject>,
    kind: ProofKind,
    sdk: Option<Sdk>,
    expected: Expected,
}

impl Verifier {
    /// Rebuilds `subject`'s guest from this host's source and recomputes what a proof of `kind`
    /// must verify against. The aggregation keys are generated from source too (~20 s), never
    /// read from the prover's key cache ([`agg::keys_dir`]): whoever can write that file could
    /// otherwise choose the keys, and so the baseline, that a proof is checked against. Every
    /// path that verifies against source comes here: `host verify --rebuild`,
    /// `--other-program` and `host cluster wait` on a subject the pins do not cover.
    pub fn new(subject: &Subject, kind: ProofKind) -> Result<Self, ProofError> {
        let elf = subject.build()?;
        let sdk = subject.sdk_from_source()?;
        let exe = sdk.convert_to_exe(elf).map_err(vm_err)?;
        let expected = match kind {
            ProofKind::App => Expected::App(sdk.app_prover(exe).map_err(vm_err)?.app_exe_commit()),
            ProofKind::Stark => Expected::Stark(Box::new(agg::baseline(&sdk, exe)?)),
        };
        Ok(Self {
            subject: Some(subject.clone()),
            kind,
            sdk: Some(sdk),
            expected,
        })
    }

    /// Verifies aggregated proofs of `program` against the commitments pinned in the
    /// repository ([`Pinned::builtin`]): no guest build, no key generation, no key cache.
    pub fn pinned(program: Program) -> Result<Self, ProofError> {
        Ok(Self {
            subject: None,
            kind: ProofKind::Stark,
            sdk: None,
            expected: Expected::Pinned(Box::new(Pinned::builtin(program)?)),
        })
    }

    /// Verifies `file`: a valid proof of this verifier's guest, committing to the public
    /// values the file claims; returns them. A file of another guest or kind gets a verifier
    /// of its own.
    pub fn verify(&self, file: &ProofFile) -> Result<Vec<u8>, ProofError> {
        if file.format != FORMAT {
            return Err(ProofError::Format(file.format));
        }
        if let Expected::Pinned(pinned) = &self.expected {
            if !pinned.covers(&file.subject) || file.proof.kind() != ProofKind::Stark {
                return Err(ProofError::NotPinned {
                    subject: format!(
                        "{} ({} keccak, {} public values, 2^{} rows, {} proof)",
                        file.subject.bin,
                        file.subject.keccak.name(),
                        file.subject.public_values_len,
                        file.subject.log_stacked_height,
                        if file.proof.kind() == ProofKind::Stark {
                            "aggregated"
                        } else {
                            "app"
                        }
                    ),
                });
            }
        } else if self.subject.as_ref() != Some(&file.subject) || file.proof.kind() != self.kind {
            return Verifier::new(&file.subject, file.proof.kind())?.verify(file);
        }
        let proved = match (&file.proof, &self.expected, &self.sdk) {
            (Proof::App(app), Expected::App(commit), Some(sdk)) => {
                verify_app_proof_with_expected_exe_commit::<DefaultStarkEngine>(
                    &sdk.app_vk(),
                    app,
                    Some(*commit),
                )
                .map_err(vm_err)?;
                field_bytes(&app.user_public_values.public_values)
            }
            (Proof::Stark { baseline, encoded }, Expected::Stark(expected), Some(sdk)) => {
                check_baseline(baseline, expected)?;
                let proof = agg::decode(encoded)?;
                agg::verify(sdk, expected.as_ref().clone(), &proof)?;
                field_bytes(&proof.user_pvs_proof.public_values)
            }
            (Proof::Stark { baseline, encoded }, Expected::Pinned(pinned), _) => {
                check_baseline(baseline, &pinned.baseline)?;
                let proof = agg::decode(encoded)?;
                Sdk::verify_proof(pinned.agg_vk.clone(), pinned.baseline.clone(), &proof)
                    .map_err(vm_err)?;
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

    /// The soundness of each layer of the proofs this verifier accepts, from the keys it
    /// generated (`None` for a pinned verifier, which holds the final key alone).
    pub fn security(&self) -> Option<agg::Security> {
        self.sdk.as_ref().map(agg::security)
    }

    /// The aggregation baseline an aggregated proof must match (`None` for app proofs).
    pub fn baseline(&self) -> Option<&VerificationBaseline> {
        match &self.expected {
            Expected::App(_) => None,
            Expected::Stark(baseline) => Some(baseline),
            Expected::Pinned(pinned) => Some(&pinned.baseline),
        }
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
        if file.subject.keccak != crate::guest::Keccak::Ours {
            return Err(BlockProofError::NotThisKeccak(file.subject.keccak.name()));
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

/// Verifies a proof of the block guest made under `chain` ([`Verifier::verify_block`]), against
/// the pinned commitments, or, with `rebuild`, against those rebuilt from source.
pub fn verify_block(
    file: &ProofFile,
    chain: &program::ChainConfig,
    chain_name: &str,
    rebuild: bool,
) -> Result<program::PublicValues, BlockProofError> {
    let verifier = if rebuild {
        Verifier::new(&file.subject, file.proof.kind())?
    } else {
        Verifier::pinned(Program::Guest)?
    };
    verifier.verify_block(file, chain, chain_name)
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
    /// The proof is of the block verifier built with another keccak (a comparison baseline).
    #[error("the proof is of the block verifier built with the {0} keccak (a comparison baseline), not of this project's")]
    NotThisKeccak(&'static str),
    /// The public values are fewer than the block guest reveals.
    #[error("the proof commits to {0} bytes of public values, fewer than a block proof's {len}", len = program::PublicValues::LEN)]
    ShortPublicValues(usize),
    /// A sound proof, of a block validated under another chain config.
    #[error("a sound proof, made under another chain config: {proved}{}, not the expected {expected_name} ({expected})", match .proved_name {
        Some(name) => format!(" ({name}'s: verify with --chain {name})"),
        None => " (no chain this verifier knows by name: verify with --chain FILE holding that config)".to_owned(),
    })]
    ChainDigest {
        /// The digest the proof commits to.
        proved: alloy_primitives::B256,
        /// The known chain it is the digest of, if any.
        proved_name: Option<&'static str>,
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
            proved_name: chaindata::chain::known_chain_of(values.chain_digest),
            expected,
            expected_name: chain_name.to_owned(),
        })
    }
}
