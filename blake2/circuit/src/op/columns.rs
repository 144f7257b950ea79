//! The op chip's columns.

use openvm_circuit::system::memory::offline_checker::{MemoryBaseAuxCols, MemoryReadAuxCols};
use openvm_circuit_primitives::{StructReflection, StructReflectionHelper};
use openvm_circuit_primitives_derive::AlignedBorrow;
use openvm_instructions::riscv::RV32_REGISTER_NUM_LIMBS;

use crate::{STATE_BYTES, STATE_WORDS};

#[repr(C)]
#[derive(Copy, Clone, Debug, AlignedBorrow, StructReflection)]
pub struct Blake2bOpCols<T> {
    pub pc: T,
    pub is_valid: T,
    /// The instruction's first timestamp.
    pub timestamp: T,
    /// The register pointers `rd` (holds `v`'s address), `rs1` (`m`'s) and `rs2` (the count).
    pub rd_ptr: T,
    pub rs1_ptr: T,
    pub rs2_ptr: T,
    pub v_ptr: [T; RV32_REGISTER_NUM_LIMBS],
    pub m_ptr: [T; RV32_REGISTER_NUM_LIMBS],
    /// The count's two low bytes; its high bytes are zero.
    pub rounds: [T; 2],
    /// `v` before (the writes' previous data) and after.
    pub v_pre: [T; STATE_BYTES],
    pub v_post: [T; STATE_BYTES],
    pub m: [T; STATE_BYTES],
    pub register_aux: [MemoryReadAuxCols<T>; 3],
    pub m_aux: [MemoryReadAuxCols<T>; STATE_WORDS],
    pub v_aux: [MemoryBaseAuxCols<T>; STATE_WORDS],
}

pub const NUM_OP_COLS: usize = size_of::<Blake2bOpCols<u8>>();
