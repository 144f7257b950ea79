//! What a proof is of ([`Subject`]): the guest program, its keccak variant and the VM it ran
//! in, with where its segments end ([`Limits`]). Every part of a split proof, every
//! aggregation key and every verifier is keyed by it, so it is one type.

use openvm_transpiler::elf::Elf;
use serde::{Deserialize, Serialize};

use super::{agg, KeysSource, ProofError, ProofKind};
use crate::guest::{GuestSpec, Keccak, Program};
pub use crate::vm::Limits;
use crate::vm::{sdk_segmented, vm_config, Sdk};

impl Limits {
    /// `host prove`'s default: segments of at most 2^`log_stacked_height` rows and
    /// [`PROVE_SEGMENT_MEMORY_MIB`] on the CPU prover, OpenVM's default cap with CUDA.
    pub fn for_proving(log_stacked_height: usize) -> Self {
        let mut limits = Self::height(log_stacked_height);
        if !cfg!(feature = "cuda") {
            limits.segment_memory = PROVE_SEGMENT_MEMORY_MIB << 20;
        }
        limits
    }
}

/// The CPU prover's cap on a segment's proving-memory estimate, MiB, measured to fit a 24 GB
/// machine: 24171384's heaviest segment (its first) peaked at 14.4 GB at 4096, 43 segments; at
/// 6144 (24 segments) and at OpenVM's 15 GiB (with 2^21 rows: 11 segments) the process was
/// killed at 24.4 GB. Real memory runs up to ~3.5 times the estimate.
pub const PROVE_SEGMENT_MEMORY_MIB: usize = 4096;

/// What a proof is of: the guest program and the VM it ran in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    /// The guest program, by its binary's name ([`Program::bin`]).
    pub bin: String,
    /// Its keccak variant.
    pub keccak: Keccak,
    /// The VM's number of public values.
    pub public_values_len: usize,
    /// log2 of the segments' maximum trace height.
    pub log_stacked_height: usize,
    /// The cap on a segment's proving-memory estimate, bytes: with the height, it decides
    /// where segments end (every part of a split proof must cut the same way).
    pub segment_memory: usize,
}

impl Subject {
    /// The guest `spec` proved with segments of 2^`log_stacked_height` rows (raised to what
    /// its program needs, [`fit_program`]) and `limits.segment_memory`, and its ELF.
    pub fn of(spec: GuestSpec, limits: Limits) -> Result<(Self, Elf), ProofError> {
        Ok(Self::with_elf(spec, limits, spec.build()?))
    }

    /// [`Subject::of`] with the ELF built from this host's source, never a prebuilt one
    /// ([`GuestSpec::build_from_source`]): what the pins are computed from.
    pub fn of_source(spec: GuestSpec, limits: Limits) -> Result<(Self, Elf), ProofError> {
        Ok(Self::with_elf(spec, limits, spec.build_from_source()?))
    }

    /// [`Subject::of`] for the ELF `elf` of `spec`.
    pub(crate) fn with_elf(spec: GuestSpec, limits: Limits, elf: Elf) -> (Self, Elf) {
        let subject = Self {
            bin: spec.program.bin().to_owned(),
            keccak: spec.keccak,
            public_values_len: spec.public_values(),
            log_stacked_height: fit_program(&elf, limits.log_stacked_height),
            segment_memory: limits.segment_memory,
        };
        (subject, elf)
    }

    /// The guest, rebuilt from this host's source (never a prebuilt one: verifiers check
    /// against it).
    pub fn build(&self) -> Result<Elf, ProofError> {
        Ok(self.spec()?.build_from_source()?)
    }

    /// The guest as a prover runs it: built, or read from the prebuilt guests' folder
    /// ([`GuestSpec::build`]).
    pub fn prover_elf(&self) -> Result<Elf, ProofError> {
        Ok(self.spec()?.build()?)
    }

    fn spec(&self) -> Result<GuestSpec, ProofError> {
        let program = Program::from_bin(&self.bin)
            .ok_or_else(|| ProofError::UnknownProgram(self.bin.clone()))?;
        Ok(GuestSpec::program(program, self.keccak))
    }

    /// The SDK for this subject with nothing from the key cache: its aggregation keys are
    /// generated from source when first needed (what verification against source uses).
    pub(crate) fn sdk_from_source(&self) -> Result<Sdk, ProofError> {
        Ok(sdk_segmented(
            self.public_values_len,
            self.log_stacked_height,
            self.segment_memory,
        )?)
    }

    /// The SDK for this subject with the keys `kind` needs (the aggregation keys for a STARK),
    /// and where those keys came from.
    pub fn sdk(&self, kind: ProofKind) -> Result<(Sdk, Option<KeysSource>), ProofError> {
        match kind {
            ProofKind::App => {
                let sdk = sdk_segmented(
                    self.public_values_len,
                    self.log_stacked_height,
                    self.segment_memory,
                )?;
                Ok((sdk, None))
            }
            ProofKind::Stark => {
                let (sdk, keys) = agg::agg_sdk(
                    self.public_values_len,
                    self.log_stacked_height,
                    self.segment_memory,
                )?;
                Ok((sdk, Some(keys)))
            }
        }
    }
}

/// The smallest log2 stacked height that holds `elf`'s program trace (one row per
/// instruction, padded to a power of two) and the VM's tallest fixed-height table, at least
/// `requested`. Below it the prover fails with `LayoutHeightExceeded` whatever the segments'
/// sizes, so it is raised, with a note.
pub fn fit_program(elf: &Elf, requested: usize) -> usize {
    let program = elf.instructions.len().next_power_of_two().trailing_zeros() as usize;
    let table = fixed_table_log_height();
    let needed = program.max(table);
    if needed > requested {
        eprintln!(
            "note: stacked height raised from 2^{requested} to 2^{needed} to hold the program ({} instructions) and the VM's fixed tables (2^{table} rows)",
            elf.instructions.len()
        );
    }
    requested.max(needed)
}

/// log2 of the VM's tallest fixed-height table: the range-tuple checker that the rv32m and
/// Int256 multipliers share, `sizes[0]·sizes[1]` rows (2^21 with Int256's sizes, which the
/// SDK gives rv32m too).
pub fn fixed_table_log_height() -> usize {
    let config = vm_config(1).optimize();
    let [a, b] = config
        .sdk
        .rv32m
        .map_or([1, 1], |m| m.range_tuple_checker_sizes);
    (u64::from(a) * u64::from(b))
        .next_power_of_two()
        .trailing_zeros() as usize
}
