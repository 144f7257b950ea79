//! KZG point-evaluation cases and BLS12-381 values, built with arkworks (independent of the
//! guest's code): the c-kzg "correct proof" vector revm tests with, constant polynomials
//! (commitment c·G1, proof at infinity: valid for every z), and every way revm's check
//! refuses an input (wrong value or point, z or y not below r, bad flags, x ≥ p, x off the
//! curve, a curve point outside G1).

use alloy_primitives::hex;
use ark_bls12_381::{Bls12_381, Fq, Fr, G1Affine, G2Affine};
use ark_ec::{pairing::Pairing, AffineRepr, CurveGroup};
use ark_ff::{BigInteger, PrimeField};
use ark_serialize::CanonicalSerialize;
use rand::{rngs::SmallRng, Rng};

const R: [u8; 32] = hex!("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
const P: [u8; 48] = hex!("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");

/// c-kzg's `verify_kzg_proof_case_correct_proof_4_4`: z, y, commitment, proof.
const VECTOR: ([u8; 32], [u8; 32], [u8; 48], [u8; 48]) = (
    hex!("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000"),
    hex!("1522a4a7f34e1ea350ae07c29c96c7e79655aa926122e95fe69fcbd932ca49e9"),
    hex!("8f59a8d2a1a625a17f3fea0fe5eb8c896db3764f3185481bc22f91b4aaffcca25f26936857bc3a7c2539ea8ec3a952b7"),
    hex!("a62ad71d14c5719385c0686f1871430475bf3a00f0aa3f7b8dd99a9abc2160744faf0070725e00b60ad9a026a15b1a8c"),
);

fn fr(rng: &mut SmallRng) -> Fr {
    Fr::from_le_bytes_mod_order(&rng.random::<[u8; 32]>())
}

fn be32(x: Fr) -> [u8; 32] {
    x.into_bigint().to_bytes_be().try_into().unwrap()
}

/// The ZCash compressed encoding (arkworks').
pub fn compressed(p: G1Affine) -> [u8; 48] {
    let mut out = Vec::new();
    p.serialize_compressed(&mut out).unwrap();
    out.try_into().unwrap()
}

fn input(z: &[u8], y: &[u8], c: &[u8], proof: &[u8]) -> Vec<u8> {
    [z, y, c, proof].concat()
}

/// A point on the curve outside G1 (the cofactor is ~2^125, so almost every point).
fn curve_point_outside_g1(rng: &mut SmallRng) -> G1Affine {
    loop {
        let x = Fq::from_le_bytes_mod_order(&rng.random::<[u8; 48]>());
        if let Some(p) = G1Affine::get_point_from_x_unchecked(x, rng.random()) {
            if !p.is_in_correct_subgroup_assuming_on_curve() {
                return p;
            }
        }
    }
}

/// An x with x³ + 4 not a square, compressed with the flag.
fn off_curve(rng: &mut SmallRng) -> [u8; 48] {
    loop {
        let x = Fq::from_le_bytes_mod_order(&rng.random::<[u8; 48]>());
        if G1Affine::get_point_from_x_unchecked(x, false).is_none() {
            let mut out: [u8; 48] = x.into_bigint().to_bytes_be().try_into().unwrap();
            out[0] |= 0x80;
            return out;
        }
    }
}

/// The inputs, each z ‖ y ‖ commitment ‖ proof.
pub fn cases(rng: &mut SmallRng) -> Vec<Vec<u8>> {
    let (z, y, c, proof) = VECTOR;
    let mut cases = vec![input(&z, &y, &c, &proof)];
    // The vector with one thing wrong.
    let mut y1 = y;
    y1[31] ^= 1;
    cases.push(input(&z, &y1, &c, &proof));
    let mut z1 = z;
    z1[31] ^= 2;
    cases.push(input(&z1, &y, &c, &proof));
    cases.push(input(&z, &y, &proof, &c));
    cases.push(input(&R, &y, &c, &proof));
    cases.push(input(&z, &R, &c, &proof));
    let mut unflagged = c;
    unflagged[0] &= 0x7f;
    cases.push(input(&z, &y, &unflagged, &proof));
    let mut sorted_infinity = [0u8; 48];
    sorted_infinity[0] = 0xe0;
    cases.push(input(&z, &y, &c, &sorted_infinity));
    let mut dirty_infinity = [0u8; 48];
    dirty_infinity[0] = 0xc0;
    dirty_infinity[47] = 1;
    cases.push(input(&z, &y, &c, &dirty_infinity));
    let mut x_is_p = P;
    x_is_p[0] |= 0x80;
    cases.push(input(&z, &y, &x_is_p, &proof));
    cases.push(input(&z, &y, &off_curve(rng), &proof));
    let outside = compressed(curve_point_outside_g1(rng));
    cases.push(input(&z, &y, &outside, &proof));
    cases.push(input(&z, &y, &c, &outside));
    // Constant polynomials: C = k·G1, value k everywhere, proof at infinity.
    let mut infinity = [0u8; 48];
    infinity[0] = 0xc0;
    for _ in 0..3 {
        let k = fr(rng);
        let c = compressed((G1Affine::generator() * k).into_affine());
        let z = be32(fr(rng));
        cases.push(input(&z, &be32(k), &c, &infinity));
        cases.push(input(&z, &be32(k + Fr::from(1u8)), &c, &infinity));
        let random_proof = compressed((G1Affine::generator() * fr(rng)).into_affine());
        cases.push(input(&z, &be32(k), &c, &random_proof));
    }
    // The zero polynomial: commitment and proof at infinity.
    cases.push(input(&be32(fr(rng)), &[0; 32], &infinity, &infinity));
    cases
}

/// Random (P compressed, Q as x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1) with arkworks' `e(P, Q)` as 12
/// little-endian `Fq` coefficients.
pub fn pairing_values(rng: &mut SmallRng, n: usize) -> Vec<([u8; 48], Vec<u8>, Vec<u8>)> {
    (0..n)
        .map(|_| {
            let p = (G1Affine::generator() * fr(rng)).into_affine();
            let q = (G2Affine::generator() * fr(rng)).into_affine();
            let mut value = Vec::new();
            Bls12_381::pairing(p, q)
                .0
                .serialize_uncompressed(&mut value)
                .unwrap();
            (compressed(p), g2_bytes(q), value)
        })
        .collect()
}

/// x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1, big-endian.
pub fn g2_bytes(q: G2Affine) -> Vec<u8> {
    let (x, y) = q.xy().unwrap();
    let b = |f: Fq| f.into_bigint().to_bytes_be();
    [b(x.c0), b(x.c1), b(y.c0), b(y.c1)].concat()
}

/// Random G1 points (and a few outside G1) with arkworks' compressed encoding and its
/// uncompressed x ‖ y (`None` where arkworks refuses the point).
pub fn g1_encodings(rng: &mut SmallRng, n: usize) -> Vec<([u8; 48], Option<Vec<u8>>)> {
    let mut out: Vec<_> = (0..n)
        .map(|_| {
            let p = (G1Affine::generator() * fr(rng)).into_affine();
            let (x, y) = p.xy().unwrap();
            let xy = [x.into_bigint().to_bytes_be(), y.into_bigint().to_bytes_be()].concat();
            (compressed(p), Some(xy))
        })
        .collect();
    out.push((compressed(curve_point_outside_g1(rng)), None));
    out.push((off_curve(rng), None));
    out
}
