//! Plain and metered execution, as keccak's op chip does it: the instruction is checked once
//! when the program is loaded, and each execution reads the registers, the message and `v`,
//! runs the rounds and writes `v`.

use std::borrow::{Borrow, BorrowMut};

use openvm_circuit::{
    arch::{StaticProgramError, *},
    system::memory::online::GuestMemory,
};
use openvm_circuit_primitives_derive::AlignedBytesBorrow;
use openvm_instructions::{
    instruction::Instruction,
    program::DEFAULT_PC_STEP,
    riscv::{RV32_MEMORY_AS, RV32_REGISTER_AS},
};
use openvm_stark_backend::p3_field::PrimeField32;

use super::{Blake2bExecutor, MAX_ROUNDS};
use crate::{reference, STATE_BYTES, WORD_BYTES};

#[derive(AlignedBytesBorrow, Clone)]
#[repr(C)]
struct Blake2bPreCompute {
    a: u8,
    b: u8,
    c: u8,
}

impl Blake2bExecutor {
    fn pre_compute_impl<F: PrimeField32>(
        &self,
        pc: u32,
        inst: &Instruction<F>,
        data: &mut Blake2bPreCompute,
    ) -> Result<(), StaticProgramError> {
        let Instruction { a, b, c, d, e, .. } = inst;
        // The register pointers must fit the byte the executors keep (the AIR takes them whole).
        let registers = [a, b, c].map(|x| x.as_canonical_u32());
        if d.as_canonical_u32() != RV32_REGISTER_AS
            || e.as_canonical_u32() != RV32_MEMORY_AS
            || registers.iter().any(|&r| r > u8::MAX as u32)
        {
            return Err(StaticProgramError::InvalidInstruction(pc));
        }
        let [a, b, c] = registers.map(|r| r as u8);
        *data = Blake2bPreCompute { a, b, c };
        Ok(())
    }
}

impl<F: PrimeField32> InterpreterExecutor<F> for Blake2bExecutor {
    fn pre_compute_size(&self) -> usize {
        size_of::<Blake2bPreCompute>()
    }

    fn pre_compute<Ctx>(
        &self,
        pc: u32,
        inst: &Instruction<F>,
        data: &mut [u8],
    ) -> Result<ExecuteFunc<F, Ctx>, StaticProgramError>
    where
        Ctx: ExecutionCtxTrait,
    {
        let data: &mut Blake2bPreCompute = data.borrow_mut();
        self.pre_compute_impl(pc, inst, data)?;
        Ok(execute_e1_handler::<_, _>)
    }
}

impl<F: PrimeField32> InterpreterMeteredExecutor<F> for Blake2bExecutor {
    fn metered_pre_compute_size(&self) -> usize {
        size_of::<E2PreCompute<Blake2bPreCompute>>()
    }

    fn metered_pre_compute<Ctx>(
        &self,
        chip_idx: usize,
        pc: u32,
        inst: &Instruction<F>,
        data: &mut [u8],
    ) -> Result<ExecuteFunc<F, Ctx>, StaticProgramError>
    where
        Ctx: MeteredExecutionCtxTrait,
    {
        let data: &mut E2PreCompute<Blake2bPreCompute> = data.borrow_mut();
        data.chip_idx = chip_idx as u32;
        self.pre_compute_impl(pc, inst, &mut data.data)?;
        Ok(execute_e2_handler::<_, _>)
    }
}

/// Runs the instruction; returns the rounds run. A count the chip cannot prove (0 or over
/// [`MAX_ROUNDS`]) is a fault.
#[inline(always)]
unsafe fn execute_e12_impl<F: PrimeField32, CTX: ExecutionCtxTrait, const IS_E1: bool>(
    pre_compute: &Blake2bPreCompute,
    exec_state: &mut VmExecState<F, GuestMemory, CTX>,
) -> Result<u32, ExecutionError> {
    let pc = exec_state.pc();
    let v_ptr = u32::from_le_bytes(exec_state.vm_read(RV32_REGISTER_AS, pre_compute.a as u32));
    let m_ptr = u32::from_le_bytes(exec_state.vm_read(RV32_REGISTER_AS, pre_compute.b as u32));
    let count = u32::from_le_bytes(exec_state.vm_read(RV32_REGISTER_AS, pre_compute.c as u32));
    if count == 0 || count > MAX_ROUNDS {
        return Err(ExecutionError::Fail {
            pc,
            msg: "BLAKE2B_ROUNDS takes 1 to 65535 rounds",
        });
    }
    let mut m = [0u8; STATE_BYTES];
    for (i, word) in m.chunks_exact_mut(WORD_BYTES).enumerate() {
        let read: [u8; WORD_BYTES] =
            exec_state.vm_read(RV32_MEMORY_AS, m_ptr + (i * WORD_BYTES) as u32);
        word.copy_from_slice(&read);
    }
    let v_bytes: [u8; STATE_BYTES] = exec_state
        .host_read_slice(RV32_MEMORY_AS, v_ptr, STATE_BYTES)
        .try_into()
        .unwrap();
    let mut v = reference::words(&v_bytes);
    reference::rounds(&mut v, &reference::words(&m), count);
    let out = reference::bytes(&v);
    if IS_E1 {
        exec_state.vm_write(RV32_MEMORY_AS, v_ptr, &out);
    } else {
        for (i, word) in out.chunks_exact(WORD_BYTES).enumerate() {
            let word: &[u8; WORD_BYTES] = word.try_into().unwrap();
            exec_state.vm_write(RV32_MEMORY_AS, v_ptr + (i * WORD_BYTES) as u32, word);
        }
    }
    exec_state.set_pc(pc.wrapping_add(DEFAULT_PC_STEP));
    Ok(count)
}

#[create_handler]
#[inline(always)]
unsafe fn execute_e1_impl<F: PrimeField32, CTX: ExecutionCtxTrait>(
    pre_compute: *const u8,
    exec_state: &mut VmExecState<F, GuestMemory, CTX>,
) -> Result<(), ExecutionError> {
    let pre_compute: &Blake2bPreCompute =
        std::slice::from_raw_parts(pre_compute, size_of::<Blake2bPreCompute>()).borrow();
    execute_e12_impl::<F, CTX, true>(pre_compute, exec_state)?;
    Ok(())
}

#[create_handler]
#[inline(always)]
unsafe fn execute_e2_impl<F: PrimeField32, CTX: MeteredExecutionCtxTrait>(
    pre_compute: *const u8,
    exec_state: &mut VmExecState<F, GuestMemory, CTX>,
) -> Result<(), ExecutionError> {
    let pre_compute: &E2PreCompute<Blake2bPreCompute> =
        std::slice::from_raw_parts(pre_compute, size_of::<E2PreCompute<Blake2bPreCompute>>())
            .borrow();
    let count = execute_e12_impl::<F, CTX, false>(&pre_compute.data, exec_state)?;
    let op_air_idx = pre_compute.chip_idx as usize;
    exec_state.ctx.on_height_change(op_air_idx, 1);
    // The round AIR is added right before the op AIR (see `extension`), and AIR indices run
    // in reverse order of addition, so it is the next index.
    exec_state.ctx.on_height_change(op_air_idx + 1, count);
    Ok(())
}
