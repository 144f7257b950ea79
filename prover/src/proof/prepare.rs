//! What a proving machine needs before its first proof, made where a Rust toolchain is: the
//! pinned guests' ELFs, each checked against its pin, and the proving keys.
//!
//! Why: a GPU proving site often has a driver and a container, no compiler and no network
//! (`scripts/gpu-bundle.sh`). There `host` reads the guests from a folder
//! ([`crate::guest::PREBUILT_ENV`]) instead of building them, so they must be the very programs
//! the pins commit to: [`checked_guest`] builds each one here and refuses one whose program
//! commitment is not its pin's. A wrong ELF would only make proofs that fail `host verify`,
//! but it would cost a lease to find out.

use std::time::{Duration, Instant};

use super::pin::{hex_digest, Pinned, PINNED_LOG_STACKED_HEIGHT};
use super::{agg, KeysSource, Limits, ProofError, Subject};
use crate::guest::{decode_elf, GuestSpec, Keccak, Program};
use crate::vm::vm_err;

/// A pinned guest, built here, whose program commitment is its pin's.
pub struct CheckedGuest {
    /// The guest as `host prove` proves it.
    pub spec: GuestSpec,
    /// Its ELF file's bytes.
    pub elf: Vec<u8>,
    /// Its program commitment, hex (the pin's `exe_commit`).
    pub exe_commit: String,
}

/// Builds the pinned guest `program` and checks its program commitment against its pin.
pub fn checked_guest(program: Program) -> Result<CheckedGuest, ProofError> {
    let pinned = Pinned::builtin(program)?;
    let spec = GuestSpec::program(program, Keccak::Ours);
    // One read: the bytes written are the very ones whose commitment is checked.
    let bytes = spec.build_bytes_from_source()?;
    let elf = decode_elf(&bytes)?;
    let subject = Subject::with_elf(
        spec,
        Limits::for_proving(PINNED_LOG_STACKED_HEIGHT),
        elf.clone(),
    )
    .0;
    let sdk = subject.sdk_from_source()?;
    let exe = sdk.convert_to_exe(elf).map_err(vm_err)?;
    let commit = sdk.app_prover(exe).map_err(vm_err)?.app_exe_commit();
    let exe_commit = hex_digest(&commit);
    if exe_commit != pinned.pin.exe_commit {
        return Err(ProofError::Baseline {
            what: "program commitment",
            proved: exe_commit,
            expected: format!("{} (pinned)", pinned.pin.exe_commit),
        });
    }
    Ok(CheckedGuest {
        spec,
        elf: bytes,
        exe_commit,
    })
}

/// What [`keygen`] made.
pub struct Keys {
    /// The subject the keys are for.
    pub subject: Subject,
    /// The app proving key's generation (the program's and the circuits' commitments).
    pub app: Duration,
    /// The aggregation keys, and whether they were generated now or read from the cache.
    pub agg: KeysSource,
}

/// Generates the app and aggregation proving keys of `program` as `host prove` proves it with
/// `limits`, the aggregation keys into the key cache ([`agg::keys_dir`]).
pub fn keygen(program: Program, limits: Limits) -> Result<Keys, ProofError> {
    let (subject, _) = Subject::of(GuestSpec::program(program, Keccak::Ours), limits)?;
    let started = Instant::now();
    let (_, agg) = agg::agg_sdk(
        subject.public_values_len,
        subject.log_stacked_height,
        subject.segment_memory,
    )?;
    let app = started
        .elapsed()
        .saturating_sub(agg.generated.unwrap_or_default());
    Ok(Keys { subject, app, agg })
}
