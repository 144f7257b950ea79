//! Precompile census: how often a run calls each precompile's cryptography (and sender
//! recovery), and, run again with one operation **done twice**, how many instructions it costs.
//!
//! The guest cannot read an instruction counter, so the cost is measured from outside: the
//! host runs the census build once as is and once per called operation with that operation
//! computed twice (the second result is discarded); the difference in the VM's exact
//! instruction count is what the operation's calls cost in total. It covers the cryptography
//! behind revm's `Crypto` trait and alloy's recovery hook, not revm's input parsing and gas
//! accounting around them.
//!
//! A process-wide counter without synchronisation: meant for the single-threaded guest.

use alloc::vec::Vec;

use alloy_consensus::crypto::backend::CryptoProvider;
use alloy_consensus::crypto::RecoveryError as AlloyRecoveryError;
use alloy_primitives::Address;
use revm::precompile::bls12_381::{G1Point, G1PointScalar, G2Point, G2PointScalar};
use revm::precompile::{Crypto, PrecompileHalt};

/// What the census counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Op {
    /// Transaction senders and EIP-7702 authorities (alloy's hook).
    SenderRecovery = 0,
    /// `ECRECOVER` (0x01).
    Ecrecover,
    /// `SHA256` (0x02).
    Sha256,
    /// `RIPEMD160` (0x03).
    Ripemd160,
    /// `MODEXP` (0x05).
    Modexp,
    /// BN254 `ECADD` (0x06).
    Bn254Add,
    /// BN254 `ECMUL` (0x07).
    Bn254Mul,
    /// BN254 `ECPAIRING` (0x08).
    Bn254Pairing,
    /// `BLAKE2F` (0x09).
    Blake2f,
    /// KZG `POINT_EVALUATION` (0x0a).
    KzgPointEvaluation,
    /// The BLS12-381 precompiles (0x0b–0x11).
    Bls12_381,
    /// `P256VERIFY` (0x100).
    P256Verify,
}

impl Op {
    /// All operations, in counter order.
    pub const ALL: [Op; 12] = [
        Op::SenderRecovery,
        Op::Ecrecover,
        Op::Sha256,
        Op::Ripemd160,
        Op::Modexp,
        Op::Bn254Add,
        Op::Bn254Mul,
        Op::Bn254Pairing,
        Op::Blake2f,
        Op::KzgPointEvaluation,
        Op::Bls12_381,
        Op::P256Verify,
    ];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        [
            "sender recovery",
            "ECRECOVER",
            "SHA256",
            "RIPEMD160",
            "MODEXP",
            "BN254 ECADD",
            "BN254 ECMUL",
            "BN254 ECPAIRING",
            "BLAKE2F",
            "KZG point evaluation",
            "BLS12-381",
            "P256VERIFY",
        ][self as usize]
    }
}

/// Number of counters.
pub const OPS: usize = Op::ALL.len();

static mut CALLS: [u32; OPS] = [0; OPS];
static mut TWICE: Option<Op> = None;

/// Makes every later call of `op` compute twice (`None`: none).
pub fn set_twice(op: Option<Op>) {
    // SAFETY: single-threaded guest; no reference to TWICE outlives this write.
    unsafe { *core::ptr::addr_of_mut!(TWICE) = op };
}

/// Calls so far, per [`Op::ALL`].
pub fn calls() -> [u32; OPS] {
    // SAFETY: single-threaded guest; a copy is read.
    unsafe { *core::ptr::addr_of!(CALLS) }
}

/// Counts a call of `op` and runs `f` once, or twice (returning the first result) when `op`
/// is the one being measured.
#[inline(never)]
fn call<T>(op: Op, mut f: impl FnMut() -> T) -> T {
    // SAFETY: single-threaded guest; no reference to CALLS / TWICE outlives these accesses.
    let twice = unsafe {
        let calls = &mut *core::ptr::addr_of_mut!(CALLS);
        calls[op as usize] = calls[op as usize].saturating_add(1);
        *core::ptr::addr_of!(TWICE) == Some(op)
    };
    let out = f();
    if twice {
        core::hint::black_box(f());
    }
    out
}

/// revm's precompile crypto `C`, counted.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counted<C>(pub C);

impl<C: Crypto> Crypto for Counted<C> {
    fn sha256(&self, input: &[u8]) -> [u8; 32] {
        call(Op::Sha256, || self.0.sha256(input))
    }

    fn ripemd160(&self, input: &[u8]) -> [u8; 32] {
        call(Op::Ripemd160, || self.0.ripemd160(input))
    }

    fn bn254_g1_add(&self, p1: &[u8], p2: &[u8]) -> Result<[u8; 64], PrecompileHalt> {
        call(Op::Bn254Add, || self.0.bn254_g1_add(p1, p2))
    }

    fn bn254_g1_mul(&self, point: &[u8], scalar: &[u8]) -> Result<[u8; 64], PrecompileHalt> {
        call(Op::Bn254Mul, || self.0.bn254_g1_mul(point, scalar))
    }

    fn bn254_pairing_check(&self, pairs: &[(&[u8], &[u8])]) -> Result<bool, PrecompileHalt> {
        call(Op::Bn254Pairing, || self.0.bn254_pairing_check(pairs))
    }

    fn secp256k1_ecrecover(
        &self,
        sig: &[u8; 64],
        recid: u8,
        msg: &[u8; 32],
    ) -> Result<[u8; 32], PrecompileHalt> {
        call(Op::Ecrecover, || {
            self.0.secp256k1_ecrecover(sig, recid, msg)
        })
    }

    fn modexp(&self, base: &[u8], exp: &[u8], modulus: &[u8]) -> Result<Vec<u8>, PrecompileHalt> {
        call(Op::Modexp, || self.0.modexp(base, exp, modulus))
    }

    fn blake2_compress(&self, rounds: u32, h: &mut [u64; 8], m: &[u64; 16], t: &[u64; 2], f: bool) {
        let start = *h;
        *h = call(Op::Blake2f, || {
            let mut out = start;
            self.0.blake2_compress(rounds, &mut out, m, t, f);
            out
        });
    }

    fn secp256r1_verify_signature(&self, msg: &[u8; 32], sig: &[u8; 64], pk: &[u8; 64]) -> bool {
        call(Op::P256Verify, || {
            self.0.secp256r1_verify_signature(msg, sig, pk)
        })
    }

    fn verify_kzg_proof(
        &self,
        z: &[u8; 32],
        y: &[u8; 32],
        commitment: &[u8; 48],
        proof: &[u8; 48],
    ) -> Result<(), PrecompileHalt> {
        call(Op::KzgPointEvaluation, || {
            self.0.verify_kzg_proof(z, y, commitment, proof)
        })
    }

    fn bls12_381_g1_add(&self, a: G1Point, b: G1Point) -> Result<[u8; 96], PrecompileHalt> {
        call(Op::Bls12_381, || self.0.bls12_381_g1_add(a, b))
    }

    fn bls12_381_g1_msm(
        &self,
        pairs: &mut dyn Iterator<Item = Result<G1PointScalar, PrecompileHalt>>,
    ) -> Result<[u8; 96], PrecompileHalt> {
        let pairs: Vec<_> = pairs.collect();
        call(Op::Bls12_381, || {
            self.0.bls12_381_g1_msm(&mut pairs.iter().cloned())
        })
    }

    fn bls12_381_g2_add(&self, a: G2Point, b: G2Point) -> Result<[u8; 192], PrecompileHalt> {
        call(Op::Bls12_381, || self.0.bls12_381_g2_add(a, b))
    }

    fn bls12_381_g2_msm(
        &self,
        pairs: &mut dyn Iterator<Item = Result<G2PointScalar, PrecompileHalt>>,
    ) -> Result<[u8; 192], PrecompileHalt> {
        let pairs: Vec<_> = pairs.collect();
        call(Op::Bls12_381, || {
            self.0.bls12_381_g2_msm(&mut pairs.iter().cloned())
        })
    }

    fn bls12_381_pairing_check(
        &self,
        pairs: &[(G1Point, G2Point)],
    ) -> Result<bool, PrecompileHalt> {
        call(Op::Bls12_381, || self.0.bls12_381_pairing_check(pairs))
    }

    fn bls12_381_fp_to_g1(&self, fp: &[u8; 48]) -> Result<[u8; 96], PrecompileHalt> {
        call(Op::Bls12_381, || self.0.bls12_381_fp_to_g1(fp))
    }

    fn bls12_381_fp2_to_g2(&self, fp2: ([u8; 48], [u8; 48])) -> Result<[u8; 192], PrecompileHalt> {
        call(Op::Bls12_381, || self.0.bls12_381_fp2_to_g2(fp2))
    }
}

/// alloy's recovery provider `P`, counted.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountedRecovery<P>(pub P);

impl<P: CryptoProvider> CryptoProvider for CountedRecovery<P> {
    fn recover_signer_unchecked(
        &self,
        sig: &[u8; 65],
        msg: &[u8; 32],
    ) -> Result<Address, AlloyRecoveryError> {
        call(Op::SenderRecovery, || {
            self.0.recover_signer_unchecked(sig, msg)
        })
    }

    fn verify_and_compute_signer_unchecked(
        &self,
        pubkey: &[u8; 65],
        sig: &[u8; 64],
        msg: &[u8; 32],
    ) -> Result<Address, AlloyRecoveryError> {
        call(Op::SenderRecovery, || {
            self.0.verify_and_compute_signer_unchecked(pubkey, sig, msg)
        })
    }
}

/// secp256k1 recovery in software (k256), for the census of a software-crypto build.
#[derive(Debug, Clone, Copy, Default)]
pub struct SoftwareRecovery;

impl CryptoProvider for SoftwareRecovery {
    fn recover_signer_unchecked(
        &self,
        sig: &[u8; 65],
        msg: &[u8; 32],
    ) -> Result<Address, AlloyRecoveryError> {
        alloy_primitives::Signature::from_bytes_and_parity(&sig[..64], sig[64] != 0)
            .recover_address_from_prehash(&(*msg).into())
            .map_err(|_| AlloyRecoveryError::new())
    }

    fn verify_and_compute_signer_unchecked(
        &self,
        pubkey: &[u8; 65],
        sig: &[u8; 64],
        msg: &[u8; 32],
    ) -> Result<Address, AlloyRecoveryError> {
        use k256::ecdsa::signature::hazmat::PrehashVerifier;
        let key = k256::ecdsa::VerifyingKey::from_sec1_bytes(pubkey)
            .map_err(|_| AlloyRecoveryError::new())?;
        let signature =
            k256::ecdsa::Signature::from_slice(sig).map_err(|_| AlloyRecoveryError::new())?;
        key.verify_prehash(msg, &signature)
            .map_err(|_| AlloyRecoveryError::new())?;
        Ok(Address::from_public_key(&key))
    }
}

/// Installs the counted providers: over the chips (`accelerated`) or over revm's and k256's
/// software. False when a provider was installed already.
pub fn install(accelerated: bool) -> bool {
    use alloc::sync::Arc;
    use alloy_consensus::crypto::backend::install_default_provider;
    use revm::precompile::install_crypto;
    if accelerated {
        install_default_provider(Arc::new(CountedRecovery(crate::OpenVmSecp256k1))).is_ok()
            && install_crypto(Counted(crate::OpenVmPrecompiles))
    } else {
        install_default_provider(Arc::new(CountedRecovery(SoftwareRecovery))).is_ok()
            && install_crypto(Counted(revm::precompile::DefaultCrypto))
    }
}
