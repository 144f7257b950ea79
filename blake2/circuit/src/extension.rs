//! The VM extension: executors, AIRs and the CPU prover's chips, in the shape of OpenVM's
//! keccak extension.

use std::sync::{Arc, Mutex};

use derive_more::From;
use openvm_circuit::{
    arch::{
        AirInventory, AirInventoryError, ChipInventory, ChipInventoryError, ExecutionBridge,
        ExecutorInventoryBuilder, ExecutorInventoryError, RowMajorMatrixArena, VmCircuitExtension,
        VmExecutionExtension, VmProverExtension,
    },
    system::{memory::SharedMemoryHelper, SystemPort},
};
use openvm_circuit_derive::{AnyEnum, Executor, MeteredExecutor, PreflightExecutor};
use openvm_circuit_primitives::bitwise_op_lookup::{
    BitwiseOperationLookupAir, BitwiseOperationLookupBus, BitwiseOperationLookupChip,
    SharedBitwiseOperationLookupChip,
};
use openvm_cpu_backend::{CpuBackend, CpuDevice};
use openvm_instructions::LocalOpcode;
use openvm_stark_backend::{
    interaction::PermutationCheckBus, p3_field::PrimeField32, StarkEngine, StarkProtocolConfig, Val,
};
use serde::{Deserialize, Serialize};
use strum::IntoEnumIterator;

use crate::{
    op::{Blake2bExecutor, Blake2bOpAir, Blake2bOpChip},
    round::{Blake2bRoundAir, Blake2bRoundChip},
    Blake2bOpcode,
};

/// The extension: `BLAKE2B_ROUNDS`.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Blake2b;

#[derive(Clone, Copy, From, AnyEnum, Executor, MeteredExecutor, PreflightExecutor)]
pub enum Blake2bExtensionExecutor {
    Rounds(Blake2bExecutor),
}

impl<F> VmExecutionExtension<F> for Blake2b {
    type Executor = Blake2bExtensionExecutor;

    fn extend_execution(
        &self,
        inventory: &mut ExecutorInventoryBuilder<F, Blake2bExtensionExecutor>,
    ) -> Result<(), ExecutorInventoryError> {
        let executor =
            Blake2bExecutor::new(Blake2bOpcode::CLASS_OFFSET, inventory.pointer_max_bits());
        inventory.add_executor(executor, Blake2bOpcode::iter().map(|x| x.global_opcode()))?;
        Ok(())
    }
}

impl<SC: StarkProtocolConfig> VmCircuitExtension<SC> for Blake2b {
    fn extend_circuit(&self, inventory: &mut AirInventory<SC>) -> Result<(), AirInventoryError> {
        let SystemPort {
            execution_bus,
            program_bus,
            memory_bridge,
        } = inventory.system().port();
        let execution_bridge = ExecutionBridge::new(execution_bus, program_bus);
        let pointer_max_bits = inventory.pointer_max_bits();
        let existing = inventory
            .find_air::<BitwiseOperationLookupAir<8>>()
            .next()
            .map(|air| air.bus);
        let bitwise_lu = match existing {
            Some(bus) => bus,
            None => {
                let bus = BitwiseOperationLookupBus::new(inventory.new_bus_idx());
                inventory.add_air(BitwiseOperationLookupAir::<8>::new(bus));
                bus
            }
        };
        let state_bus = PermutationCheckBus::new(inventory.new_bus_idx());
        // The round AIR right before the op AIR: the metered executor counts on it.
        inventory.add_air(Blake2bRoundAir::new(bitwise_lu, state_bus));
        inventory.add_air(Blake2bOpAir::new(
            execution_bridge,
            memory_bridge,
            bitwise_lu,
            state_bus,
            pointer_max_bits,
            Blake2bOpcode::CLASS_OFFSET,
        ));
        Ok(())
    }
}

/// The CPU prover's chips.
pub struct Blake2bCpuProverExt;

impl<SC, E, RA> VmProverExtension<E, RA, Blake2b> for Blake2bCpuProverExt
where
    SC: StarkProtocolConfig,
    E: StarkEngine<SC = SC, PB = CpuBackend<SC>, PD = CpuDevice<SC>>,
    RA: RowMajorMatrixArena<Val<SC>>,
    Val<SC>: PrimeField32,
    SC::EF: Ord,
{
    fn extend_prover(
        &self,
        _: &Blake2b,
        inventory: &mut ChipInventory<SC, RA, CpuBackend<SC>>,
    ) -> Result<(), ChipInventoryError> {
        let range_checker = inventory.range_checker()?.clone();
        let timestamp_max_bits = inventory.timestamp_max_bits();
        let mem_helper = SharedMemoryHelper::new(range_checker, timestamp_max_bits);
        let pointer_max_bits = inventory.airs().pointer_max_bits();
        let existing = inventory
            .find_chip::<SharedBitwiseOperationLookupChip<8>>()
            .next()
            .cloned();
        let bitwise_lu = match existing {
            Some(chip) => chip,
            None => {
                let air: &BitwiseOperationLookupAir<8> = inventory.next_air()?;
                let chip = Arc::new(BitwiseOperationLookupChip::new(air.bus));
                inventory.add_periphery_chip(chip.clone());
                chip
            }
        };
        // The round chip is added before the op chip so that its trace is generated after
        // the op chip's, which hands it the calls.
        let jobs = Arc::new(Mutex::new(Vec::new()));
        inventory.next_air::<Blake2bRoundAir>()?;
        inventory.add_periphery_chip(Blake2bRoundChip::new(bitwise_lu.clone(), jobs.clone()));
        inventory.next_air::<Blake2bOpAir>()?;
        inventory.add_executor_chip(Blake2bOpChip::new(
            bitwise_lu,
            pointer_max_bits,
            mem_helper,
            jobs,
        ));
        Ok(())
    }
}
