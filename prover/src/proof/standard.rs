//! Proofs of the standard guest (EIP-8025): the execution specs' `statelessInputBytes` proved,
//! and the 43-byte `StatelessValidationResult` the proof commits to read back.
//!
//! Every input has a proof: the guest ends normally on an invalid block (`false`) and on bytes
//! that do not decode (43 zero bytes), so a proof of `false` is as sound as one of `true`. What
//! a verifier accepts is the result the proof commits to, never the file's claim: the file's
//! public values are checked against the proof ([`Verifier::verify`]), then decoded, and the
//! padding after the 43 bytes must be zero.

use stateless_ssz::StatelessValidationResult;

use super::{prove, Limits, ProofError, ProofFile, ProofKind, ProveReport, Verifier};
use crate::guest::{GuestSpec, Keccak, Program};
use crate::standard::result_of_public;

/// Why a proof of the standard guest is not accepted, or could not be made.
#[derive(Debug, thiserror::Error)]
pub enum StandardProofError {
    /// The proof does not verify, or could not be made.
    #[error(transparent)]
    Proof(#[from] ProofError),
    /// The file is of another guest.
    #[error("the proof is of guest `{0}`, not of the standard guest `standard`")]
    NotStandard(String),
    /// The proved public values are not a result followed by zero bytes.
    #[error("the proved public values are not a stateless validation result: {0}")]
    NotAResult(String),
    /// The VM's result is not the native one.
    #[error("the guest proved {proved:?}, natively the result is {native:?}")]
    Differs {
        /// What the proof says.
        proved: StatelessValidationResult,
        /// What the native run says.
        native: StatelessValidationResult,
    },
}

/// Proves the standard guest (`keccak`, the chips' crypto) on `bytes`, and checks that the
/// proved result is the native one.
pub fn prove_standard(
    bytes: &[u8],
    keccak: Keccak,
    limits: Limits,
    kind: ProofKind,
) -> Result<(ProofFile, ProveReport, StatelessValidationResult), StandardProofError> {
    let native = program::standard::validate(bytes, &stateless_ssz::Sha2Hasher).result;
    let (file, report) = prove(
        GuestSpec::program(Program::Standard, keccak),
        limits,
        &[bytes],
        kind,
    )?;
    let proved = result_in(&file.public_values)?;
    if proved != native {
        return Err(StandardProofError::Differs { proved, native });
    }
    Ok((file, report, proved))
}

/// Verifies a proof of the standard guest against the pinned commitments (or, with
/// `rebuild`, those rebuilt from source) and returns the result it commits to.
pub fn verify_standard(
    file: &ProofFile,
    rebuild: bool,
) -> Result<StatelessValidationResult, StandardProofError> {
    if file.subject.bin != Program::Standard.bin() {
        return Err(StandardProofError::NotStandard(file.subject.bin.clone()));
    }
    let verifier = if rebuild {
        Verifier::new(&file.subject, file.proof.kind())?
    } else {
        Verifier::pinned(Program::Standard)?
    };
    result_in(&verifier.verify(file)?)
}

fn result_in(public: &[u8]) -> Result<StatelessValidationResult, StandardProofError> {
    result_of_public(public)
        .ok_or_else(|| StandardProofError::NotAResult(alloy_primitives::hex::encode(public)))
}
