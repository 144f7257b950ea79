//! The app VM: OpenVM's SDK configuration (rv32im, io, keccak, SHA-2, Int256, modular
//! arithmetic, Fp2, short Weierstrass) plus this project's BLAKE2b extension
//! (crate `blake2-circuit`), joined through the SDK's generic builder (`GenericSdk`).
//!
//! The SDK part is built exactly as `SdkVmCpuBuilder` builds it; the BLAKE2b chips follow, so
//! the AIRs of a program that never runs `BLAKE2B_ROUNDS` are the SDK's plus two empty ones.
//! On the GPU (`cuda`) the BLAKE2b chips have no CUDA trace generation: their traces are made
//! on the CPU and copied to the device (`HybridChip`).

use blake2_circuit::{
    Blake2b, Blake2bCpuProverExt, Blake2bExtensionExecutor, Blake2bTranspilerExtension,
};
use openvm_circuit::arch::{
    AirInventory, ChipInventoryError, InitFileGenerator, MatrixRecordArena, SystemConfig,
    VmBuilder, VmChipComplex, VmProverExtension,
};
use openvm_circuit::derive::VmConfig;
use openvm_circuit::system::SystemChipInventory;
use openvm_sdk::SC;
use openvm_sdk_config::{SdkVmConfig, SdkVmConfigExecutor, SdkVmCpuBuilder, TranspilerConfig};
use openvm_stark_backend::{StarkEngine, Val};
use openvm_stark_sdk::openvm_cpu_backend::{CpuBackend, CpuDevice};
use openvm_transpiler::transpiler::Transpiler;
use serde::{Deserialize, Serialize};

type F = openvm_sdk::F;

/// The SDK's configuration and the BLAKE2b extension.
#[derive(Clone, Debug, VmConfig, Serialize, Deserialize)]
pub struct AppVmConfig {
    #[config(executor = "SdkVmConfigExecutor<F>")]
    pub sdk: SdkVmConfig,
    #[extension(executor = "Blake2bExtensionExecutor")]
    pub blake2: Blake2b,
}

impl AppVmConfig {
    /// The SDK configuration with OpenVM's optimisations applied (as `SdkVmConfig::optimize`).
    pub fn optimize(mut self) -> Self {
        self.sdk = self.sdk.optimize();
        self
    }
}

impl TranspilerConfig<F> for AppVmConfig {
    fn transpiler(&self) -> Transpiler<F> {
        self.sdk
            .transpiler()
            .with_extension(Blake2bTranspilerExtension)
    }
}

impl InitFileGenerator for AppVmConfig {
    fn generate_init_file_contents(&self) -> Option<String> {
        self.sdk.generate_init_file_contents()
    }
}

/// The CPU prover's chips for [`AppVmConfig`].
#[derive(Clone, Copy, Default)]
pub struct AppVmCpuBuilder;

impl<E> VmBuilder<E> for AppVmCpuBuilder
where
    E: StarkEngine<SC = SC, PB = CpuBackend<SC>, PD = CpuDevice<SC>>,
{
    type VmConfig = AppVmConfig;
    type SystemChipInventory = SystemChipInventory<SC>;
    type RecordArena = MatrixRecordArena<Val<SC>>;

    fn create_chip_complex(
        &self,
        config: &AppVmConfig,
        circuit: AirInventory<SC>,
        device_ctx: &openvm_stark_backend::EngineDeviceCtx<E>,
    ) -> Result<
        VmChipComplex<SC, Self::RecordArena, E::PB, Self::SystemChipInventory>,
        ChipInventoryError,
    > {
        let mut complex = VmBuilder::<E>::create_chip_complex(
            &SdkVmCpuBuilder,
            &config.sdk,
            circuit,
            device_ctx,
        )?;
        VmProverExtension::<E, _, _>::extend_prover(
            &Blake2bCpuProverExt,
            &config.blake2,
            &mut complex.inventory,
        )?;
        Ok(complex)
    }
}

/// The GPU prover's chips for [`AppVmConfig`]: the SDK's GPU chips, then the BLAKE2b chips with
/// their traces made on the CPU (`blake2_circuit::cuda`).
#[cfg(feature = "cuda")]
#[derive(Clone, Copy, Default)]
pub struct AppVmGpuBuilder;

#[cfg(feature = "cuda")]
impl VmBuilder<openvm_sdk::DefaultStarkEngine> for AppVmGpuBuilder {
    type VmConfig = AppVmConfig;
    type SystemChipInventory = openvm_circuit::system::cuda::SystemChipInventoryGPU;
    type RecordArena = openvm_circuit::arch::DenseRecordArena;

    fn create_chip_complex(
        &self,
        config: &AppVmConfig,
        circuit: AirInventory<SC>,
        device_ctx: &openvm_stark_backend::EngineDeviceCtx<openvm_sdk::DefaultStarkEngine>,
    ) -> Result<
        VmChipComplex<
            SC,
            Self::RecordArena,
            openvm_cuda_backend::GpuBackend,
            Self::SystemChipInventory,
        >,
        ChipInventoryError,
    > {
        type E = openvm_sdk::DefaultStarkEngine;
        let mut complex = VmBuilder::<E>::create_chip_complex(
            &openvm_sdk_config::SdkVmGpuBuilder,
            &config.sdk,
            circuit,
            device_ctx,
        )?;
        VmProverExtension::<E, _, _>::extend_prover(
            &blake2_circuit::cuda::Blake2bGpuProverExt,
            &config.blake2,
            &mut complex.inventory,
        )?;
        Ok(complex)
    }
}

/// Kept for the derive's expansion, which names `SystemConfig` unqualified.
#[allow(dead_code)]
type SystemConfigUsed = SystemConfig;
