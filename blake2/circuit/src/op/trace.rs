//! Preflight execution (the records) and the op chip's trace.

use std::{
    borrow::BorrowMut,
    mem::{align_of, size_of},
};

use openvm_circuit::{
    arch::*,
    system::memory::{
        offline_checker::MemoryReadAuxRecord, online::TracingMemory, MemoryAuxColsFactory,
        SharedMemoryHelper,
    },
};
use openvm_circuit_primitives::{
    bitwise_op_lookup::SharedBitwiseOperationLookupChip, AlignedBytesBorrow, Chip,
};
use openvm_cpu_backend::CpuBackend;
use openvm_instructions::{
    instruction::Instruction,
    program::DEFAULT_PC_STEP,
    riscv::{RV32_CELL_BITS, RV32_MEMORY_AS, RV32_REGISTER_AS, RV32_REGISTER_NUM_LIMBS},
};
use openvm_rv32im_circuit::adapters::{timed_write, tracing_read};
use openvm_stark_backend::{
    p3_field::PrimeField32,
    p3_matrix::{dense::RowMajorMatrix, Matrix},
    p3_maybe_rayon::prelude::*,
    prover::AirProvingContext,
    StarkProtocolConfig, Val,
};

use super::{columns::Blake2bOpCols, Blake2bExecutor, MAX_ROUNDS};
use crate::{
    reference,
    round::{RoundJob, SharedJobs},
    Blake2bOpcode, STATE_BYTES, STATE_WORDS, WORD_BYTES,
};

#[derive(Clone, Copy, Default)]
pub struct Blake2bMetadata;

impl MultiRowMetadata for Blake2bMetadata {
    fn get_num_rows(&self) -> usize {
        1
    }
}

pub type Blake2bRecordLayout = MultiRowLayout<Blake2bMetadata>;

/// What preflight execution records for one instruction; the row is filled from it.
#[repr(C)]
#[derive(AlignedBytesBorrow, Debug, Clone)]
pub struct Blake2bRecord {
    pub pc: u32,
    pub timestamp: u32,
    pub rd_ptr: u32,
    pub rs1_ptr: u32,
    pub rs2_ptr: u32,
    pub v_ptr: u32,
    pub m_ptr: u32,
    pub rounds: u32,
    pub register_aux: [MemoryReadAuxRecord; 3],
    pub m_aux: [MemoryReadAuxRecord; STATE_WORDS],
    pub v_aux: [MemoryReadAuxRecord; STATE_WORDS],
    pub v_pre: [u8; STATE_BYTES],
    pub v_post: [u8; STATE_BYTES],
    pub m: [u8; STATE_BYTES],
}

/// The record in an arena's buffer (for CUDA's record seeker, as keccak's).
pub struct Blake2bRecordMut<'a> {
    pub inner: &'a mut Blake2bRecord,
}

impl<'a> CustomBorrow<'a, Blake2bRecordMut<'a>, Blake2bRecordLayout> for [u8] {
    fn custom_borrow(&'a mut self, _layout: Blake2bRecordLayout) -> Blake2bRecordMut<'a> {
        // SAFETY: the arena hands out buffers of at least `size_of::<Blake2bRecord>()` bytes,
        // aligned to its alignment (`SizedRecord` below).
        let (record, _) = unsafe { self.split_at_mut_unchecked(size_of::<Blake2bRecord>()) };
        Blake2bRecordMut {
            inner: record.borrow_mut(),
        }
    }

    unsafe fn extract_layout(&self) -> Blake2bRecordLayout {
        Blake2bRecordLayout::new(Blake2bMetadata)
    }
}

impl SizedRecord<Blake2bRecordLayout> for Blake2bRecordMut<'_> {
    fn size(_layout: &Blake2bRecordLayout) -> usize {
        size_of::<Blake2bRecord>()
    }

    fn alignment(_layout: &Blake2bRecordLayout) -> usize {
        align_of::<Blake2bRecord>()
    }
}

impl<F, RA> PreflightExecutor<F, RA> for Blake2bExecutor
where
    F: PrimeField32,
    for<'buf> RA: RecordArena<'buf, Blake2bRecordLayout, &'buf mut Blake2bRecord>,
{
    fn get_opcode_name(&self, _: usize) -> String {
        format!("{:?}", Blake2bOpcode::BLAKE2B_ROUNDS)
    }

    fn execute(
        &self,
        state: VmStateMut<F, TracingMemory, RA>,
        instruction: &Instruction<F>,
    ) -> Result<(), ExecutionError> {
        let &Instruction { a, b, c, .. } = instruction;
        let pc = *state.pc;
        let record = state.ctx.alloc(Blake2bRecordLayout::new(Blake2bMetadata));
        record.pc = pc;
        record.timestamp = state.memory.timestamp();
        record.rd_ptr = a.as_canonical_u32();
        record.rs1_ptr = b.as_canonical_u32();
        record.rs2_ptr = c.as_canonical_u32();
        let [rd_aux, rs1_aux, rs2_aux] = &mut record.register_aux;
        record.v_ptr = u32::from_le_bytes(tracing_read(
            state.memory,
            RV32_REGISTER_AS,
            record.rd_ptr,
            &mut rd_aux.prev_timestamp,
        ));
        record.m_ptr = u32::from_le_bytes(tracing_read(
            state.memory,
            RV32_REGISTER_AS,
            record.rs1_ptr,
            &mut rs1_aux.prev_timestamp,
        ));
        record.rounds = u32::from_le_bytes(tracing_read(
            state.memory,
            RV32_REGISTER_AS,
            record.rs2_ptr,
            &mut rs2_aux.prev_timestamp,
        ));
        if record.rounds == 0 || record.rounds > MAX_ROUNDS {
            return Err(ExecutionError::Fail {
                pc,
                msg: "BLAKE2B_ROUNDS takes 1 to 65535 rounds",
            });
        }
        for (i, (word, aux)) in record
            .m
            .chunks_exact_mut(WORD_BYTES)
            .zip(&mut record.m_aux)
            .enumerate()
        {
            let read: [u8; WORD_BYTES] = tracing_read(
                state.memory,
                RV32_MEMORY_AS,
                record.m_ptr + (i * WORD_BYTES) as u32,
                &mut aux.prev_timestamp,
            );
            word.copy_from_slice(&read);
        }
        // SAFETY: RV32_MEMORY_AS holds `u8` cells; an out-of-bounds slice panics (protected
        // mode), as keccak's op chip does.
        let pre = unsafe {
            state
                .memory
                .data()
                .get_slice::<u8>(RV32_MEMORY_AS, record.v_ptr, STATE_BYTES)
        };
        record.v_pre.copy_from_slice(pre);
        let mut v = reference::words(&record.v_pre);
        reference::rounds(&mut v, &reference::words(&record.m), record.rounds);
        let post = reference::bytes(&v);
        record.v_post = post;
        // Each word's previous data in the write is the pre-state just read.
        for (i, (word, aux)) in post
            .chunks_exact(WORD_BYTES)
            .zip(&mut record.v_aux)
            .enumerate()
        {
            let (prev_timestamp, _) = timed_write::<WORD_BYTES>(
                state.memory,
                RV32_MEMORY_AS,
                record.v_ptr + (i * WORD_BYTES) as u32,
                word.try_into().unwrap(),
            );
            aux.prev_timestamp = prev_timestamp;
        }
        *state.pc = pc.wrapping_add(DEFAULT_PC_STEP);
        Ok(())
    }
}

/// The op chip: fills its rows from the records and leaves each call for the round chip.
#[derive(derive_new::new)]
pub struct Blake2bOpChip<F> {
    pub bitwise_lookup_chip: SharedBitwiseOperationLookupChip<8>,
    pub pointer_max_bits: usize,
    pub mem_helper: SharedMemoryHelper<F>,
    pub jobs: SharedJobs,
}

impl<SC, RA> Chip<RA, CpuBackend<SC>> for Blake2bOpChip<Val<SC>>
where
    SC: StarkProtocolConfig,
    Val<SC>: PrimeField32,
    RA: RowMajorMatrixArena<Val<SC>>,
{
    fn generate_proving_ctx(&self, arena: RA) -> AirProvingContext<CpuBackend<SC>> {
        let rows_used = arena.trace_offset() / arena.width();
        let mut trace = arena.into_matrix();
        let mem_helper = self.mem_helper.as_borrowed();
        self.fill_trace(&mem_helper, &mut trace, rows_used);
        AirProvingContext::simple_no_pis(trace)
    }
}

impl<F: PrimeField32> TraceFiller<F> for Blake2bOpChip<F> {
    fn fill_trace(
        &self,
        mem_helper: &MemoryAuxColsFactory<F>,
        trace_matrix: &mut RowMajorMatrix<F>,
        rows_used: usize,
    ) {
        if rows_used == 0 {
            return;
        }
        let width = trace_matrix.width();
        let (trace, padding) = trace_matrix.values.split_at_mut(rows_used * width);
        // The records sit at the start of each row's buffer: copy them out before the row is
        // overwritten.
        let records = trace
            .par_chunks_exact_mut(width)
            .map(|mut row| {
                // SAFETY: preflight wrote one `Blake2bRecord` at the start of each used row.
                let record: &mut Blake2bRecord = unsafe {
                    get_record_from_slice(&mut row, Blake2bRecordLayout::new(Blake2bMetadata))
                };
                record.clone()
            })
            .collect::<Vec<_>>();
        padding.fill(F::ZERO);

        trace
            .par_chunks_exact_mut(width)
            .zip(records.par_iter())
            .for_each(|(row, record)| {
                row.fill(F::ZERO);
                let cols: &mut Blake2bOpCols<F> = row.borrow_mut();
                cols.pc = F::from_u32(record.pc);
                cols.is_valid = F::ONE;
                cols.timestamp = F::from_u32(record.timestamp);
                cols.rd_ptr = F::from_u32(record.rd_ptr);
                cols.rs1_ptr = F::from_u32(record.rs1_ptr);
                cols.rs2_ptr = F::from_u32(record.rs2_ptr);
                cols.v_ptr = record.v_ptr.to_le_bytes().map(F::from_u8);
                cols.m_ptr = record.m_ptr.to_le_bytes().map(F::from_u8);
                let count = record.rounds.to_le_bytes();
                cols.rounds = [F::from_u8(count[0]), F::from_u8(count[1])];
                cols.v_pre = record.v_pre.map(F::from_u8);
                cols.v_post = record.v_post.map(F::from_u8);
                cols.m = record.m.map(F::from_u8);

                let mut timestamp = record.timestamp;
                for (aux, rec) in cols.register_aux.iter_mut().zip(&record.register_aux) {
                    mem_helper.fill(rec.prev_timestamp, timestamp, aux.as_mut());
                    timestamp += 1;
                }
                for (aux, rec) in cols.m_aux.iter_mut().zip(&record.m_aux) {
                    mem_helper.fill(rec.prev_timestamp, timestamp, aux.as_mut());
                    timestamp += 1;
                }
                for (aux, rec) in cols.v_aux.iter_mut().zip(&record.v_aux) {
                    mem_helper.fill(rec.prev_timestamp, timestamp, aux);
                    timestamp += 1;
                }

                let shift =
                    1u32 << (RV32_CELL_BITS * RV32_REGISTER_NUM_LIMBS - self.pointer_max_bits);
                self.bitwise_lookup_chip
                    .request_range((record.v_ptr >> 24) * shift, (record.m_ptr >> 24) * shift);
            });
        *self.jobs.lock().unwrap() = records
            .iter()
            .map(|record| RoundJob {
                timestamp: record.timestamp,
                rounds: record.rounds,
                v: reference::words(&record.v_pre),
                m: reference::words(&record.m),
            })
            .collect();
    }
}
