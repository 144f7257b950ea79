//! The guest in the OpenVM VM: its config, executing it, and metering it (guest ELFs come from
//! [`crate::guest`]).
//!
//! **VM.** rv32im, io, keccak, SHA-2, Int256, modular arithmetic, Fp2 and short Weierstrass
//! ([`vm_config`]), with the block guest's 128 public values ([`program::PublicValues`]).
//!
//! **Metering** runs OpenVM's metered interpreter without committing the program for a
//! prover (the SDK's `execute_metered` does, which costs minutes): only the app proving key
//! (~0.2 s) is generated. For each segment, with `h` the unpadded trace height of an AIR:
//! - main-trace cells = Σ h × main width;
//! - memory bytes = the proving-memory estimate the segmentation itself uses
//!   (`ProvingMemoryConfig::estimate`), fed with the **unpadded** counts: main cells of AIRs with
//!   and without next-row rotation (Σ h × total width), interaction slots (Σ h × interactions)
//!   and constraint-evaluation buffers (Σ h × buffer size). This is OpenVM's own
//!   `metered_memory_unpadded_bytes`; padding to powers of two is excluded from both figures.

use std::sync::Arc;
use std::time::{Duration, Instant};

use openvm_sdk::config::{AggregationSystemParams, AppConfig};
use openvm_sdk::openvm_circuit::arch::instructions::exe::VmExe;
use openvm_sdk::openvm_circuit::arch::{SystemConfig, VirtualMachine};
use openvm_sdk::openvm_circuit::system::memory::merkle::public_values::extract_public_values;
use openvm_sdk::{Sdk, StdIn, F};
use openvm_stark_sdk::config::baby_bear_poseidon2::BabyBearPoseidon2CpuEngine;

/// Metering runs on the CPU whatever engine proves (the `cuda` feature swaps the SDK's).
type MeterEngine = BabyBearPoseidon2CpuEngine;
use openvm_sdk_config::{SdkSystemConfig, SdkVmConfig};
use openvm_stark_sdk::config::{app_params_with_100_bits_security, MAX_APP_LOG_STACKED_HEIGHT};
use openvm_transpiler::elf::Elf;

use crate::guest::{CENSUS_PUBLIC_VALUES, PUBLIC_VALUES};

/// A VM step that failed.
#[derive(Debug, thiserror::Error)]
pub enum VmError {
    /// The guest did not build.
    #[error("building the guest ({variant}) failed{}", .code.map(|c| format!(" with exit code {c}")).unwrap_or_default())]
    GuestBuild {
        /// The variant.
        variant: &'static str,
        /// cargo's exit code.
        code: Option<i32>,
    },
    /// The guest ELF could not be found or decoded.
    #[error("guest ELF: {0}")]
    Elf(String),
    /// The SDK or the VM failed (keygen, transpiling, execution: a guest panic lands here).
    #[error("OpenVM: {0}")]
    Vm(String),
}

pub(crate) fn vm_err(e: impl std::fmt::Display) -> VmError {
    VmError::Vm(e.to_string())
}

/// The VM configuration: rv32im, io, keccak, and room for `public_values` public values.
///
/// The count is rounded up to a power of two: the prover commits the public values as a
/// Merkle tree and panics on any other count (`pv_height must be a power of two`, seen when the
/// block guest revealed 96). A guest leaves the extra values zero; callers read the first
/// `public_values`.
///
/// It also has the extensions the `crypto` crate's guests run on: SHA-2, Int256 (`MODEXP`'s
/// other moduli), the modular-arithmetic
/// extension over [`crypto::MODULI`] and the short-Weierstrass extension over
/// [`crypto::CURVES`] (secp256k1, BN254 G1, P-256, BLS12-381 G1) and the Fp2 extension over
/// [`crypto::COMPLEX`] (BN254's and BLS12-381's `Fp2`), in the order the guests' `crypto::init!` registers them. Every guest runs under this one config; a software-crypto guest leaves
/// those chips empty.
pub fn vm_config(public_values: usize) -> SdkVmConfig {
    use openvm_algebra_circuit::{Fp2Extension, ModularExtension};
    use openvm_ecc_circuit::{CurveConfig, WeierstrassExtension, P256_CONFIG, SECP256K1_CONFIG};
    let modulus = |hex: &str| {
        num_bigint::BigUint::parse_bytes(hex.trim_start_matches("0x").as_bytes(), 16)
            .expect("crypto::MODULI are hex")
    };
    let bn254 = CurveConfig {
        struct_name: crypto::CURVES[1].to_string(),
        modulus: modulus(crypto::bn254::COORDINATE_MODULUS),
        scalar: modulus(crypto::bn254::SCALAR_MODULUS),
        a: 0u8.into(),
        b: 3u8.into(),
    };
    let mut config = SdkVmConfig::riscv32();
    config.keccak = Some(Default::default());
    config.sha2 = Some(Default::default());
    config.bigint = Some(Default::default());
    config.modular = Some(ModularExtension::new(
        crypto::MODULI.iter().map(|m| modulus(m)).collect(),
    ));
    config.fp2 = Some(Fp2Extension::new(
        crypto::COMPLEX
            .iter()
            .map(|(name, base)| (name.to_string(), modulus(crypto::MODULI[*base])))
            .collect(),
    ));
    let bls12_381 = CurveConfig {
        struct_name: crypto::CURVES[3].to_string(),
        modulus: modulus(crypto::bls12_381::COORDINATE_MODULUS),
        scalar: modulus(crypto::bls12_381::ORDER),
        a: 0u8.into(),
        b: 4u8.into(),
    };
    config.ecc = Some(WeierstrassExtension::new(vec![
        SECP256K1_CONFIG.clone(),
        bn254,
        P256_CONFIG.clone(),
        bls12_381,
    ]));
    config.system = SdkSystemConfig {
        config: SystemConfig::default().with_public_values(public_values.next_power_of_two()),
    };
    config
}

/// The SDK for this project's VM config with `public_values` public values and segments of
/// at most 2^`log_stacked_height` rows.
pub(crate) fn sdk(public_values: usize, log_stacked_height: usize) -> Result<Sdk, VmError> {
    let params = app_params_with_100_bits_security(log_stacked_height);
    Sdk::new(
        AppConfig::new(vm_config(public_values), params),
        AggregationSystemParams::default(),
    )
    .map_err(vm_err)
}

/// The census a census build revealed, and the guest's total heap use.
pub fn decode_census(public: &[u8]) -> Option<(mpt::keccak::census::Census, u64)> {
    let words = public.get(PUBLIC_VALUES..CENSUS_PUBLIC_VALUES)?;
    let mut w = words
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));
    let counters: [u64; 9] = core::array::from_fn(|_| w.next().unwrap_or_default());
    Some((mpt::keccak::census::Census::from_words(counters), w.next()?))
}

/// One segment's metered figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SegmentStats {
    /// Instructions executed.
    pub instructions: u64,
    /// Unpadded main-trace cells.
    pub main_cells: u64,
    /// Unpadded proving-memory estimate, bytes.
    pub memory_bytes: u64,
}

/// Metered execution's figures.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Metering {
    /// Instructions executed.
    pub instructions: u64,
    /// Unpadded main-trace cells, all segments.
    pub main_cells: u64,
    /// Unpadded proving-memory estimate, all segments, bytes.
    pub memory_bytes: u64,
    /// Per segment.
    pub segments: Vec<SegmentStats>,
}

/// The SDK and the transpiled guest.
pub struct Vm {
    sdk: Sdk,
    exe: Arc<VmExe<F>>,
    public_values: usize,
}

impl Vm {
    /// The VM for `elf` with this project's config, `public_values` public values and the
    /// default app parameters.
    pub fn new(elf: Elf, public_values: usize) -> Result<Self, VmError> {
        Self::with_log_stacked_height(elf, public_values, MAX_APP_LOG_STACKED_HEIGHT)
    }

    /// The VM with segments of at most 2^`log_stacked_height` rows (as a prover would use).
    pub fn with_log_stacked_height(
        elf: Elf,
        public_values: usize,
        log_stacked_height: usize,
    ) -> Result<Self, VmError> {
        let sdk = sdk(public_values, log_stacked_height)?;
        let exe = sdk.convert_to_exe(elf).map_err(vm_err)?;
        Ok(Self {
            sdk,
            exe,
            public_values,
        })
    }

    pub(crate) fn stdin(input: &[u8]) -> StdIn {
        Self::stdin_items(&[input])
    }

    fn stdin_items(items: &[&[u8]]) -> StdIn {
        let mut stdin = StdIn::default();
        for item in items {
            stdin.write_bytes(item);
        }
        stdin
    }

    /// Pure execution; returns the public values.
    pub fn execute(&self, input: &[u8]) -> Result<Vec<u8>, VmError> {
        let mut public = self
            .sdk
            .execute(self.exe.clone(), Self::stdin(input))
            .map_err(vm_err)?;
        public.truncate(self.public_values);
        Ok(public)
    }

    /// Metered execution; returns the public values and the figures.
    pub fn metered(&self, input: &[u8]) -> Result<(Vec<u8>, Metering), VmError> {
        self.metered_items(&[input])
    }

    /// [`Vm::metered`] with several input items, read by the guest in this order.
    pub fn metered_items(&self, items: &[&[u8]]) -> Result<(Vec<u8>, Metering), VmError> {
        use openvm_stark_backend::prover::{DeviceDataTransporter, ProverBackend};
        use openvm_stark_backend::StarkEngine;
        let vm_pk = self.sdk.app_pk().app_vm_pk.clone();
        let engine = MeterEngine::new(vm_pk.vm_pk.params.clone());
        let d_pk = engine.device().transport_pk_to_device(&*vm_pk.vm_pk);
        let vm = VirtualMachine::new(
            engine,
            openvm_sdk_config::SdkVmCpuBuilder,
            vm_pk.vm_config.clone(),
            d_pk,
        )
        .map_err(vm_err)?;
        let ctx = vm.build_metered_ctx(&self.exe);
        let interpreter = vm.metered_interpreter(&self.exe).map_err(vm_err)?;
        let (segments, final_state) = interpreter
            .execute_metered(Self::stdin_items(items), ctx)
            .map_err(vm_err)?;
        let public = extract_public_values(self.public_values, &final_state.memory.memory);

        let per_air = &vm_pk.vm_pk.per_air;
        let memory = vm.engine.proving_memory_config();
        let mut stats = Vec::with_capacity(segments.len());
        for segment in &segments {
            let (mut main, mut with_rot, mut no_rot, mut interactions, mut buffers) =
                (0u64, 0, 0, 0, 0);
            for (i, &h) in segment.trace_heights.iter().enumerate() {
                let (h, pk) = (h as usize, &per_air[i]);
                main += (h * pk.vk.params.width.main_width()) as u64;
                let cells = h * pk.vk.params.width.total_width();
                if pk.vk.params.need_rot {
                    with_rot += cells;
                } else {
                    no_rot += cells;
                }
                interactions += h * pk.vk.symbolic_constraints.interactions.len();
                buffers += h * <<MeterEngine as StarkEngine>::PB as ProverBackend>::constraint_eval_buffer_size(&vm.pk().per_air[i]);
            }
            let estimate = memory.estimate(
                openvm_stark_backend::memory_metering::ProvingMemoryCounts::new(
                    with_rot,
                    no_rot,
                    interactions,
                    buffers,
                ),
            );
            stats.push(SegmentStats {
                instructions: segment.num_insns,
                main_cells: main,
                memory_bytes: estimate.total as u64,
            });
        }
        let metering = Metering {
            instructions: stats.iter().map(|s| s.instructions).sum(),
            main_cells: stats.iter().map(|s| s.main_cells).sum(),
            memory_bytes: stats.iter().map(|s| s.memory_bytes).sum(),
            segments: stats,
        };
        Ok((public, metering))
    }
}

/// Wall time and the throughput it implies.
pub fn throughput(instructions: u64, elapsed: Duration) -> f64 {
    instructions as f64 / elapsed.as_secs_f64().max(1e-9)
}

/// Times `f`.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let value = f();
    (value, started.elapsed())
}

#[cfg(test)]
mod tests {
    use openvm_ecc_circuit::{
        P256_CONFIG, P256_MODULUS, P256_ORDER, SECP256K1_CONFIG, SECP256K1_MODULUS, SECP256K1_ORDER,
    };

    /// The moduli and curves the guests declare (crate `crypto`, as the literals its macros
    /// need) are the ones this config gives the VM, in the same order, and OpenVM's own.
    #[test]
    fn the_vm_config_registers_what_the_guest_declares() {
        let config = super::vm_config(crate::guest::PUBLIC_VALUES);
        let hex = |m: &str| m.trim_start_matches("0x").to_lowercase();
        let moduli: Vec<String> = config
            .modular
            .expect("modular extension")
            .supported_moduli
            .iter()
            .map(|m| m.to_str_radix(16))
            .collect();
        let declared = crypto::MODULI.map(hex);
        assert_eq!(moduli, declared);
        assert_eq!(SECP256K1_MODULUS.to_str_radix(16), declared[0]);
        assert_eq!(SECP256K1_ORDER.to_str_radix(16), declared[1]);
        assert_eq!(P256_MODULUS.to_str_radix(16), declared[3]);
        assert_eq!(P256_ORDER.to_str_radix(16), declared[4]);
        let curves = config.ecc.expect("Weierstrass extension").supported_curves;
        let names: Vec<&str> = curves.iter().map(|c| c.struct_name.as_str()).collect();
        assert_eq!(names, crypto::CURVES);
        assert_eq!(names[0], SECP256K1_CONFIG.struct_name);
        assert_eq!(names[2], P256_CONFIG.struct_name);
        // Each curve's coordinate field is a registered modulus.
        for curve in &curves {
            assert!(
                moduli.contains(&curve.modulus.to_str_radix(16)),
                "{}",
                curve.struct_name
            );
        }
        assert!(config.sha2.is_some());
        // `crypto::init!` registers the same moduli and curves, in this order.
        let source = include_str!("../../crypto/src/lib.rs").to_lowercase();
        let init = &source[source.find("macro_rules! init").expect("init! macro")..];
        let at = |m: &str| init.find(m).unwrap_or_else(|| panic!("{m} not in init!"));
        for pair in declared.windows(2) {
            assert!(
                at(&pair[0]) < at(&pair[1]),
                "{} before {}",
                pair[0],
                pair[1]
            );
        }
        let curve_list = crypto::CURVES
            .map(|c| format!("\"{}\"", c.to_lowercase()))
            .join(", ");
        assert!(
            init.contains(&format!("sw_init! {{ {curve_list} }}")),
            "{curve_list}"
        );
        // The Fp2 fields: same names, over the same moduli, as `complex_init!`'s list.
        let fp2 = config.fp2.expect("Fp2 extension").supported_moduli;
        for ((name, modulus), (declared_name, base)) in fp2.iter().zip(crypto::COMPLEX) {
            assert_eq!(name, declared_name);
            assert_eq!(modulus.to_str_radix(16), declared[base]);
            let item = format!("\"{}\" {{ mod_idx = {base} }}", name.to_lowercase());
            assert!(init.contains(&item), "{item}");
        }
        assert_eq!(fp2.len(), crypto::COMPLEX.len());
    }
}
