//! The VM configuration every guest runs under, and the SDK built on it.
//!
//! rv32im, io, keccak, SHA-2, Int256, modular arithmetic, Fp2 and short Weierstrass, over the
//! moduli and curves the `crypto` crate declares, in the order its `init!` registers them (the
//! test below checks the two agree).

use openvm_sdk::config::{AggregationSystemParams, AppConfig};
use openvm_sdk::openvm_circuit::arch::SystemConfig;
use openvm_sdk::{DefaultStarkEngine, GenericSdk};
use openvm_sdk_config::{SdkSystemConfig, SdkVmConfig};

pub use super::app::{AppVmConfig, AppVmCpuBuilder};

/// The SDK over [`AppVmConfig`]: OpenVM's `Sdk` with the BLAKE2b extension.
#[cfg(not(feature = "cuda"))]
pub type Sdk = GenericSdk<DefaultStarkEngine, AppVmCpuBuilder>;
#[cfg(feature = "cuda")]
pub type Sdk = GenericSdk<DefaultStarkEngine, super::app::AppVmGpuBuilder>;
use openvm_stark_sdk::config::app_params_with_100_bits_security;

use super::{vm_err, VmError};

/// The VM configuration: rv32im, io, keccak, BLAKE2b (crate `blake2-circuit`), and room for `public_values` public values.
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
/// [`crypto::COMPLEX`] (BN254's and BLS12-381's `Fp2`), in the order the guests' `crypto::init!`
/// registers them. Every guest runs under this one config; a software-crypto guest leaves those
/// chips empty.
pub fn vm_config(public_values: usize) -> AppVmConfig {
    use openvm_algebra_circuit::{Fp2Extension, ModularExtension};
    use openvm_ecc_circuit::{CurveConfig, WeierstrassExtension, P256_CONFIG, SECP256K1_CONFIG};
    let modulus = |hex: &str| {
        num_bigint::BigUint::parse_bytes(hex.trim_start_matches("0x").as_bytes(), 16)
            .expect("crypto::MODULI are hex")
    };
    // y² = x³ + b over the coordinate field, of the given scalar field.
    let short_weierstrass = |curve: usize, coordinate: &str, scalar: &str, b: u8| CurveConfig {
        struct_name: crypto::CURVES[curve].to_string(),
        modulus: modulus(coordinate),
        scalar: modulus(scalar),
        a: 0u8.into(),
        b: b.into(),
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
    config.ecc = Some(WeierstrassExtension::new(vec![
        SECP256K1_CONFIG.clone(),
        short_weierstrass(
            1,
            crypto::bn254::COORDINATE_MODULUS,
            crypto::bn254::SCALAR_MODULUS,
            3,
        ),
        P256_CONFIG.clone(),
        short_weierstrass(
            3,
            crypto::bls12_381::COORDINATE_MODULUS,
            crypto::bls12_381::ORDER,
            4,
        ),
    ]));
    config.system = SdkSystemConfig {
        config: SystemConfig::default().with_public_values(public_values.next_power_of_two()),
    };
    AppVmConfig {
        sdk: config,
        blake2: blake2_circuit::Blake2b,
    }
}

/// OpenVM's default cap on a segment's proving-memory estimate (15 GiB), where segmentation
/// cuts unless the trace height cuts first.
pub fn default_segment_memory() -> usize {
    SystemConfig::default().segmentation_max_memory
}

/// Where a run's segments end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// log2 of a segment's maximum trace height.
    pub log_stacked_height: usize,
    /// The cap on a segment's proving-memory estimate, bytes.
    pub segment_memory: usize,
}

impl Limits {
    /// Segments of at most 2^`log_stacked_height` rows and OpenVM's default memory cap.
    pub fn height(log_stacked_height: usize) -> Self {
        Self {
            log_stacked_height,
            segment_memory: default_segment_memory(),
        }
    }

    /// What metering uses unless told otherwise: OpenVM's largest app height (2^24 rows) and
    /// its default memory cap (15 GiB), so the memory estimate ends each segment, as it does
    /// for a prover with OpenVM's defaults.
    pub fn metering() -> Self {
        Self::height(openvm_stark_sdk::config::MAX_APP_LOG_STACKED_HEIGHT)
    }

    /// These limits with the memory cap at `mib` MiB when given (the commands'
    /// `--segment-memory-mib`).
    pub fn with_segment_memory_mib(mut self, mib: Option<usize>) -> Self {
        if let Some(mib) = mib {
            self.segment_memory = mib << 20;
        }
        self
    }
}

/// The SDK for this project's VM config with `public_values` public values and segments of
/// at most 2^`log_stacked_height` rows that also stop at a proving-memory estimate of
/// `segment_memory` bytes (segmentation only: the keys and proofs do not depend on it).
pub(crate) fn sdk_segmented(
    public_values: usize,
    log_stacked_height: usize,
    segment_memory: usize,
) -> Result<Sdk, VmError> {
    let params = app_params_with_100_bits_security(log_stacked_height);
    let mut config = vm_config(public_values);
    config.sdk.system.config.segmentation_max_memory = segment_memory;
    Sdk::new(
        AppConfig::new(config, params),
        AggregationSystemParams::default(),
    )
    .map_err(vm_err)
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
        let config = super::vm_config(crate::guest::PUBLIC_VALUES).sdk;
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
        let source = include_str!("../../../crypto/src/lib.rs").to_lowercase();
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
