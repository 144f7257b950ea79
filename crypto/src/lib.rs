//! The guest's cryptography on OpenVM's extensions: secp256k1 recovery (transaction senders,
//! EIP-7702 authorities, `ECRECOVER`), SHA-256, BN254 G1 addition, multiplication and pairing
//! check, the KZG point evaluation, every EIP-2537 BLS12-381 precompile (additions, MSMs,
//! pairing, map-to-curve), `MODEXP` with a modulus of up to 32 bytes (the declared fields on the
//! modular chip, any other on the Int256 chip), and P-256 verification.
//!
//! In software on riscv32 one secp256k1 recovery costs ~11.6 M guest instructions (pure-Rust
//! k256); the extensions do the field and curve arithmetic, and SHA-256's compression, in
//! dedicated chips. OpenVM ships its k256 / p256 / sha2 / pairing drop-ins only in its git
//! repository, not on crates.io, and this project patches no crate by git; so the fields and
//! curves are declared here with the published 2.0.2 macros (`moduli_declare!`,
//! `sw_declare!`, `complex_declare!`), the pairings' `Fp12` tower, twist arithmetic and Miller
//! steps are written here ([`tower`], [`twist`], [`miller`]), and they are used through
//! `openvm-ecc-guest` and `openvm-sha2-guest`.
//!
//! Feature `census` adds [`census`] (calls per operation, for the precompile census build) and
//! `check` adds [`check`] (the differential records of the `crypto_check` probe); the verifier's
//! own build has neither.
//!
//! Hooks: [`install`] makes these alloy's signature-recovery provider and revm's precompile
//! crypto. A guest must also register the moduli, curves and quadratic extensions with the VM
//! ([`init!`]) and run under a VM config with the same ones in the same order ([`MODULI`],
//! [`CURVES`], [`COMPLEX`]; `host::vm::vm_config`), which also has the Int256 extension.
//!
//! Off the zkVM the same macros generate software arithmetic, so everything also runs, slowly,
//! on the host, where it is checked against revm's own implementations; key recovery computes
//! its square roots there as the standard guest does in the VM ([`secp256k1`]). `host --guest-crypto` installs
//! these hooks natively, and CI runs every corpus through the guest's own code that way.
#![no_std]
#![warn(missing_docs)]

extern crate alloc;

pub mod blake2;
pub mod bls12_381;
pub mod bn254;
#[cfg(feature = "census")]
pub mod census;
#[cfg(feature = "check")]
pub mod check;
pub mod ecc;
pub mod miller;
pub mod modexp;
pub mod p256;
pub mod provider;
pub mod secp256k1;
pub mod sha256;
pub mod tower;
pub mod twist;

pub use provider::{install, OpenVmPrecompiles, OpenVmSecp256k1};
pub use secp256k1::{recover_address, verify, RecoveryError};

/// The moduli the guest declares, in the order [`init!`] registers them and the VM config's
/// modular extension must list them.
pub const MODULI: [&str; 7] = [
    secp256k1::COORDINATE_MODULUS,
    secp256k1::SCALAR_MODULUS,
    bn254::COORDINATE_MODULUS,
    p256::COORDINATE_MODULUS,
    p256::SCALAR_MODULUS,
    bls12_381::COORDINATE_MODULUS,
    bn254::SCALAR_MODULUS,
];

/// The curves the guest declares, in the order [`init!`] registers them and the VM config's
/// Weierstrass extension must list them.
pub const CURVES: [&str; 4] = [
    "Secp256k1Point",
    "Bn254G1Affine",
    "P256Point",
    "Bls12381G1Affine",
];

/// The quadratic extension fields the guest declares, with the index in [`MODULI`] of their
/// base field, in the order [`init!`] registers them and the VM config's Fp2 extension must
/// list them.
pub const COMPLEX: [(&str, usize); 2] = [("Bn254Fp2", 2), ("Bls12381Fp2", 5)];

/// Registers [`MODULI`], [`CURVES`] and [`COMPLEX`] with the VM; invoke once in a guest binary's root.
/// (The registration macros take literals only, hence the repetition; a host test checks the
/// two lists agree.)
#[macro_export]
macro_rules! init {
    () => {
        $crate::__private::moduli_init! {
            "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F",
            "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141",
            "0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47",
            "0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF",
            "0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551",
            "0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB",
            "0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001"
        }
        $crate::__private::sw_init! { "Secp256k1Point", "Bn254G1Affine", "P256Point", "Bls12381G1Affine" }
        $crate::__private::complex_init! { "Bn254Fp2" { mod_idx = 2 }, "Bls12381Fp2" { mod_idx = 5 } }
    };
}

#[doc(hidden)]
pub mod __private {
    pub use openvm_algebra_guest::complex_macros::complex_init;
    pub use openvm_algebra_guest::moduli_macros::moduli_init;
    pub use openvm_ecc_guest::sw_macros::sw_init;
}

/// Big-endian hex to little-endian bytes, at compile time (the macros' field constants are
/// little-endian).
pub(crate) const fn le_bytes(hex: &[u8; 64]) -> [u8; 32] {
    le(hex)
}

/// Big-endian hex (2N digits) to N little-endian bytes, at compile time.
pub(crate) const fn le<const N: usize>(hex: &[u8]) -> [u8; N] {
    let be = be::<N>(hex);
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = be[N - 1 - i];
        i += 1;
    }
    out
}

/// Big-endian hex (2N digits) to N big-endian bytes, at compile time.
pub(crate) const fn be<const N: usize>(hex: &[u8]) -> [u8; N] {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("not hex"),
        }
    }
    assert!(hex.len() == 2 * N, "wrong length");
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]);
        i += 1;
    }
    out
}
