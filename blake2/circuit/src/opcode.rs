//! The instruction's opcode in the VM and its transpiler extension.

use blake2_guest::{BLAKE2B_FUNCT3, BLAKE2B_FUNCT7, OPCODE};
use openvm_instructions::{riscv::RV32_MEMORY_AS, LocalOpcode};
use openvm_instructions_derive::LocalOpcode;
use openvm_stark_backend::p3_field::PrimeField32;
use openvm_transpiler::{util::from_r_type, TranspilerExtension, TranspilerOutput};
use rrs_lib::instruction_formats::RType;
use strum::{EnumCount, EnumIter, FromRepr};

/// `BLAKE2B_ROUNDS`: see crate `blake2-guest`. The class offset is one no OpenVM 2.0.2
/// extension uses (keccak 0x310–0x311, SHA-2 0x320).
#[derive(
    Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, EnumCount, EnumIter, FromRepr, LocalOpcode,
)]
#[opcode_offset = 0x330]
#[repr(usize)]
#[allow(non_camel_case_types)]
pub enum Blake2bOpcode {
    BLAKE2B_ROUNDS,
}

/// Turns the guest's custom-0 R-type instruction into `BLAKE2B_ROUNDS`.
#[derive(Default, Clone, Copy)]
pub struct Blake2bTranspilerExtension;

impl<F: PrimeField32> TranspilerExtension<F> for Blake2bTranspilerExtension {
    fn process_custom(&self, instruction_stream: &[u32]) -> Option<TranspilerOutput<F>> {
        let &word = instruction_stream.first()?;
        let opcode = (word & 0x7f) as u8;
        let funct3 = ((word >> 12) & 0b111) as u8;
        if (opcode, funct3) != (OPCODE, BLAKE2B_FUNCT3) {
            return None;
        }
        let decoded = RType::new(word);
        if decoded.funct7 != BLAKE2B_FUNCT7 as u32 {
            return None;
        }
        Some(TranspilerOutput::one_to_one(from_r_type(
            Blake2bOpcode::BLAKE2B_ROUNDS.global_opcode().as_usize(),
            RV32_MEMORY_AS as usize,
            &decoded,
            true,
        )))
    }
}
