//! App proofs of a guest run: prove, write to a file, read back, verify.
//!
//! A [`ProofFile`] names what was proved (the guest binary, its keccak variant, the VM's public
//! value count and segment size) besides the proof and the public values it claims. Verifying
//! rebuilds that guest, recomputes its program commitment and checks that the proof is a valid
//! app proof **of that program** (a valid proof of any other program is rejected), then that
//! the public values the proof commits to are the ones the file claims. A proof of the block
//! guest is accepted only under the chain config the verifier expects ([`verify_block`]): its
//! fourth public value must be that config's digest.

use std::path::Path;
use std::time::Duration;

use openvm_sdk::openvm_circuit::arch::ContinuationVmProof;
use openvm_sdk::prover::verify_app_proof_with_expected_exe_commit;
use openvm_sdk::{DefaultStarkEngine, SC};
use openvm_stark_backend::p3_field::PrimeField32;
use openvm_transpiler::elf::Elf;
use serde::{Deserialize, Serialize};

use crate::guest::{GuestSpec, Keccak, Program};
use crate::progress::SegmentProgress;
use crate::vm::{sdk, timed, vm_config, vm_err, Vm, VmError};

/// The proof file's format version.
pub const FORMAT: u32 = 1;

/// A proof and what it claims.
#[derive(Serialize, Deserialize)]
pub struct ProofFile {
    /// [`FORMAT`].
    pub format: u32,
    /// The guest program proved, by its binary's name ([`Program::bin`]).
    pub bin: String,
    /// Its keccak variant.
    pub keccak: Keccak,
    /// The VM's number of public values.
    pub public_values_len: usize,
    /// log2 of the segments' maximum trace height.
    pub log_stacked_height: usize,
    /// The public values the proof claims (for the block guest: [`program::PublicValues`]).
    pub public_values: Vec<u8>,
    /// The app proof.
    pub proof: ContinuationVmProof<SC>,
}

/// Why a proof is not accepted, or could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    /// Building, proving or verifying failed; a forged or corrupted proof lands here.
    #[error(transparent)]
    Vm(#[from] VmError),
    /// The file cannot be read or written, or is not a proof file.
    #[error("proof file {path}: {reason}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The file names a guest program this host does not build.
    #[error("the proof is of guest `{0}`, which this host does not build")]
    UnknownProgram(String),
    /// The file's format version is not [`FORMAT`].
    #[error("proof file format {0} is not supported (expected {FORMAT})")]
    Format(u32),
    /// The proof commits to other public values than the file claims.
    #[error("the proof commits to public values {proved:02x?}, the file claims {claimed:02x?}")]
    PublicValues {
        /// What the proof commits to.
        proved: Vec<u8>,
        /// What the file says.
        claimed: Vec<u8>,
    },
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

/// Verifies a proof of the block guest and that it was made under `chain` (named `chain_name`
/// in errors): the proof verifies ([`verify`]) and its chain digest is `chain`'s.
pub fn verify_block(
    file: &ProofFile,
    chain: &program::ChainConfig,
    chain_name: &str,
) -> Result<program::PublicValues, BlockProofError> {
    if file.bin != Program::Guest.bin() {
        return Err(BlockProofError::NotABlockProof(file.bin.clone()));
    }
    let public = verify(file)?;
    let values = program::PublicValues::from_bytes(&public)
        .ok_or(BlockProofError::ShortPublicValues(public.len()))?;
    check_chain(&values, chain, chain_name)?;
    Ok(values)
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
    let [a, b] = config.rv32m.map_or([1, 1], |m| m.range_tuple_checker_sizes);
    (u64::from(a) * u64::from(b))
        .next_power_of_two()
        .trailing_zeros() as usize
}

/// Proves the guest `spec` on the input items `input`.
pub fn prove(
    spec: GuestSpec,
    log_stacked_height: usize,
    input: &[&[u8]],
) -> Result<(ProofFile, Duration), ProofError> {
    let (bin, keccak, public_values_len) = (spec.program.bin(), spec.keccak, spec.public_values());
    let elf = spec.build()?;
    let log_stacked_height = fit_program(&elf, log_stacked_height);
    // A metered pass first (seconds), so progress can say how many segments there are.
    let (_, metering) =
        Vm::with_log_stacked_height(elf.clone(), public_values_len, log_stacked_height)?
            .metered_items(input)?;
    let segments = metering.segments.len();
    eprintln!(
        "proving {bin} ({}): {} instructions in {segments} segment(s) ...",
        keccak.name(),
        metering.instructions
    );
    let sdk = sdk(public_values_len, log_stacked_height)?;
    let exe = sdk.convert_to_exe(elf).map_err(vm_err)?;
    let (proof, elapsed) = timed(|| -> Result<_, VmError> {
        let mut prover = sdk.app_prover(exe).map_err(vm_err)?;
        SegmentProgress::new(segments)
            .during(|| prover.prove(Vm::stdin_items(input)).map_err(vm_err))
    });
    let proof = proof?;
    let mut public_values = committed_public_values(&proof);
    // The VM holds a power of two of them; the guest reveals the first `public_values_len`.
    public_values.truncate(public_values_len);
    let file = ProofFile {
        format: FORMAT,
        bin: bin.to_owned(),
        keccak,
        public_values_len,
        log_stacked_height,
        public_values,
        proof,
    };
    Ok((file, elapsed))
}

/// The public values a proof commits to, as bytes (each field element holds one byte).
pub fn committed_public_values(proof: &ContinuationVmProof<SC>) -> Vec<u8> {
    proof
        .user_public_values
        .public_values
        .iter()
        .map(|f| f.as_canonical_u32() as u8)
        .collect()
}

/// Verifies `file`: a valid app proof of its guest, committing to the public values it claims.
pub fn verify(file: &ProofFile) -> Result<Vec<u8>, ProofError> {
    if file.format != FORMAT {
        return Err(ProofError::Format(file.format));
    }
    let program =
        Program::from_bin(&file.bin).ok_or_else(|| ProofError::UnknownProgram(file.bin.clone()))?;
    let elf = GuestSpec::program(program, file.keccak).build()?;
    let sdk = sdk(file.public_values_len, file.log_stacked_height)?;
    let exe = sdk.convert_to_exe(elf).map_err(vm_err)?;
    let expected_commit = sdk.app_prover(exe).map_err(vm_err)?.app_exe_commit();
    verify_app_proof_with_expected_exe_commit::<DefaultStarkEngine>(
        &sdk.app_vk(),
        &file.proof,
        Some(expected_commit),
    )
    .map_err(vm_err)?;
    let proved = committed_public_values(&file.proof);
    let claimed_len = file.public_values.len();
    if proved.len() < claimed_len || proved[..claimed_len] != file.public_values[..] {
        return Err(ProofError::PublicValues {
            proved,
            claimed: file.public_values.clone(),
        });
    }
    Ok(file.public_values.clone())
}

/// Writes `file` to `path`.
pub fn write(path: &Path, file: &ProofFile) -> Result<(), ProofError> {
    openvm_sdk::fs::write_object_to_file(path, file).map_err(|e| ProofError::File {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

/// Reads a proof file.
pub fn read(path: &Path) -> Result<ProofFile, ProofError> {
    openvm_sdk::fs::read_object_from_file(path).map_err(|e| ProofError::File {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}
