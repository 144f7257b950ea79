//! EIP-2537 cases (BLS12-381 G1/G2 addition, MSM, pairing, map-to-curve), built with arkworks: random
//! points, doubling, inverses and infinity, zero and out-of-range scalars, pairing products
//! that are and are not 1, and every refusal revm makes (a coordinate ≥ p, off the curve,
//! outside the subgroup where one is required).

use alloy_primitives::hex;
use ark_bls12_381::{Fq, Fq2, Fr, G1Affine, G2Affine};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInteger, PrimeField};
use rand::{rngs::SmallRng, Rng};

const P: [u8; 48] = hex!("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");

fn fr(rng: &mut SmallRng) -> Fr {
    Fr::from_le_bytes_mod_order(&rng.random::<[u8; 32]>())
}

fn fq(rng: &mut SmallRng) -> Fq {
    Fq::from_le_bytes_mod_order(&rng.random::<[u8; 48]>())
}

fn be(x: Fq) -> Vec<u8> {
    x.into_bigint().to_bytes_be()
}

fn g1(p: G1Affine) -> Vec<u8> {
    p.xy().map_or(vec![0; 96], |(x, y)| [be(x), be(y)].concat())
}

fn g2(q: G2Affine) -> Vec<u8> {
    q.xy().map_or(vec![0; 192], |(x, y)| {
        [be(x.c0), be(x.c1), be(y.c0), be(y.c1)].concat()
    })
}

fn g1_rand(rng: &mut SmallRng) -> G1Affine {
    (G1Affine::generator() * fr(rng)).into_affine()
}

fn g2_rand(rng: &mut SmallRng) -> G2Affine {
    (G2Affine::generator() * fr(rng)).into_affine()
}

fn g1_outside(rng: &mut SmallRng) -> G1Affine {
    loop {
        if let Some(p) = G1Affine::get_point_from_x_unchecked(fq(rng), rng.random()) {
            if !p.is_in_correct_subgroup_assuming_on_curve() {
                return p;
            }
        }
    }
}

fn g2_outside(rng: &mut SmallRng) -> G2Affine {
    loop {
        let x = Fq2::new(fq(rng), fq(rng));
        if let Some(q) = G2Affine::get_point_from_x_unchecked(x, rng.random()) {
            if !q.is_in_correct_subgroup_assuming_on_curve() {
                return q;
            }
        }
    }
}

/// A point with its first coordinate replaced by p (not canonical).
fn non_canonical(mut encoded: Vec<u8>) -> Vec<u8> {
    encoded[..48].copy_from_slice(&P);
    encoded
}

/// A point moved off the curve.
fn off_curve(mut encoded: Vec<u8>) -> Vec<u8> {
    let last = encoded.len() - 1;
    encoded[last] ^= 1;
    encoded
}

/// `(tag index, input)`: 0 G1 add, 1 G1 MSM, 2 G2 add, 3 G2 MSM, 4 pairing.
pub fn cases(rng: &mut SmallRng) -> Vec<(usize, Vec<u8>)> {
    let mut cases = Vec::new();
    let (p, q) = (g1_rand(rng), g1_rand(rng));
    let g1_invalid = [non_canonical(g1(p)), off_curve(g1(p)), g1(g1_outside(rng))];
    for (a, b) in [
        (g1(p), g1(q)),
        (g1(p), g1(p)),
        (g1(p), g1(-p)),
        (vec![0; 96], g1(q)),
        (vec![0; 96], vec![0; 96]),
        // No subgroup check in addition: a curve point outside G1 is fine.
        (g1(g1_outside(rng)), g1(q)),
        (g1(p), g1_invalid[0].clone()),
        (g1_invalid[1].clone(), g1(q)),
    ] {
        cases.push((0, [a, b].concat()));
    }
    let big = [0xff; 32];
    let k = |rng: &mut SmallRng| fr(rng).into_bigint().to_bytes_be();
    let msm = |pairs: &[(Vec<u8>, Vec<u8>)]| -> Vec<u8> {
        pairs
            .iter()
            .flat_map(|(p, k)| [p.clone(), k.clone()].concat())
            .collect()
    };
    let (k1, k2, k3) = (k(rng), k(rng), k(rng));
    for pairs in [
        vec![(g1(p), k1.clone())],
        vec![
            (g1(p), k1.clone()),
            (g1(q), k2.clone()),
            (g1(g1_rand(rng)), k3.clone()),
        ],
        vec![(g1(p), vec![0; 32]), (g1(q), big.to_vec())],
        vec![(vec![0; 96], k1.clone())],
        vec![(g1(p), k1.clone()), (g1_invalid[2].clone(), k2.clone())],
        vec![(g1_invalid[2].clone(), vec![0; 32])],
        vec![(g1_invalid[1].clone(), k1.clone())],
    ] {
        cases.push((1, msm(&pairs)));
    }
    let (r, s) = (g2_rand(rng), g2_rand(rng));
    let g2_invalid = [non_canonical(g2(r)), off_curve(g2(r)), g2(g2_outside(rng))];
    for (a, b) in [
        (g2(r), g2(s)),
        (g2(r), g2(r)),
        (g2(r), g2(-r)),
        (vec![0; 192], g2(s)),
        (g2(g2_outside(rng)), g2(s)),
        (g2(r), g2_invalid[0].clone()),
        (g2_invalid[1].clone(), g2(s)),
    ] {
        cases.push((2, [a, b].concat()));
    }
    for pairs in [
        vec![(g2(r), k1.clone())],
        vec![(g2(r), k1.clone()), (g2(s), big.to_vec())],
        vec![(g2(r), vec![0; 32]), (vec![0; 192], k2.clone())],
        vec![(g2_invalid[2].clone(), k1.clone())],
        vec![(g2_invalid[1].clone(), vec![0; 32])],
    ] {
        cases.push((3, msm(&pairs)));
    }
    let (a, b) = (fr(rng), fr(rng));
    let (ga, gb) = (
        (G1Affine::generator() * a).into_affine(),
        (G2Affine::generator() * b).into_affine(),
    );
    let ab = (G1Affine::generator() * (a * b)).into_affine();
    let ab1 = (G1Affine::generator() * (a * b + Fr::from(1u8))).into_affine();
    let gen2 = G2Affine::generator();
    let pair = |p: Vec<u8>, q: Vec<u8>| [p, q].concat();
    for pairs in [
        vec![],
        vec![pair(g1(ga), g2(gb)), pair(g1(-ab), g2(gen2))],
        vec![pair(g1(ga), g2(gb)), pair(g1(-ab1), g2(gen2))],
        vec![pair(g1(ga), g2(gb))],
        vec![pair(vec![0; 96], g2(gb)), pair(g1(ga), vec![0; 192])],
        vec![pair(vec![0; 96], g2_invalid[2].clone())],
        vec![pair(g1_invalid[2].clone(), g2(gb))],
        vec![pair(g1(ga), g2_invalid[0].clone())],
    ] {
        cases.push((4, pairs.concat()));
    }
    // Map-to-curve: random elements, 0 (SWU's exceptional `ta = 0`), 1, p − 1, and p (refused);
    // over Fp2 also elements with a zero coordinate (the square root's `c1 = 0` branch).
    let p_minus_1 = be(-Fq::from(1u8));
    for fp in [be(fq(rng)), be(fq(rng)), be(fq(rng)), be(fq(rng))]
        .into_iter()
        .chain([
            vec![0; 48],
            be(Fq::from(1u8)),
            p_minus_1.clone(),
            P.to_vec(),
        ])
    {
        cases.push((5, fp));
    }
    for (c0, c1) in [
        (be(fq(rng)), be(fq(rng))),
        (be(fq(rng)), be(fq(rng))),
        (be(fq(rng)), be(fq(rng))),
        (vec![0; 48], vec![0; 48]),
        (be(fq(rng)), vec![0; 48]),
        (be(fq(rng)), vec![0; 48]),
        (be(fq(rng)), vec![0; 48]),
        (vec![0; 48], be(fq(rng))),
        // −1 is not a square in Fp, 4 is.
        (p_minus_1.clone(), vec![0; 48]),
        (be(Fq::from(4u8)), vec![0; 48]),
        (p_minus_1.clone(), p_minus_1),
        (P.to_vec(), vec![0; 48]),
        (vec![0; 48], P.to_vec()),
    ] {
        cases.push((6, [c0, c1].concat()));
    }
    cases
}
