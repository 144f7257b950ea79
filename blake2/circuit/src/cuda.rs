//! The GPU prover's chips (`cuda`): the BLAKE2b chips have no CUDA kernels, so their traces
//! are generated on the CPU, as [`crate::Blake2bCpuProverExt`] generates them, and copied to the
//! device. Their lookups go to the CPU halves of the GPU range checker and bitwise lookup
//! (OpenVM creates both as hybrids), whose counts the GPU chips add to their own.

use std::{
    mem::{align_of, size_of},
    sync::{Arc, Mutex},
};

use openvm_circuit::{
    arch::{
        Arena, ChipInventory, ChipInventoryError, DenseRecordArena, MatrixRecordArena,
        VmProverExtension,
    },
    system::{
        cuda::extensions::{get_inventory_range_checker, get_or_create_bitwise_op_lookup},
        memory::SharedMemoryHelper,
    },
};
use openvm_circuit_primitives::{
    hybrid_chip::{cpu_proving_ctx_to_gpu, HybridChip},
    Chip,
};
use openvm_cpu_backend::CpuBackend;
use openvm_cuda_backend::{BabyBearPoseidon2GpuEngine, GpuBackend};
use openvm_cuda_common::stream::GpuDeviceCtx;
use openvm_stark_backend::prover::AirProvingContext;
use openvm_stark_sdk::config::baby_bear_poseidon2::{BabyBearPoseidon2Config, F};

use crate::{
    op::{Blake2bOpAir, Blake2bOpChip, Blake2bRecord, Blake2bRecordMut, NUM_OP_COLS},
    round::{Blake2bRoundAir, Blake2bRoundChip},
    Blake2b,
};

type SC = BabyBearPoseidon2Config;

/// The GPU prover's chips.
pub struct Blake2bGpuProverExt;

impl VmProverExtension<BabyBearPoseidon2GpuEngine, DenseRecordArena, Blake2b>
    for Blake2bGpuProverExt
{
    fn extend_prover(
        &self,
        _: &Blake2b,
        inventory: &mut ChipInventory<SC, DenseRecordArena, GpuBackend>,
    ) -> Result<(), ChipInventoryError> {
        let pointer_max_bits = inventory.airs().pointer_max_bits();
        let timestamp_max_bits = inventory.timestamp_max_bits();
        let range_checker = get_inventory_range_checker(inventory);
        let bitwise = get_or_create_bitwise_op_lookup(inventory)?;
        let device_ctx = range_checker.device_ctx.clone();
        let cpu_range = range_checker
            .cpu_chip
            .clone()
            .expect("OpenVM's GPU range checker is a hybrid");
        let cpu_bitwise = bitwise
            .cpu_chip
            .clone()
            .expect("OpenVM's GPU bitwise lookup is a hybrid");
        let mem_helper = SharedMemoryHelper::new(cpu_range, timestamp_max_bits);
        let jobs = Arc::new(Mutex::new(Vec::new()));
        inventory.next_air::<Blake2bRoundAir>()?;
        inventory.add_periphery_chip(HybridChip::<DenseRecordArena, _>::new(
            Blake2bRoundChip::new(cpu_bitwise.clone(), jobs.clone()),
            device_ctx.clone(),
        ));
        inventory.next_air::<Blake2bOpAir>()?;
        inventory.add_executor_chip(Blake2bOpChipGpu {
            cpu: Blake2bOpChip::new(cpu_bitwise, pointer_max_bits, mem_helper, jobs),
            device_ctx,
        });
        Ok(())
    }
}

/// The op chip on the GPU prover: the dense arena's records moved into a matrix arena, the CPU
/// trace generation run on it, the trace copied to the device.
pub struct Blake2bOpChipGpu {
    pub cpu: Blake2bOpChip<F>,
    pub device_ctx: GpuDeviceCtx,
}

impl Chip<DenseRecordArena, GpuBackend> for Blake2bOpChipGpu {
    fn generate_proving_ctx(&self, mut arena: DenseRecordArena) -> AirProvingContext<GpuBackend> {
        let record = size_of::<Blake2bRecord>().next_multiple_of(align_of::<Blake2bRecord>());
        let rows = arena.allocated().len() / record;
        let mut matrix = MatrixRecordArena::<F>::with_capacity(rows, NUM_OP_COLS);
        arena
            .get_record_seeker::<Blake2bRecordMut, _>()
            .transfer_to_matrix_arena(&mut matrix);
        let ctx =
            Chip::<MatrixRecordArena<F>, CpuBackend<SC>>::generate_proving_ctx(&self.cpu, matrix);
        cpu_proving_ctx_to_gpu(ctx, &self.device_ctx)
    }
}
