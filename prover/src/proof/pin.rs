//! What a proof of a pinned guest must commit to, pinned in the repository and compiled into
//! the host: the program commitment, the app verifying key's commitment, the aggregation
//! verification baseline and the aggregation verifying key, for the default build (`host
//! prove` with this project's keccak and OpenVM's crypto, at the default segment height). Two
//! guests are pinned ([`PINNED`]): the block guest (`pins/block-guest.json`) and the standard
//! EIP-8025 guest (`pins/standard-guest.json`).
//!
//! Why pinned: `host verify` used to check an aggregated proof against a baseline computed from
//! the aggregation keys cached in `~/.cache/.../keys`; whoever could write that file could make
//! forged proofs verify. Against the pin, verifying needs no guest rebuild and no key cache
//! (seconds, not minutes), and trusts only what the repository says. `host pin --check` (and a
//! test, in CI) rebuilds the guest and generates the keys from source and fails when they
//! differ from the pin; `host pin` rewrites it; `host verify --rebuild` still recomputes
//! everything from source.

use std::path::PathBuf;

use openvm_stark_backend::keygen::types::MultiStarkVerifyingKey;
use openvm_stark_backend::p3_field::PrimeField32;
use openvm_verify_stark_host::vk::VerificationBaseline;
use serde::{Deserialize, Serialize};

use super::{agg, Limits, ProofError, Subject};
use crate::guest::{Crypto, GuestSpec, Keccak, Program};
use crate::vm::{sdk_segmented, vm_err};
use openvm_sdk::SC;

/// The pin of the block guest as committed (relative to the workspace).
pub const PIN_PATH: &str = "pins/block-guest.json";

/// The pinned guests and their pin files (relative to the workspace).
pub const PINNED: [(Program, &str); 2] = [
    (Program::Guest, PIN_PATH),
    (Program::Standard, "pins/standard-guest.json"),
];

/// The pin file of `program`, if it is pinned.
pub fn pin_file(program: Program) -> Option<&'static str> {
    PINNED.iter().find(|(p, _)| *p == program).map(|(_, f)| *f)
}

/// The segment height the pin is for: `host prove`'s default.
pub const PINNED_LOG_STACKED_HEIGHT: usize = 21;

/// The pinned commitments, as the file holds them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pin {
    /// The OpenVM version they were made with.
    pub openvm: String,
    /// The guest program (binary name).
    pub program: String,
    /// Its keccak variant.
    pub keccak: Keccak,
    /// The VM's public values.
    pub public_values_len: usize,
    /// log2 of the segments' maximum trace height.
    pub log_stacked_height: usize,
    /// The program (exe) commitment, hex.
    pub exe_commit: String,
    /// The app verifying key's commitment (DAG commit and pre-hash), hex.
    pub app_vk_commit: String,
    /// The whole aggregation verification baseline, hex of its bitcode.
    pub baseline: String,
    /// The aggregation (internal-recursive) verifying key, hex of its bitcode.
    pub agg_vk: String,
}

/// A pin, decoded.
pub struct Pinned {
    /// The file's fields.
    pub pin: Pin,
    /// The baseline.
    pub baseline: VerificationBaseline,
    /// The aggregation verifying key.
    pub agg_vk: MultiStarkVerifyingKey<SC>,
}

pub(crate) fn hex_digest(digest: &[openvm_sdk::F]) -> String {
    let bytes: Vec<u8> = digest
        .iter()
        .flat_map(|f| f.as_canonical_u32().to_le_bytes())
        .collect();
    alloy_primitives::hex::encode_prefixed(bytes)
}

fn bad(reason: String) -> ProofError {
    ProofError::File {
        path: "pins/".to_owned(),
        reason,
    }
}

impl Pinned {
    /// The pin of `program` compiled into this host.
    pub fn builtin(program: Program) -> Result<Self, ProofError> {
        let text = match program {
            Program::Guest => include_str!("../../../pins/block-guest.json"),
            Program::Standard => include_str!("../../../pins/standard-guest.json"),
            other => {
                return Err(ProofError::NotPinned {
                    subject: other.bin().to_owned(),
                })
            }
        };
        let pinned = Self::parse(text)?;
        if pinned.pin.program != program.bin() {
            return Err(bad(format!(
                "the pin of `{}` is of `{}`",
                program.bin(),
                pinned.pin.program
            )));
        }
        Ok(pinned)
    }

    /// Decodes a pin file's text.
    pub fn parse(text: &str) -> Result<Self, ProofError> {
        let pin: Pin = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let bytes = |hex: &str| {
            alloy_primitives::hex::decode(hex).map_err(|e| bad(format!("not hex: {e}")))
        };
        let baseline: VerificationBaseline = bitcode::deserialize(&bytes(&pin.baseline)?)
            .map_err(|e| bad(format!("baseline: {e}")))?;
        let agg_vk = bitcode::deserialize(&bytes(&pin.agg_vk)?)
            .map_err(|e| bad(format!("aggregation verifying key: {e}")))?;
        if hex_digest(&baseline.app_exe_commit) != pin.exe_commit {
            return Err(bad(
                "the baseline's program commitment is not exe_commit".into()
            ));
        }
        Ok(Self {
            pin,
            baseline,
            agg_vk,
        })
    }

    /// The soundness in bits of the final proofs the pinned aggregation verifying key accepts
    /// (OpenVM's calculator; see [`super::agg::Security`] for every layer).
    pub fn security_bits(&self) -> f64 {
        openvm_stark_backend::soundness::SoundnessCalculator::calculate_from_vk(&self.agg_vk)
            .total_bits
    }

    /// Whether `subject` is what the pin is for (the segment memory cap decides only where
    /// segments end, not the circuits: any is accepted).
    pub fn covers(&self, subject: &Subject) -> bool {
        subject.bin == self.pin.program
            && subject.keccak == self.pin.keccak
            && subject.public_values_len == self.pin.public_values_len
            && subject.log_stacked_height == self.pin.log_stacked_height
    }
}

/// Rebuilds `program` (the default build) and generates the aggregation keys from source
/// (never from the key cache), and returns the pin they give.
pub fn compute(program: Program) -> Result<Pin, ProofError> {
    let spec = GuestSpec::program(program, Keccak::Ours).with_crypto(Crypto::Openvm);
    let (subject, elf) = Subject::of_source(spec, Limits::for_proving(PINNED_LOG_STACKED_HEIGHT))?;
    let sdk = sdk_segmented(
        subject.public_values_len,
        subject.log_stacked_height,
        subject.segment_memory,
    )?;
    eprintln!("generating the aggregation keys from source ...");
    let exe = sdk.convert_to_exe(elf).map_err(vm_err)?;
    let baseline = agg::baseline(&sdk, exe)?;
    let agg_vk = sdk.agg_vk();
    let baseline_bytes = bitcode::serialize(&baseline).map_err(vm_err)?;
    let agg_vk_bytes = bitcode::serialize(agg_vk.as_ref()).map_err(vm_err)?;
    let app_vk_commit = bitcode::serialize(&baseline.app_vk_commit).map_err(vm_err)?;
    Ok(Pin {
        openvm: openvm_sdk::OPENVM_VERSION.to_owned(),
        program: program.bin().to_owned(),
        keccak: Keccak::Ours,
        public_values_len: subject.public_values_len,
        log_stacked_height: subject.log_stacked_height,
        exe_commit: hex_digest(&baseline.app_exe_commit),
        app_vk_commit: alloy_primitives::hex::encode_prefixed(app_vk_commit),
        baseline: alloy_primitives::hex::encode(baseline_bytes),
        agg_vk: alloy_primitives::hex::encode(agg_vk_bytes),
    })
}

/// The pin file `file` ([`PINNED`]) in the workspace.
pub fn pin_path(file: &str) -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(file)
}

/// What differs between two pins, field by field (empty: the same).
pub fn differences(pinned: &Pin, computed: &Pin) -> Vec<&'static str> {
    let mut out = Vec::new();
    let fields: [(&'static str, bool); 8] = [
        ("openvm", pinned.openvm == computed.openvm),
        ("program", pinned.program == computed.program),
        ("keccak", pinned.keccak == computed.keccak),
        (
            "public_values_len / log_stacked_height",
            pinned.public_values_len == computed.public_values_len
                && pinned.log_stacked_height == computed.log_stacked_height,
        ),
        ("exe_commit", pinned.exe_commit == computed.exe_commit),
        (
            "app_vk_commit",
            pinned.app_vk_commit == computed.app_vk_commit,
        ),
        ("baseline", pinned.baseline == computed.baseline),
        ("agg_vk", pinned.agg_vk == computed.agg_vk),
    ];
    for (name, same) in fields {
        if !same {
            out.push(name);
        }
    }
    out
}
