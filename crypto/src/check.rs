//! The differential harness's shared half: one precompile call, by tag and raw input, on any
//! `Crypto`, with its outcome as bytes. The host computes revm's software answer
//! (`DefaultCrypto`) and the guest `crypto_check` asserts [`crate::OpenVmPrecompiles`] gives
//! the same one on the chips; the host's tests also compare the two natively.

use alloc::format;
use alloc::vec::Vec;

use revm::precompile::bls12_381::{G1Point, G2Point};
use revm::precompile::{Crypto, PrecompileHalt};

/// Which `Crypto` method a case calls, and its input's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Tag {
    /// `sha256(input)`: any length.
    Sha256 = 0,
    /// `bn254_g1_add(a, b)`: a (64) ‖ b (64).
    Bn254Add = 1,
    /// `bn254_g1_mul(point, scalar)`: point (64) ‖ scalar (32).
    Bn254Mul = 2,
    /// `secp256r1_verify_signature(msg, sig, pk)`: msg (32) ‖ r ‖ s (64) ‖ x ‖ y (64).
    P256Verify = 3,
    /// `secp256k1_ecrecover(sig, recid, msg)`: r ‖ s (64) ‖ recid (1) ‖ msg (32).
    Ecrecover = 4,
    /// secp256k1 ECDSA verification behind alloy's `verify_and_compute_signer_unchecked`:
    /// msg (32) ‖ r ‖ s (64) ‖ x ‖ y (64). Not a `Crypto` method: always
    /// [`crate::secp256k1::verify`], whatever `crypto` is given; its reference is k256's
    /// answer, which the host computes.
    Secp256k1Verify = 5,
    /// `bn254_pairing_check(pairs)`: k pairs of G1 (64) ‖ G2 (128), k ≥ 0.
    Bn254Pairing = 6,
    /// `verify_kzg_proof(z, y, commitment, proof)`: z (32) ‖ y (32) ‖ commitment (48) ‖
    /// proof (48).
    KzgPointEvaluation = 7,
    /// `modexp(base, exp, modulus)`: base length (u16 BE) ‖ exponent length (u16 BE) ‖ base ‖
    /// exponent ‖ modulus; the output left-padded to the modulus' length, as the precompile
    /// pads it.
    Modexp = 8,
    /// `bls12_381_g1_add(a, b)`: a.x ‖ a.y ‖ b.x ‖ b.y, 48 bytes each.
    Bls12G1Add = 9,
    /// `bls12_381_g1_msm(pairs)`: k × (x ‖ y ‖ scalar (32)).
    Bls12G1Msm = 10,
    /// `bls12_381_g2_add(a, b)`: a.x0 ‖ a.x1 ‖ a.y0 ‖ a.y1 ‖ b.x0 ‖ ... , 48 bytes each.
    Bls12G2Add = 11,
    /// `bls12_381_g2_msm(pairs)`: k × (x0 ‖ x1 ‖ y0 ‖ y1 ‖ scalar (32)).
    Bls12G2Msm = 12,
    /// `bls12_381_pairing_check(pairs)`: k × (G1 (96) ‖ G2 (192)).
    Bls12Pairing = 13,
    /// `bls12_381_fp_to_g1(fp)`: 48 bytes.
    Bls12MapFpToG1 = 14,
    /// `bls12_381_fp2_to_g2(c0, c1)`: 96 bytes.
    Bls12MapFp2ToG2 = 15,
    /// `blake2_compress(rounds, h, m, t, f)`: EIP-152's input, rounds (u32 BE) ‖ h (8 × u64
    /// LE) ‖ m (16 × u64 LE) ‖ t (2 × u64 LE) ‖ f (1; any non-zero byte is `true` here, where
    /// the precompile refuses all but 0 and 1 before calling); the output is h, 8 × u64 LE.
    Blake2f = 16,
}

impl Tag {
    /// All tags.
    pub const ALL: [Tag; 17] = [
        Tag::Sha256,
        Tag::Bn254Add,
        Tag::Bn254Mul,
        Tag::P256Verify,
        Tag::Ecrecover,
        Tag::Secp256k1Verify,
        Tag::Bn254Pairing,
        Tag::KzgPointEvaluation,
        Tag::Modexp,
        Tag::Bls12G1Add,
        Tag::Bls12G1Msm,
        Tag::Bls12G2Add,
        Tag::Bls12G2Msm,
        Tag::Bls12Pairing,
        Tag::Bls12MapFpToG1,
        Tag::Bls12MapFp2ToG2,
        Tag::Blake2f,
    ];

    /// The tag with this byte.
    pub fn from_byte(byte: u8) -> Option<Tag> {
        Self::ALL.get(byte as usize).copied()
    }

    /// The input length it takes, if fixed.
    pub fn input_len(self) -> Option<usize> {
        match self {
            Tag::Sha256 | Tag::Bn254Pairing | Tag::Modexp => None,
            Tag::Bls12G1Add => Some(192),
            Tag::Bls12G2Add => Some(384),
            Tag::Bls12G1Msm | Tag::Bls12G2Msm | Tag::Bls12Pairing => None,
            Tag::Bn254Add => Some(128),
            Tag::Bn254Mul => Some(96),
            Tag::P256Verify | Tag::Secp256k1Verify | Tag::KzgPointEvaluation => Some(160),
            Tag::Ecrecover => Some(97),
            Tag::Bls12MapFpToG1 => Some(48),
            Tag::Bls12MapFp2ToG2 => Some(96),
            Tag::Blake2f => Some(213),
        }
    }
}

/// One `ECPAIRING` pair: G1 (64) ‖ G2 (128).
const PAIR_LEN: usize = 192;

/// A BLS12-381 G1 point from 96 bytes.
fn g1(bytes: &[u8]) -> G1Point {
    let fp = |i: usize| -> [u8; 48] { bytes[48 * i..48 * (i + 1)].try_into().expect("48 bytes") };
    (fp(0), fp(1))
}

/// A BLS12-381 G2 point from 192 bytes.
fn g2(bytes: &[u8]) -> G2Point {
    let fp = |i: usize| -> [u8; 48] { bytes[48 * i..48 * (i + 1)].try_into().expect("48 bytes") };
    (fp(0), fp(1), fp(2), fp(3))
}

/// A `MODEXP` case's base, exponent and modulus, if its lengths are consistent.
fn modexp_parts(input: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let base_len = u16::from_be_bytes(input.get(..2)?.try_into().ok()?) as usize;
    let exp_len = u16::from_be_bytes(input.get(2..4)?.try_into().ok()?) as usize;
    let rest = input.get(4..)?;
    let base = rest.get(..base_len)?;
    let exp = rest.get(base_len..base_len + exp_len)?;
    Some((base, exp, &rest[base_len + exp_len..]))
}

/// A case's input did not have its tag's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadLength {
    /// The tag.
    pub tag: Tag,
    /// The length given.
    pub len: usize,
}

/// The outcome of `tag` on `input` under `crypto`: `1 ‖ output` on success, `0 ‖ the halt's
/// name` on failure (a verification's false is `1 ‖ 0`).
pub fn outcome(crypto: &dyn Crypto, tag: Tag, input: &[u8]) -> Result<Vec<u8>, BadLength> {
    let pairing_len = match tag {
        Tag::Bn254Pairing => !input.len().is_multiple_of(PAIR_LEN),
        Tag::Bls12G1Msm => !input.len().is_multiple_of(128),
        Tag::Bls12G2Msm => !input.len().is_multiple_of(224),
        Tag::Bls12Pairing => !input.len().is_multiple_of(288),
        _ => false,
    };
    let modexp_parts = (tag == Tag::Modexp).then(|| modexp_parts(input));
    if pairing_len
        || modexp_parts == Some(None)
        || tag.input_len().is_some_and(|n| n != input.len())
    {
        return Err(BadLength {
            tag,
            len: input.len(),
        });
    }
    let fixed = |range: core::ops::Range<usize>| &input[range];
    let result: Result<Vec<u8>, PrecompileHalt> = match tag {
        Tag::Sha256 => Ok(crypto.sha256(input).to_vec()),
        Tag::Bn254Add => crypto
            .bn254_g1_add(fixed(0..64), fixed(64..128))
            .map(|p| p.to_vec()),
        Tag::Bn254Mul => crypto
            .bn254_g1_mul(fixed(0..64), fixed(64..96))
            .map(|p| p.to_vec()),
        Tag::P256Verify => Ok(alloc::vec![u8::from(crypto.secp256r1_verify_signature(
            fixed(0..32).try_into().expect("32 bytes"),
            fixed(32..96).try_into().expect("64 bytes"),
            fixed(96..160).try_into().expect("64 bytes"),
        ))]),
        Tag::Ecrecover => crypto
            .secp256k1_ecrecover(
                fixed(0..64).try_into().expect("64 bytes"),
                input[64],
                fixed(65..97).try_into().expect("32 bytes"),
            )
            .map(|w| w.to_vec()),
        Tag::Secp256k1Verify => Ok(alloc::vec![u8::from(crate::secp256k1::verify(
            fixed(96..160).try_into().expect("64 bytes"),
            fixed(32..96).try_into().expect("64 bytes"),
            fixed(0..32).try_into().expect("32 bytes"),
        ))]),
        Tag::Bn254Pairing => {
            let pairs: Vec<(&[u8], &[u8])> = input
                .chunks_exact(PAIR_LEN)
                .map(|pair| pair.split_at(64))
                .collect();
            crypto
                .bn254_pairing_check(&pairs)
                .map(|ok| alloc::vec![u8::from(ok)])
        }
        Tag::KzgPointEvaluation => crypto
            .verify_kzg_proof(
                fixed(0..32).try_into().expect("32 bytes"),
                fixed(32..64).try_into().expect("32 bytes"),
                fixed(64..112).try_into().expect("48 bytes"),
                fixed(112..160).try_into().expect("48 bytes"),
            )
            .map(|()| Vec::new()),
        Tag::Bls12G1Add => crypto
            .bls12_381_g1_add(g1(&input[..96]), g1(&input[96..]))
            .map(|p| p.to_vec()),
        Tag::Bls12G2Add => crypto
            .bls12_381_g2_add(g2(&input[..192]), g2(&input[192..]))
            .map(|p| p.to_vec()),
        Tag::Bls12G1Msm => {
            let mut pairs = input
                .chunks_exact(128)
                .map(|c| Ok((g1(&c[..96]), c[96..].try_into().expect("32 bytes"))));
            crypto.bls12_381_g1_msm(&mut pairs).map(|p| p.to_vec())
        }
        Tag::Bls12G2Msm => {
            let mut pairs = input
                .chunks_exact(224)
                .map(|c| Ok((g2(&c[..192]), c[192..].try_into().expect("32 bytes"))));
            crypto.bls12_381_g2_msm(&mut pairs).map(|p| p.to_vec())
        }
        Tag::Bls12Pairing => {
            let pairs: Vec<_> = input
                .chunks_exact(288)
                .map(|c| (g1(&c[..96]), g2(&c[96..])))
                .collect();
            crypto
                .bls12_381_pairing_check(&pairs)
                .map(|ok| alloc::vec![u8::from(ok)])
        }
        Tag::Bls12MapFpToG1 => crypto
            .bls12_381_fp_to_g1(input.try_into().expect("48 bytes"))
            .map(|p| p.to_vec()),
        Tag::Bls12MapFp2ToG2 => {
            let c = |i: usize| -> [u8; 48] { input[48 * i..48 * (i + 1)].try_into().expect("48") };
            crypto.bls12_381_fp2_to_g2((c(0), c(1))).map(|p| p.to_vec())
        }
        Tag::Blake2f => {
            let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
            let rounds = u32::from_be_bytes(input[..4].try_into().expect("4 bytes"));
            let mut h = [0u64; 8];
            for (w, bytes) in h.iter_mut().zip(input[4..68].chunks_exact(8)) {
                *w = word(bytes);
            }
            let mut m = [0u64; 16];
            for (w, bytes) in m.iter_mut().zip(input[68..196].chunks_exact(8)) {
                *w = word(bytes);
            }
            let t = [word(&input[196..204]), word(&input[204..212])];
            crypto.blake2_compress(rounds, &mut h, &m, &t, input[212] != 0);
            Ok(h.iter().flat_map(|w| w.to_le_bytes()).collect())
        }
        Tag::Modexp => {
            let (base, exp, modulus) = modexp_parts.flatten().expect("checked above");
            crypto.modexp(base, exp, modulus).map(|out| {
                let mut padded = alloc::vec![0u8; modulus.len().saturating_sub(out.len())];
                padded.extend_from_slice(&out);
                padded
            })
        }
    };
    Ok(match result {
        Ok(bytes) => [&[1u8][..], &bytes].concat(),
        Err(halt) => [&[0u8][..], format!("{halt:?}").as_bytes()].concat(),
    })
}

/// Appends one record, `tag (1) ‖ input length (u32 LE) ‖ input ‖ outcome length (u32 LE) ‖
/// outcome`, to `out`.
pub fn write_record(out: &mut Vec<u8>, tag: Tag, input: &[u8], outcome: &[u8]) {
    out.push(tag as u8);
    for part in [input, outcome] {
        out.extend_from_slice(&(part.len() as u32).to_le_bytes());
        out.extend_from_slice(part);
    }
}

/// One record: the tag, the input, the expected outcome.
pub type Record<'a> = (Tag, &'a [u8], &'a [u8]);

/// The records in `bytes`; `None` where they are malformed.
pub fn read_records(mut bytes: &[u8]) -> Option<Vec<Record<'_>>> {
    let mut records = Vec::new();
    while let Some((&tag, rest)) = bytes.split_first() {
        let tag = Tag::from_byte(tag)?;
        let (input, rest) = length_prefixed(rest)?;
        let (outcome, rest) = length_prefixed(rest)?;
        records.push((tag, input, outcome));
        bytes = rest;
    }
    Some(records)
}

/// A u32-LE-length-prefixed part of `bytes`, and what follows it.
fn length_prefixed(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let body = bytes.get(4..4usize.checked_add(len)?)?;
    Some((body, &bytes[4 + len..]))
}
