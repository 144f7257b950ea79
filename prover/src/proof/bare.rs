//! A bare aggregated proof, as `host serve` (and Axiom Edge's manager) hands it out: OpenVM's
//! codec of a `VmStarkProof`, with no [`ProofFile`] around it, so nothing says which guest it
//! is of. The number of public values it carries names the pinned guest it can be (the
//! standard guest reveals [`STANDARD_PUBLIC_VALUES`], the block guest [`PUBLIC_VALUES`]); the
//! file made from it claims that guest's pinned baseline and the proof's own public values,
//! and [`super::Verifier`] then decides, exactly as for a file `host prove` wrote. Nothing in
//! the wrapper is trusted: a proof of another guest fails the pinned baseline's check.

use super::pin::{Pinned, PINNED_LOG_STACKED_HEIGHT};
use super::PROVE_SEGMENT_MEMORY_MIB;
use super::{agg, field_bytes, Proof, ProofError, ProofFile, Subject, FORMAT};
use crate::guest::{Program, PUBLIC_VALUES, STANDARD_PUBLIC_VALUES};

/// A proof file for the bare proof `bytes`, or why they are none.
pub fn from_bare(bytes: &[u8]) -> Result<ProofFile, ProofError> {
    let proof = agg::decode(bytes)?;
    let public = field_bytes(&proof.user_pvs_proof.public_values);
    let program = match public.len() {
        STANDARD_PUBLIC_VALUES => Program::Standard,
        PUBLIC_VALUES => Program::Guest,
        n => {
            return Err(ProofError::NotPinned {
                subject: format!(
                    "a bare proof with {n} public values (no pinned guest reveals {n})"
                ),
            })
        }
    };
    let pinned = Pinned::builtin(program)?;
    debug_assert_eq!(pinned.pin.log_stacked_height, PINNED_LOG_STACKED_HEIGHT);
    Ok(ProofFile {
        format: FORMAT,
        subject: Subject {
            bin: pinned.pin.program.clone(),
            keccak: pinned.pin.keccak,
            public_values_len: pinned.pin.public_values_len,
            log_stacked_height: pinned.pin.log_stacked_height,
            segment_memory: PROVE_SEGMENT_MEMORY_MIB << 20,
        },
        public_values: public,
        // Not recorded in a bare proof.
        segments: 0,
        proof: Proof::Stark {
            baseline: Box::new(pinned.baseline),
            encoded: bytes.to_vec(),
        },
    })
}

/// Reads a proof file (`host prove`'s format) or, failing that, a bare proof ([`from_bare`]).
pub fn read_any(path: &std::path::Path) -> Result<ProofFile, ProofError> {
    match super::read(path) {
        Ok(file) => Ok(file),
        Err(as_file) => {
            let bytes = std::fs::read(path).map_err(|e| super::file_error(path, e))?;
            from_bare(&bytes).map_err(|as_bare| {
                super::file_error(
                    path,
                    format!(
                        "neither a proof file ({as_file}) nor a bare aggregated proof ({as_bare})"
                    ),
                )
            })
        }
    }
}
