//! The hooks. With [`install`], every transaction sender and EIP-7702 authority alloy recovers
//! (alloy's crypto provider) goes through [`recover_address`] on the VM's chips, and so do the
//! precompiles [`OpenVmPrecompiles`] overrides (revm's precompile crypto).
//!
//! [`OpenVmPrecompiles`] overrides **every** method of revm's `Crypto` trait, the software ones
//! by delegating to revm's `DefaultCrypto`: the trait's default bodies are `#[inline]`, and a
//! second implementation that kept them would compile all of revm's software precompiles a
//! second time (which pushed the guest's program past 2^20 instructions, and its proof's
//! program trace past the stacked height, when only `ECRECOVER` was overridden).

use alloc::sync::Arc;
use alloc::vec::Vec;

use alloy_consensus::crypto::backend::{install_default_provider, CryptoProvider};
use alloy_consensus::crypto::RecoveryError as AlloyRecoveryError;
use alloy_primitives::{keccak256, Address};

use revm::precompile::bls12_381::{G1Point, G1PointScalar, G2Point, G2PointScalar};
use revm::precompile::{Crypto, DefaultCrypto, PrecompileHalt};

use crate::bn254::g2::G2Error;
use crate::bn254::pairing::PairingError;
use crate::secp256k1::{recover_address, verify};

/// secp256k1 on OpenVM's extensions, as alloy's crypto provider.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenVmSecp256k1;

impl CryptoProvider for OpenVmSecp256k1 {
    fn recover_signer_unchecked(
        &self,
        sig: &[u8; 65],
        msg: &[u8; 32],
    ) -> Result<Address, AlloyRecoveryError> {
        let rs: &[u8; 64] = sig[..64].try_into().expect("65 bytes");
        recover_address(rs, sig[64], msg).map_err(|_| AlloyRecoveryError::new())
    }

    fn verify_and_compute_signer_unchecked(
        &self,
        pubkey: &[u8; 65],
        sig: &[u8; 64],
        msg: &[u8; 32],
    ) -> Result<Address, AlloyRecoveryError> {
        let xy: &[u8; 64] = pubkey[1..].try_into().expect("65 bytes");
        if pubkey[0] != 0x04 || !verify(xy, sig, msg) {
            return Err(AlloyRecoveryError::new());
        }
        Ok(Address::from_slice(&keccak256(xy)[12..]))
    }
}

/// Makes [`OpenVmSecp256k1`] alloy's provider and [`OpenVmPrecompiles`] revm's; false when
/// either had one installed already.
pub fn install() -> bool {
    let alloy = install_default_provider(Arc::new(OpenVmSecp256k1)).is_ok();
    let revm = revm::precompile::install_crypto(OpenVmPrecompiles);
    alloy && revm
}

/// revm's precompile crypto on the chips: `ECRECOVER`, `SHA256`, BN254 `ECADD` / `ECMUL` /
/// `ECPAIRING`, `P256VERIFY`, the KZG point evaluation, every EIP-2537 BLS12-381 precompile
/// (additions, MSMs, pairing, map-to-curve), and `MODEXP` with a modulus of up to 32 bytes.
/// The rest (RIPEMD-160, longer moduli) are revm's software, called through `DefaultCrypto`,
/// BLAKE2's compression runs its rounds on this project's BLAKE2b chip in the guest, and in
/// software on 32-bit halves natively ([`crate::blake2`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenVmPrecompiles;

impl Crypto for OpenVmPrecompiles {
    fn sha256(&self, input: &[u8]) -> [u8; 32] {
        crate::sha256::sha256(input)
    }

    fn ripemd160(&self, input: &[u8]) -> [u8; 32] {
        DefaultCrypto.ripemd160(input)
    }

    fn bn254_g1_add(&self, p1: &[u8], p2: &[u8]) -> Result<[u8; 64], PrecompileHalt> {
        crate::bn254::g1_add(g1_bytes(p1), g1_bytes(p2)).map_err(bn254_halt)
    }

    fn bn254_g1_mul(&self, point: &[u8], scalar: &[u8]) -> Result<[u8; 64], PrecompileHalt> {
        let scalar: &[u8; 32] = scalar[..32]
            .try_into()
            .expect("revm passes 32 scalar bytes");
        crate::bn254::g1_mul(g1_bytes(point), scalar).map_err(bn254_halt)
    }

    fn bn254_pairing_check(&self, pairs: &[(&[u8], &[u8])]) -> Result<bool, PrecompileHalt> {
        let pairs: Vec<(&[u8; 64], &[u8; 128])> = pairs
            .iter()
            .map(|(g1, g2)| {
                let g2: &[u8; 128] = g2[..128].try_into().expect("revm passes 128 G2 bytes");
                (g1_bytes(g1), g2)
            })
            .collect();
        crate::bn254::pairing::pairing_check(&pairs).map_err(|e| match e {
            PairingError::G1(e) => bn254_halt(e),
            PairingError::G2(G2Error::NotAFieldElement) => {
                PrecompileHalt::Bn254FieldPointNotAMember
            }
            PairingError::G2(G2Error::NotInG2) => PrecompileHalt::Bn254AffineGFailedToCreate,
        })
    }

    fn secp256k1_ecrecover(
        &self,
        sig: &[u8; 64],
        recid: u8,
        msg: &[u8; 32],
    ) -> Result<[u8; 32], PrecompileHalt> {
        let address =
            recover_address(sig, recid, msg).map_err(|_| PrecompileHalt::Secp256k1RecoverFailed)?;
        Ok(address.into_word().0)
    }

    fn modexp(&self, base: &[u8], exp: &[u8], modulus: &[u8]) -> Result<Vec<u8>, PrecompileHalt> {
        match crate::modexp::modexp(base, exp, modulus) {
            Some(result) => Ok(result),
            None => DefaultCrypto.modexp(base, exp, modulus),
        }
    }

    fn blake2_compress(&self, rounds: u32, h: &mut [u64; 8], m: &[u64; 16], t: &[u64; 2], f: bool) {
        crate::blake2::compress(rounds, h, m, t, f)
    }

    fn secp256r1_verify_signature(&self, msg: &[u8; 32], sig: &[u8; 64], pk: &[u8; 64]) -> bool {
        crate::p256::verify(msg, sig, pk)
    }

    fn verify_kzg_proof(
        &self,
        z: &[u8; 32],
        y: &[u8; 32],
        commitment: &[u8; 48],
        proof: &[u8; 48],
    ) -> Result<(), PrecompileHalt> {
        if crate::bls12_381::kzg::verify_kzg_proof(z, y, commitment, proof) {
            Ok(())
        } else {
            Err(PrecompileHalt::BlobVerifyKzgProofFailed)
        }
    }

    fn bls12_381_g1_add(&self, a: G1Point, b: G1Point) -> Result<[u8; 96], PrecompileHalt> {
        crate::bls12_381::eip2537::g1_add(&a, &b)
    }

    fn bls12_381_g1_msm(
        &self,
        pairs: &mut dyn Iterator<Item = Result<G1PointScalar, PrecompileHalt>>,
    ) -> Result<[u8; 96], PrecompileHalt> {
        crate::bls12_381::eip2537::g1_msm(pairs)
    }

    fn bls12_381_g2_add(&self, a: G2Point, b: G2Point) -> Result<[u8; 192], PrecompileHalt> {
        crate::bls12_381::eip2537::g2_add(&a, &b)
    }

    fn bls12_381_g2_msm(
        &self,
        pairs: &mut dyn Iterator<Item = Result<G2PointScalar, PrecompileHalt>>,
    ) -> Result<[u8; 192], PrecompileHalt> {
        crate::bls12_381::eip2537::g2_msm(pairs)
    }

    fn bls12_381_pairing_check(
        &self,
        pairs: &[(G1Point, G2Point)],
    ) -> Result<bool, PrecompileHalt> {
        crate::bls12_381::eip2537::pairing_check(pairs)
    }

    fn bls12_381_fp_to_g1(&self, fp: &[u8; 48]) -> Result<[u8; 96], PrecompileHalt> {
        crate::bls12_381::map::fp_to_g1(fp)
    }

    fn bls12_381_fp2_to_g2(&self, fp2: ([u8; 48], [u8; 48])) -> Result<[u8; 192], PrecompileHalt> {
        crate::bls12_381::map::fp2_to_g2(&fp2)
    }
}

/// The first 64 bytes revm hands a BN254 G1 method (it pads inputs to full length).
fn g1_bytes(bytes: &[u8]) -> &[u8; 64] {
    bytes[..64].try_into().expect("revm passes 64 G1 bytes")
}

fn bn254_halt(e: crate::bn254::G1Error) -> PrecompileHalt {
    match e {
        crate::bn254::G1Error::NotAFieldElement => PrecompileHalt::Bn254FieldPointNotAMember,
        crate::bn254::G1Error::NotOnCurve => PrecompileHalt::Bn254AffineGFailedToCreate,
    }
}
