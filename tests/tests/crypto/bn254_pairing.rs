//! `ECPAIRING` cases, built with arkworks (an implementation independent of the guest's):
//! products of pairings that are 1 and that are not, points at infinity, and every way a
//! point can be refused (a coordinate ≥ p, off the curve or twist, on the twist but outside
//! the order-r subgroup).

use ark_bn254::{Bn254, Fq, Fq2, Fr, G1Affine, G2Affine};
use ark_ec::{pairing::Pairing, AffineRepr, CurveGroup};
use ark_ff::{BigInteger, PrimeField};
use ark_serialize::CanonicalSerialize;
use rand::{rngs::SmallRng, Rng};

const P: [u8; 32] =
    alloy_primitives::hex!("30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47");

fn scalar(rng: &mut SmallRng) -> Fr {
    Fr::from_le_bytes_mod_order(&rng.random::<[u8; 32]>())
}

fn fq(rng: &mut SmallRng) -> Fq {
    Fq::from_le_bytes_mod_order(&rng.random::<[u8; 32]>())
}

fn be(x: Fq) -> Vec<u8> {
    x.into_bigint().to_bytes_be()
}

/// x ‖ y, (0, 0) for infinity.
pub fn g1(p: G1Affine) -> Vec<u8> {
    match p.xy() {
        Some((x, y)) => [be(x), be(y)].concat(),
        None => vec![0; 64],
    }
}

/// x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0, (0, 0) for infinity.
pub fn g2(q: G2Affine) -> Vec<u8> {
    match q.xy() {
        Some((x, y)) => [be(x.c1), be(x.c0), be(y.c1), be(y.c0)].concat(),
        None => vec![0; 128],
    }
}

fn g1_mul(k: Fr) -> G1Affine {
    (G1Affine::generator() * k).into_affine()
}

fn g2_mul(k: Fr) -> G2Affine {
    (G2Affine::generator() * k).into_affine()
}

/// A point on the twist outside G2 (the twist's cofactor is ~2^254, so almost every point).
fn twist_point_outside_g2(rng: &mut SmallRng) -> G2Affine {
    loop {
        let x = Fq2::new(fq(rng), fq(rng));
        if let Some(q) = G2Affine::get_point_from_x_unchecked(x, rng.random()) {
            if !q.is_in_correct_subgroup_assuming_on_curve() {
                return q;
            }
        }
    }
}

/// Concatenated pairs.
fn pairs(pairs: &[(G1Affine, G2Affine)]) -> Vec<u8> {
    pairs
        .iter()
        .flat_map(|(p, q)| [g1(*p), g2(*q)].concat())
        .collect()
}

/// The inputs, each a whole `ECPAIRING` input.
pub fn cases(rng: &mut SmallRng) -> Vec<Vec<u8>> {
    let (gen1, gen2) = (G1Affine::generator(), G2Affine::generator());
    let mut cases = vec![
        Vec::new(),
        pairs(&[(gen1, gen2)]),
        pairs(&[(gen1, gen2), (-gen1, gen2)]),
        pairs(&[(G1Affine::zero(), gen2), (gen1, G2Affine::zero())]),
        pairs(&[(G1Affine::zero(), gen2), (gen1, gen2)]),
    ];
    for _ in 0..3 {
        // e(aP, bQ) · e(−abP, Q) = 1, and with ab + 1 it is not.
        let (a, b) = (scalar(rng), scalar(rng));
        cases.push(pairs(&[(g1_mul(a), g2_mul(b)), (-g1_mul(a * b), gen2)]));
        let off = a * b + Fr::from(1u8);
        cases.push(pairs(&[(g1_mul(a), g2_mul(b)), (-g1_mul(off), gen2)]));
    }
    // Three and four pairs, one of them with infinity.
    let (a, b, c, d) = (scalar(rng), scalar(rng), scalar(rng), scalar(rng));
    let sum = a * b + c * d;
    let three = [
        (g1_mul(a), g2_mul(b)),
        (g1_mul(c), g2_mul(d)),
        (-g1_mul(sum), gen2),
    ];
    cases.push(pairs(&three));
    let mut four = three.to_vec();
    four.insert(1, (g1_mul(scalar(rng)), G2Affine::zero()));
    cases.push(pairs(&four));
    // Refused G2 points: off the twist, on it but outside G2, a coordinate ≥ p.
    let valid = pairs(&[(gen1, gen2)]);
    let off_twist = G2Affine::new_unchecked(Fq2::new(fq(rng), fq(rng)), Fq2::new(fq(rng), fq(rng)));
    cases.push(pairs(&[(gen1, off_twist)]));
    for _ in 0..2 {
        cases.push([valid.clone(), pairs(&[(gen1, twist_point_outside_g2(rng))])].concat());
    }
    for k in 0..4 {
        let mut bad = valid.clone();
        bad[64 + 32 * k..96 + 32 * k].copy_from_slice(&P);
        cases.push(bad);
    }
    // Refused G1 points, in the second pair: off the curve, x = p.
    let mut off_curve = valid.clone();
    off_curve.extend(pairs(&[(gen1, gen2)]));
    off_curve[192 + 63] ^= 1;
    cases.push(off_curve);
    let mut big_x = valid.clone();
    big_x.extend(pairs(&[(gen1, gen2)]));
    big_x[192..224].copy_from_slice(&P);
    cases.push(big_x);
    cases
}

/// Random (P, Q) with arkworks' `e(P, Q)` as 12 little-endian `Fq` coefficients (c0.c0.c0,
/// c0.c0.c1, c0.c1.c0, ...).
pub fn pairing_values(rng: &mut SmallRng, n: usize) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    (0..n)
        .map(|_| {
            let (p, q) = (g1_mul(scalar(rng)), g2_mul(scalar(rng)));
            let mut value = Vec::new();
            Bn254::pairing(p, q)
                .0
                .serialize_uncompressed(&mut value)
                .unwrap();
            (g1(p), g2(q), value)
        })
        .collect()
}
