//! BLS12-381: the EIP-2537 precompiles (G1 and G2 addition and MSM, the pairing check,
//! `MAP_FP_TO_G1`, `MAP_FP2_TO_G2`) and the KZG point evaluation (EIP-4844), points built
//! with arkworks.
//!
//! G1 and G2 encodings: random points of the group, ±generator, (0, 0), the other operand
//! (doubling) and its negation, curve points outside the subgroup (no check in addition, a
//! refusal in MSM and pairing even beside a zero scalar or an identity), the curve's points
//! with x = 0 (y² = 4 over Fp, y² = 4ξ over Fp2), a coordinate plus k·p (1 ≤ k ≤ 8: every
//! 384-bit non-canonical encoding of a valid coordinate), a coordinate equal to p, p + 1 or
//! 2³⁸⁴ − 1, off-curve neighbours, one coordinate zero, the non-canonical zeros (p, 0),
//! (0, p), (p, p), random bytes. MSM scalars: 0, 1, r − 1, r, r + 1, 2r − 1, 2²⁵⁵,
//! 2²⁵⁶ − 1, small, random; 0 to 4 pairs (0 only at the `Crypto` level: revm's precompile
//! refuses an empty MSM before calling it). Pairings: 0 to 3 pairs whose product is 1, then
//! one element replaced by an edge encoding or the balance broken. Map-to-curve: 0, 1,
//! (p ± 1)/2 (the sign's boundary), p − 1, p, p + 1, 2³⁸⁴ − 1, the exceptional input of
//! the SWU map (u² = −1/Z, where the map's denominator vanishes), random; over Fp2 each
//! coordinate so.
//!
//! KZG: commitments and proofs in the ZCash compressed encoding: points of G1, infinity, each
//! wrong flag combination (no compression bit, infinity with the sort bit, infinity with a
//! non-zero x), x ≥ p, x off the curve, curve points outside G1, x = 0; z and y at and above
//! r. Valid openings are those of constant polynomials (C = y·G, proof at infinity: the only
//! ones buildable without the trusted setup's G1 powers, beside c-kzg's vector), then
//! mutated.
//!
//! Pairings, subgroup checks and the G2 maps run in software here at 0.1–1 s each in the
//! debug build: those families are sized down (G2 MSM 60, pairing 40, fp2 → G2 100, KZG 100,
//! × `HOSTILE_CASES`).

use alloy_primitives::{hex, U256, U512};
use ark_bls12_381::{Fq, Fq2, Fr, G1Affine, G2Affine};
use ark_ec::short_weierstrass::SWCurveConfig;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInteger, Field, PrimeField};
use ark_serialize::CanonicalSerialize;
use crypto::check::Tag;
use rand::{rngs::SmallRng, Rng};

use super::{add_be, bytes, edge_u256, pick, rng, run, scale, small_order};

const P: [u8; 48] = hex!("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
const R: U256 = U256::from_be_bytes(hex!(
    "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"
));

/// G1's cofactor, (x − 1)²/3: 3 · 11² · 10177² · 859267² · 52437899².
const H1: U512 = U512::from_be_slice(&hex!("396c8c005555e1568c00aaab0000aaab"));
/// The twist's cofactor: 13² · 23² · 2713 · 11953 · 262069 · (a 448-bit rest).
const H2: U512 = U512::from_be_slice(&hex!("05d543a95414e7f1091d50792876a202cd91de4547085abaa68a205b2e5a7ddfa628f1cb4d9e82ef21537e293a6691ae1616ec6e786f0c70cf1c38e31c7238e5"));

/// A curve point of small order outside G1.
fn g1_small(rng: &mut SmallRng) -> G1Affine {
    let ell = pick(rng, &[3, 11, 10177, 859267]);
    (0..64)
        .find_map(|_| small_order(g1_outside(rng), H1, ell, Fr::MODULUS.as_ref()))
        .expect("a point with an ℓ-part")
}

/// A twist point of small order outside G2.
fn g2_small(rng: &mut SmallRng) -> G2Affine {
    let ell = pick(rng, &[13, 23, 2713, 11953, 262069]);
    (0..64)
        .find_map(|_| small_order(g2_outside(rng), H2, ell, Fr::MODULUS.as_ref()))
        .expect("a point with an ℓ-part")
}

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

fn g1_random(rng: &mut SmallRng) -> G1Affine {
    (G1Affine::generator() * fr(rng)).into_affine()
}

fn g2_random(rng: &mut SmallRng) -> G2Affine {
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

/// A 48-byte coordinate an attacker would put anywhere.
fn bad_coordinate(rng: &mut SmallRng) -> Vec<u8> {
    pick(
        rng,
        &[
            P.to_vec(),
            add_be(&P, &[1]).unwrap(),
            vec![0xff; 48],
            vec![0; 48],
            [vec![0; 47], vec![1]].concat(),
        ],
    )
}

/// Mutations every encoding (`coords` coordinates of 48 bytes) gets: a coordinate plus k·p,
/// set to a bad value or zeroed, the last byte flipped (off the curve).
fn mutate(rng: &mut SmallRng, mut encoded: Vec<u8>) -> Vec<u8> {
    let coords = encoded.len() / 48;
    let i = rng.random_range(0..coords);
    let c = &mut encoded[48 * i..48 * i + 48];
    match rng.random_range(0..4) {
        0 => {
            let mut k = P.to_vec();
            for _ in 1..rng.random_range(1..=8) {
                k = add_be(&k, &P).unwrap();
            }
            c.copy_from_slice(&add_be(c, &k).unwrap());
        }
        1 => c.copy_from_slice(&bad_coordinate(rng)),
        2 => c.fill(0),
        _ => c[47] ^= pick(rng, &[1, 2, 0x80]),
    }
    encoded
}

/// The negation's encoding (y → p − y per coordinate, zero stays zero).
fn neg(encoded: &[u8]) -> Vec<u8> {
    let half = encoded.len() / 2;
    let mut out = encoded[..half].to_vec();
    for c in encoded[half..].chunks(48) {
        out.extend(be(-Fq::from_be_bytes_mod_order(c)));
    }
    out
}

/// The G1 encodings an attacker would try; `other` is the operand it meets, if any.
fn g1_edge(rng: &mut SmallRng, other: Option<&[u8]>) -> Vec<u8> {
    let valid = g1(g1_random(rng));
    match rng.random_range(0..17) {
        16 => g1(g1_small(rng)),
        0..=4 => valid,
        5 => g1(pick(rng, &[G1Affine::generator(), -G1Affine::generator()])),
        6 => vec![0; 96],
        7 => other.map_or(valid, <[u8]>::to_vec),
        8 => neg(other.unwrap_or(&valid)),
        9 | 10 => g1(g1_outside(rng)),
        // (0, ±2): y² = 0 + 4.
        11 => [vec![0; 48], be(pick(rng, &[Fq::from(2u8), -Fq::from(2u8)]))].concat(),
        12 => {
            let base = if rng.random_bool(0.5) {
                valid
            } else {
                g1(g1_outside(rng))
            };
            mutate(rng, base)
        }
        13 => mutate(rng, valid),
        14 => pick(
            rng,
            &[
                [P.to_vec(), vec![0; 48]].concat(),
                [vec![0; 48], P.to_vec()].concat(),
                [P.to_vec(), P.to_vec()].concat(),
            ],
        ),
        _ => bytes(rng, 96),
    }
}

/// The G2 encodings an attacker would try; `other` is the operand it meets, if any.
fn g2_edge(rng: &mut SmallRng, other: Option<&[u8]>) -> Vec<u8> {
    let valid = g2(g2_random(rng));
    match rng.random_range(0..15) {
        14 => g2(g2_small(rng)),
        0..=4 => valid,
        5 => g2(G2Affine::generator()),
        6 => vec![0; 192],
        7 => other.map_or(valid, <[u8]>::to_vec),
        8 => neg(other.unwrap_or(&valid)),
        9 | 10 => g2(g2_outside(rng)),
        // x = 0: y² = 4ξ, if that is a square.
        11 => ark_bls12_381::g2::Config::COEFF_B
            .sqrt()
            .map_or(valid.clone(), |y| {
                g2(G2Affine::new_unchecked(Fq2::from(0u8), y))
            }),
        12 => {
            let base = if rng.random_bool(0.5) {
                valid
            } else {
                g2(g2_outside(rng))
            };
            mutate(rng, base)
        }
        _ => mutate(rng, valid),
    }
}

fn scalar(rng: &mut SmallRng) -> Vec<u8> {
    edge_u256(rng, R).to_be_bytes::<32>().to_vec()
}

/// Addition inputs a ‖ b, b drawn knowing a.
fn add_cases(
    rng: &mut SmallRng,
    n: usize,
    tag: Tag,
    edge: fn(&mut SmallRng, Option<&[u8]>) -> Vec<u8>,
) -> Vec<(Tag, Vec<u8>)> {
    (0..n)
        .map(|_| {
            let a = edge(rng, None);
            let b = edge(rng, Some(&a));
            (tag, [a, b].concat())
        })
        .collect()
}

/// `BLS12_G1ADD` inputs.
pub fn g1_add_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    add_cases(rng, n, Tag::Bls12G1Add, g1_edge)
}

/// `BLS12_G2ADD` inputs.
pub fn g2_add_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    add_cases(rng, n, Tag::Bls12G2Add, g2_edge)
}

#[test]
fn bls12_g1_add() {
    let cases = g1_add_cases(&mut rng("bls12 g1 add"), 2500 * scale());
    run("BLS12_G1ADD", &cases, 1, 200);
}

#[test]
fn bls12_g2_add() {
    let cases = g2_add_cases(&mut rng("bls12 g2 add"), 1000 * scale());
    run("BLS12_G2ADD", &cases, 1, 100);
}

/// MSM inputs of 0–4 pairs (and sometimes a fifth that cancels one); half the points drawn
/// from the group, so that sums are computed.
fn msm_cases(
    rng: &mut SmallRng,
    n: usize,
    tag: Tag,
    valid: fn(&mut SmallRng) -> Vec<u8>,
    edge: fn(&mut SmallRng, Option<&[u8]>) -> Vec<u8>,
) -> Vec<(Tag, Vec<u8>)> {
    (0..n)
        .map(|_| {
            let k = pick(rng, &[0, 1, 1, 1, 2, 2, 3, 4]);
            let mut input = Vec::new();
            let mut last: Option<Vec<u8>> = None;
            for _ in 0..k {
                let point = if rng.random_bool(0.5) {
                    edge(rng, last.as_deref())
                } else {
                    valid(rng)
                };
                let k = scalar(rng);
                input.extend_from_slice(&point);
                input.extend_from_slice(&k);
                // A pair that cancels this one in a group: (−P, k) or (P, r − k).
                let k = U256::from_be_slice(&k);
                if rng.random_bool(0.15) && k < R {
                    if rng.random_bool(0.5) {
                        input.extend(neg(&point));
                        input.extend(k.to_be_bytes::<32>());
                    } else {
                        input.extend_from_slice(&point);
                        input.extend((R - k).to_be_bytes::<32>());
                    }
                }
                last = Some(point);
            }
            (tag, input)
        })
        .collect()
}

/// `BLS12_G1MSM` inputs.
pub fn g1_msm_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    msm_cases(rng, n, Tag::Bls12G1Msm, |r| g1(g1_random(r)), g1_edge)
}

/// `BLS12_G2MSM` inputs.
pub fn g2_msm_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    msm_cases(rng, n, Tag::Bls12G2Msm, |r| g2(g2_random(r)), g2_edge)
}

#[test]
fn bls12_g1_msm() {
    let cases = g1_msm_cases(&mut rng("bls12 g1 msm"), 150 * scale());
    run("BLS12_G1MSM", &cases, 4, 20);
}

#[test]
fn bls12_g2_msm() {
    let cases = g2_msm_cases(&mut rng("bls12 g2 msm"), 40 * scale());
    run("BLS12_G2MSM", &cases, 4, 5);
}

/// Pairing inputs: 0–3 pairs whose product is 1, then (most of the time) one element replaced
/// by an edge encoding or the balance broken.
pub fn pairing_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    (0..n)
        .map(|_| {
            let k = pick(rng, &[0, 1, 1, 2, 2, 2, 3]);
            let mut pairs: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
            let mut sum = Fr::from(0u8);
            for _ in 1..k {
                let (a, b) = (fr(rng), fr(rng));
                sum += a * b;
                let p = (G1Affine::generator() * a).into_affine();
                let q = (G2Affine::generator() * b).into_affine();
                pairs.push((g1(p), g2(q)));
            }
            if k > 0 {
                let p = (G1Affine::generator() * -sum).into_affine();
                pairs.push((g1(p), g2(G2Affine::generator())));
            }
            if k > 0 && rng.random_bool(0.6) {
                let i = rng.random_range(0..k);
                match rng.random_range(0..5) {
                    0 | 1 => pairs[i].0 = g1_edge(rng, None),
                    2 | 3 => pairs[i].1 = g2_edge(rng, None),
                    _ => {
                        pairs[i] = if rng.random_bool(0.5) {
                            (vec![0; 96], g2_edge(rng, None))
                        } else {
                            (g1_edge(rng, None), vec![0; 192])
                        }
                    }
                }
            }
            let input = pairs
                .into_iter()
                .flat_map(|(p, q)| [p, q].concat())
                .collect();
            (Tag::Bls12Pairing, input)
        })
        .collect()
}

#[test]
fn bls12_pairing() {
    let cases = pairing_cases(&mut rng("bls12 pairing"), 30 * scale());
    run("BLS12_PAIRING_CHECK", &cases, 4, 5);
}

/// A field element for the maps: the edges of the module docs, or random.
fn fp_edge(rng: &mut SmallRng, exceptional: Option<Fq>) -> Vec<u8> {
    let half = Fq::from(2u8).inverse().unwrap() * -Fq::from(1u8);
    match rng.random_range(0..12) {
        0 => vec![0; 48],
        1 => be(Fq::from(1u8)),
        2 => be(half),
        3 => be(half + Fq::from(1u8)),
        4 => be(-Fq::from(1u8)),
        5 => bad_coordinate(rng),
        6 => exceptional.map_or(vec![0; 48], |u| be(pick(rng, &[u, -u]))),
        _ => be(fq(rng)),
    }
}

/// `MAP_FP_TO_G1` inputs.
pub fn map_fp_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    // SWU's Z is 11 over Fp.
    let exceptional = (-Fq::from(11u8).inverse().unwrap()).sqrt();
    (0..n)
        .map(|_| (Tag::Bls12MapFpToG1, fp_edge(rng, exceptional)))
        .collect()
}

/// `MAP_FP2_TO_G2` inputs.
pub fn map_fp2_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    // SWU's Z is −(2 + u) over Fp2: u² = −1/Z = 1/(2 + u).
    let z = -Fq2::new(Fq::from(2u8), Fq::from(1u8));
    let exceptional = (-z.inverse().unwrap()).sqrt();
    (0..n)
        .map(|_| {
            let input = match (exceptional, rng.random_range(0..8)) {
                (Some(u), 0) => {
                    let u = pick(rng, &[u, -u]);
                    [be(u.c0), be(u.c1)].concat()
                }
                _ => [fp_edge(rng, None), fp_edge(rng, None)].concat(),
            };
            (Tag::Bls12MapFp2ToG2, input)
        })
        .collect()
}

#[test]
fn bls12_map_fp_to_g1() {
    let cases = map_fp_cases(&mut rng("bls12 map fp"), 400 * scale());
    run("BLS12_MAP_FP_TO_G1", &cases, 4, 5);
}

#[test]
fn bls12_map_fp2_to_g2() {
    let cases = map_fp2_cases(&mut rng("bls12 map fp2"), 100 * scale());
    run("BLS12_MAP_FP2_TO_G2", &cases, 4, 3);
}

/// The ZCash compressed encoding (arkworks').
fn compressed(p: G1Affine) -> [u8; 48] {
    let mut out = Vec::new();
    p.serialize_compressed(&mut out).unwrap();
    out.try_into().unwrap()
}

/// Commitments and proofs an attacker would try.
fn compressed_edge(rng: &mut SmallRng) -> [u8; 48] {
    let valid = compressed(g1_random(rng));
    let mut infinity = [0u8; 48];
    infinity[0] = 0xc0;
    let mut out = valid;
    match rng.random_range(0..12) {
        0..=2 => valid,
        3 => infinity,
        // Wrong flags on a point or on infinity.
        4 => {
            out[0] = (out[0] & 0x1f) | pick(rng, &[0x00, 0x20, 0x40, 0x60, 0xc0, 0xe0]);
            out
        }
        5 => {
            let mut bad = infinity;
            bad[0] = pick(rng, &[0xe0, 0x40, 0xc1]);
            bad[rng.random_range(1..48)] |= pick(rng, &[0, 1]);
            bad
        }
        // x ≥ p.
        6 => {
            let x = pick(
                rng,
                &[
                    P.to_vec(),
                    add_be(&P, &[1]).unwrap(),
                    add_be(&valid, &P).unwrap(),
                ],
            );
            out.copy_from_slice(&x);
            out[0] = (out[0] & 0x1f) | (valid[0] & 0xe0);
            out
        }
        // x off the curve (x³ + 4 not a square).
        7 => loop {
            let x = fq(rng);
            if G1Affine::get_point_from_x_unchecked(x, false).is_none() {
                let mut out: [u8; 48] = be(x).try_into().unwrap();
                out[0] |= 0x80;
                break out;
            }
        },
        8 => compressed(if rng.random_bool(0.5) {
            g1_outside(rng)
        } else {
            g1_small(rng)
        }),
        // x = 0: (0, ±2), outside G1.
        9 => {
            let mut zero = [0u8; 48];
            zero[0] = pick(rng, &[0x80, 0xa0]);
            zero
        }
        // The negation (the sort flag flipped).
        10 => {
            out[0] ^= 0x20;
            out
        }
        _ => {
            out[47] ^= 1;
            out
        }
    }
}

/// z ‖ y ‖ commitment ‖ proof: constant-polynomial openings, then one part replaced.
pub fn kzg_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    let mut infinity = [0u8; 48];
    infinity[0] = 0xc0;
    (0..n)
        .map(|_| {
            let y = fr(rng);
            let z = edge_u256(rng, R).to_be_bytes::<32>().to_vec();
            let mut parts = [
                z,
                y.into_bigint().to_bytes_be(),
                compressed((G1Affine::generator() * y).into_affine()).to_vec(),
                infinity.to_vec(),
            ];
            if rng.random_bool(0.7) {
                match rng.random_range(0..4) {
                    0 => parts[1] = edge_u256(rng, R).to_be_bytes::<32>().to_vec(),
                    1 => parts[2] = compressed_edge(rng).to_vec(),
                    2 => parts[3] = compressed_edge(rng).to_vec(),
                    _ => {
                        parts[2] = compressed_edge(rng).to_vec();
                        parts[3] = compressed_edge(rng).to_vec();
                    }
                }
            }
            (Tag::KzgPointEvaluation, parts.concat())
        })
        .collect()
}

#[test]
fn kzg_point_evaluation() {
    let cases = kzg_cases(&mut rng("kzg"), 60 * scale());
    run("KZG_POINT_EVALUATION", &cases, 4, 5);
}
