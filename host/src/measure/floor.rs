//! The code categories' floor (issue 53): what a block's codes cost when they are only read
//! from the input and hashed, the two things the protocol forces on any stateless validator
//! (a code is trusted only as the preimage of its account's code hash, and a later call in the
//! block may run it, so it is kept). The probe `code_floor` does exactly that over the block's
//! witness codes, on the same VM and segment limits as the guests; a category's ratio to its
//! floor is what its validation costs beyond them (the jump-destination scan, revm, the trie).

use serde::Serialize;

use alloy_primitives::Bytes;
use prover::guest::{GuestSpec, Keccak, Program};
use prover::vm::{Vm, VmError};

/// The floor of one block's codes.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CodeFloor {
    /// Codes in the block's witness.
    pub codes: u64,
    /// Their bytes.
    pub code_bytes: u64,
    /// The probe's instructions.
    pub instructions: u64,
    /// The probe's main cells, all segments.
    pub main_cells: u64,
    /// The probe's segments.
    pub segments: u64,
}

/// Meters the `code_floor` probe over a block's witness `codes`.
pub fn code_floor(codes: &[Bytes]) -> Result<CodeFloor, VmError> {
    let spec = GuestSpec::program(Program::CodeFloor, Keccak::Ours);
    let vm = Vm::new(
        spec.build().map_err(prover::vm::vm_err)?,
        spec.public_values(),
    )?;
    let count = (codes.len() as u32).to_le_bytes();
    let items: Vec<&[u8]> = std::iter::once(&count[..])
        .chain(codes.iter().map(|c| &c[..]))
        .collect();
    let (public, metering) = vm.metered_items(&items)?;
    let mut folded = [0u8; 32];
    for code in codes {
        for (f, h) in folded.iter_mut().zip(alloy_primitives::keccak256(code)) {
            *f ^= h;
        }
    }
    if public.get(..32) != Some(&folded[..]) {
        return Err(prover::vm::vm_err(
            "the code floor probe revealed another hash than the codes' XOR",
        ));
    }
    Ok(CodeFloor {
        codes: codes.len() as u64,
        code_bytes: codes.iter().map(|c| c.len() as u64).sum(),
        instructions: metering.instructions,
        main_cells: metering.main_cells,
        segments: metering.segments.len() as u64,
    })
}
