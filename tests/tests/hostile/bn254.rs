//! BN254 `ECADD`, `ECMUL` and `ECPAIRING` (EIP-196/197), points built with arkworks.
//!
//! G1 encodings: random points, ±G, (0, 0), the other operand (doubling) and its negation
//! (a sum at infinity), the curve's points with x = 0 (y² = 3), the same points with a
//! coordinate plus p (non-canonical), coordinates p, p + 1 and 2²⁵⁶ − 1, the non-canonical
//! zeros (p, 0), (0, p), (p, p), one coordinate zero, off-curve neighbours of points,
//! random bytes. Scalars: 0, 1, 2, r − 1, r, r + 1, 2r − 1, 2²⁵⁵, 2²⁵⁶ − 1, small, random.
//! G2 encodings (pairing): random points and the generator, (0, 0), twist points outside
//! G2 (the twist's cofactor is ~2²⁵⁴), off-twist neighbours, a coordinate plus p or equal to
//! p, one coordinate zero, the twist's points with x = 0, negations. Pairing inputs of 0 to 4
//! pairs whose product is 1 (so that the check can succeed), then with one element replaced
//! by an edge encoding or the balance broken; an identity beside an invalid point in the same
//! pair (both must be decoded).
//!
//! Pairings run in software here at ~0.1–0.3 s each in the debug build, so `ECPAIRING` has
//! 120 cases (× `HOSTILE_CASES`), not thousands.

use alloy_primitives::{hex, U256, U512};
use ark_bn254::{Fq, Fq2, Fr, G1Affine, G2Affine};
use ark_ec::short_weierstrass::SWCurveConfig;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInteger, Field, PrimeField};
use crypto::check::Tag;
use rand::{rngs::SmallRng, Rng};

use super::{add_be, bytes, edge_u256, pick, rng, run, scale, small_order};

const P: [u8; 32] = hex!("30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47");
const R: U256 = U256::from_be_bytes(hex!(
    "30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001"
));

fn fr(rng: &mut SmallRng) -> Fr {
    Fr::from_le_bytes_mod_order(&rng.random::<[u8; 32]>())
}

fn fq(rng: &mut SmallRng) -> Fq {
    Fq::from_le_bytes_mod_order(&rng.random::<[u8; 32]>())
}

fn be(x: Fq) -> Vec<u8> {
    x.into_bigint().to_bytes_be()
}

/// x ‖ y, (0, 0) for infinity.
fn g1(p: G1Affine) -> [u8; 64] {
    p.xy().map_or([0; 64], |(x, y)| {
        [be(x), be(y)].concat().try_into().unwrap()
    })
}

/// x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0 (EIP-197's order), (0, 0) for infinity.
fn g2(q: G2Affine) -> [u8; 128] {
    q.xy().map_or([0; 128], |(x, y)| {
        [be(x.c1), be(x.c0), be(y.c1), be(y.c0)]
            .concat()
            .try_into()
            .unwrap()
    })
}

fn g1_random(rng: &mut SmallRng) -> G1Affine {
    (G1Affine::generator() * fr(rng)).into_affine()
}

fn g2_random(rng: &mut SmallRng) -> G2Affine {
    (G2Affine::generator() * fr(rng)).into_affine()
}

/// The encoding with y replaced by p − y.
fn neg_g1(p: &[u8; 64]) -> [u8; 64] {
    let (x, y) = (
        Fq::from_be_bytes_mod_order(&p[..32]),
        Fq::from_be_bytes_mod_order(&p[32..]),
    );
    [be(x), be(-y)].concat().try_into().unwrap()
}

/// `bytes` with the 32-byte coordinate at `i` plus p, if that fits.
fn plus_p<const N: usize>(bytes: &[u8; N], i: usize) -> Option<[u8; N]> {
    let sum = add_be(&bytes[32 * i..32 * i + 32], &P)?;
    let mut out = *bytes;
    out[32 * i..32 * i + 32].copy_from_slice(&sum);
    Some(out)
}

/// A coordinate an attacker would put anywhere: p, p + 1, 2²⁵⁶ − 1, 0, 1.
fn bad_coordinate(rng: &mut SmallRng) -> [u8; 32] {
    let p = U256::from_be_bytes(P);
    pick(
        rng,
        &[p, p + U256::from(1), U256::MAX, U256::ZERO, U256::from(1)],
    )
    .to_be_bytes()
}

/// The G1 encodings an attacker would try; `other` is the operand it meets, if any.
fn g1_edge(rng: &mut SmallRng, other: Option<&[u8; 64]>) -> [u8; 64] {
    let valid = g1(g1_random(rng));
    // y² = 3 has roots: (0, ±√3) are points of G1.
    let x0 = Fq::from(3u8)
        .sqrt()
        .map(|y| g1(G1Affine::new_unchecked(Fq::from(0u8), y)));
    match rng.random_range(0..18) {
        0..=3 => valid,
        4 => g1(pick(rng, &[G1Affine::generator(), -G1Affine::generator()])),
        5 => [0; 64],
        6 => other.copied().unwrap_or(valid),
        7 => neg_g1(other.unwrap_or(&valid)),
        8 => x0.map_or(valid, |p| pick(rng, &[p, neg_g1(&p)])),
        9 => {
            let base = if rng.random_bool(0.5) {
                x0.unwrap_or(valid)
            } else {
                valid
            };
            plus_p(&base, rng.random_range(0..2)).unwrap_or(base)
        }
        10 => {
            let mut out = valid;
            let i = rng.random_range(0..2);
            out[32 * i..32 * i + 32].copy_from_slice(&bad_coordinate(rng));
            out
        }
        11 => {
            let mut out = valid;
            out[63] ^= pick(rng, &[1, 2, 0x80]);
            out
        }
        12 => {
            let mut out = valid;
            let i = rng.random_range(0..2);
            out[32 * i..32 * i + 32].fill(0);
            out
        }
        13 => {
            let p = U256::from_be_bytes(P).to_be_bytes::<32>();
            pick(
                rng,
                &[
                    [p, [0; 32]].concat(),
                    [[0; 32], p].concat(),
                    [p, p].concat(),
                ],
            )
            .try_into()
            .unwrap()
        }
        14 => bytes(rng, 64).try_into().unwrap(),
        _ => [be(fq(rng)), be(fq(rng))].concat().try_into().unwrap(),
    }
}

/// A point of the twist outside G2.
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

/// A twist point of order 10069 (a factor of the twist's cofactor 2p − r).
fn g2_small(rng: &mut SmallRng) -> G2Affine {
    let cofactor = U512::from(U256::from_be_bytes(P)) * U512::from(2) - U512::from(R);
    (0..64)
        .find_map(|_| {
            small_order(
                twist_point_outside_g2(rng),
                cofactor,
                10069,
                Fr::MODULUS.as_ref(),
            )
        })
        .expect("a point with an ℓ-part")
}

/// The G2 encodings an attacker would try.
fn g2_edge(rng: &mut SmallRng) -> [u8; 128] {
    let valid = g2(g2_random(rng));
    match rng.random_range(0..15) {
        14 => g2(g2_small(rng)),
        0..=4 => valid,
        5 => g2(G2Affine::generator()),
        6 => [0; 128],
        7 => g2(twist_point_outside_g2(rng)),
        8 => {
            let mut out = valid;
            out[127] ^= 1;
            out
        }
        9 => {
            let i = rng.random_range(0..4);
            plus_p(&valid, i).unwrap_or(valid)
        }
        10 => {
            let mut out = valid;
            let i = rng.random_range(0..4);
            out[32 * i..32 * i + 32].copy_from_slice(&bad_coordinate(rng));
            out
        }
        11 => {
            let mut out = valid;
            let half = rng.random_range(0..2);
            out[64 * half..64 * half + 64].fill(0);
            out
        }
        12 => {
            // x = 0: y² = b' (3/ξ), a point of the twist if b' is a square.
            let b = ark_bn254::g2::Config::COEFF_B;
            b.sqrt()
                .map_or(valid, |y| g2(G2Affine::new_unchecked(Fq2::from(0u8), y)))
        }
        _ => g2(-g2_random(rng)),
    }
}

/// `ECADD` inputs: a ‖ b, b drawn knowing a.
pub fn add_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    (0..n)
        .map(|_| {
            let a = g1_edge(rng, None);
            let b = g1_edge(rng, Some(&a));
            let (a, b) = if rng.random_bool(0.5) { (a, b) } else { (b, a) };
            (Tag::Bn254Add, [a, b].concat())
        })
        .collect()
}

#[test]
fn bn254_add() {
    let cases = add_cases(&mut rng("bn254 add"), 4000 * scale());
    run("ECADD", &cases, 1, 200);
}

/// `ECMUL` inputs: point ‖ scalar.
pub fn mul_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    (0..n)
        .map(|_| {
            let p = g1_edge(rng, None);
            let k = edge_u256(rng, R).to_be_bytes::<32>();
            (Tag::Bn254Mul, [&p[..], &k].concat())
        })
        .collect()
}

#[test]
fn bn254_mul() {
    let cases = mul_cases(&mut rng("bn254 mul"), 800 * scale());
    run("ECMUL", &cases, 4, 100);
}

/// `ECPAIRING` inputs: 0–4 pairs whose pairing product is 1, then (half the time) one element
/// replaced by an edge encoding or the balance broken.
pub fn pairing_cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    (0..n)
        .map(|_| {
            let k = pick(rng, &[0, 1, 1, 2, 2, 2, 3, 4]);
            let mut pairs: Vec<([u8; 64], [u8; 128])> = Vec::new();
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
                    2 | 3 => pairs[i].1 = g2_edge(rng),
                    // An identity beside an invalid point: the invalid one is still refused.
                    _ => {
                        pairs[i] = if rng.random_bool(0.5) {
                            ([0; 64], g2_edge(rng))
                        } else {
                            (g1_edge(rng, None), [0; 128])
                        }
                    }
                }
            }
            let input = pairs
                .iter()
                .flat_map(|(p, q)| [&p[..], q].concat())
                .collect();
            (Tag::Bn254Pairing, input)
        })
        .collect()
}

#[test]
fn bn254_pairing() {
    let cases = pairing_cases(&mut rng("bn254 pairing"), 80 * scale());
    run("ECPAIRING", &cases, 4, 10);
}
