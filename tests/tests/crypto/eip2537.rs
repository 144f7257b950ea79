//! EIP-2537 cases (BLS12-381 G1/G2 addition, MSM, pairing, map-to-curve), built with arkworks: random
//! points, doubling, inverses and infinity, zero and out-of-range scalars, pairing products
//! that are and are not 1, and every refusal revm makes (a coordinate ≥ p, off the curve,
//! outside the subgroup where one is required).

use alloy_primitives::hex;
use ark_bls12_381::{Fq, Fq2, Fr, G1Affine, G2Affine};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInteger, PrimeField};
use crypto::check::Tag;
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
pub fn cases(rng: &mut SmallRng) -> Vec<(Tag, Vec<u8>)> {
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
        cases.push((Tag::Bls12G1Add, [a, b].concat()));
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
        cases.push((Tag::Bls12G1Msm, msm(&pairs)));
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
        cases.push((Tag::Bls12G2Add, [a, b].concat()));
    }
    for pairs in [
        vec![(g2(r), k1.clone())],
        vec![(g2(r), k1.clone()), (g2(s), big.to_vec())],
        vec![(g2(r), vec![0; 32]), (vec![0; 192], k2.clone())],
        vec![(g2_invalid[2].clone(), k1.clone())],
        vec![(g2_invalid[1].clone(), vec![0; 32])],
    ] {
        cases.push((Tag::Bls12G2Msm, msm(&pairs)));
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
        cases.push((Tag::Bls12Pairing, pairs.concat()));
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
        cases.push((Tag::Bls12MapFpToG1, fp));
    }
    for (input, _) in MAP_G1_VECTORS {
        cases.push((Tag::Bls12MapFpToG1, hex::decode(input).unwrap()));
    }
    for (input, _) in MAP_G2_VECTORS {
        cases.push((Tag::Bls12MapFp2ToG2, hex::decode(input).unwrap()));
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
        cases.push((Tag::Bls12MapFp2ToG2, [c0, c1].concat()));
    }
    cases
}

/// EIP-2537's own map-to-curve vectors (`matter_fp_to_g1_0..2`, `matter_fp2_to_g2_0..2`, as
/// go-ethereum's `core/vm/testdata/precompiles/blsMap{G1,G2}.json` carry them), without the
/// 16-byte padding: (input, expected output).
pub const MAP_G1_VECTORS: [(&str, &str); 3] = [
    (
        "14406e5bfb9209256a3820879a29ac2f62d6aca82324bf3ae2aa7d3c54792043bd8c791fccdb080c1a52dc68b8b69350",
        "0d7721bcdb7ce1047557776eb2659a444166dc6dd55c7ca6e240e21ae9aa18f529f04ac31d861b54faf3307692545db7108286acbdf4384f67659a8abe89e712a504cb3ce1cba07a716869025d60d499a00d1da8cdc92958918c222ea93d87f0",
    ),
    (
        "0e885bb33996e12f07da69073e2c0cc880bc8eff26d2a724299eb12d54f4bcf26f4748bb020e80a7e3794a7b0e47a641",
        "191ba6e4c4dafa22c03d41b050fe8782629337641be21e0397dc2553eb8588318a21d30647182782dee7f62a22fd020c0a721510a67277eabed3f153bd91df0074e1cbd37ef65b85226b1ce4fb5346d943cf21c388f0c5edbc753888254c760a",
    ),
    (
        "0ba1b6d79150bdc368a14157ebfe8b5f691cf657a6bbe30e79b6654691136577d2ef1b36bfb232e3336e7e4c9352a8ed",
        "1658c31c0db44b5f029dba56786776358f184341458577b94d3a53c877af84ffbb1a13cc47d228a76abb4b679129918518cf1f27eab0a1a66f28a227bd624b7d1286af8f85562c3f03950879dd3b8b4b72e74b034223c6fd93de7cd1ade367cb",
    ),
];

/// The same for `MAP_FP2_TO_G2`.
pub const MAP_G2_VECTORS: [(&str, &str); 3] = [
    (
        "14406e5bfb9209256a3820879a29ac2f62d6aca82324bf3ae2aa7d3c54792043bd8c791fccdb080c1a52dc68b8b693500e885bb33996e12f07da69073e2c0cc880bc8eff26d2a724299eb12d54f4bcf26f4748bb020e80a7e3794a7b0e47a641",
        "0d029393d3a13ff5b26fe52bd8953768946c5510f9441f1136f1e938957882db6adbd7504177ee49281ecccba596f2bf1993f668fb1ae603aefbb1323000033fcb3b65d8ed3bf09c84c61e27704b745f540299a1872cd697ae45a5afd780f1d6079cb41060ef7a128d286c9ef8638689a49ca19da8672ea5c47b6ba6dbde193ee835d3b87a76a689966037c07159c10d17c688ae9a8b59a7069c27f2d58dd2196cb414f4fb89da8510518a1142ab19d158badd1c3bad03408fafb1669903cd6c",
    ),
    (
        "0ba1b6d79150bdc368a14157ebfe8b5f691cf657a6bbe30e79b6654691136577d2ef1b36bfb232e3336e7e4c9352a8ed0f12847f7787f439575031bcdb1f03cfb79f942f3a9709306e4bd5afc73d3f78fd1c1fef913f503c8cbab58453fb7df2",
        "0a2bca68ca23f3f03c678140d87465b5b336dbd50926d1219fcc0def162280765fe1093c117d52483d3d8cdc7ab765290fe83e3a958d6038569da6132bfa19f0e3dae3bee0d8a60e7cc33e4d7084a9e8c32fe31ec6e617277e2e450699eba1f805602683f0ef231cc0b7c8c695765d7933f4efa7503ed9f2aa3c774284eabcdd32fd287b6a3539c9749f2e15b58f5cd500b4f17de0db6e9d081723b613b23864c1eeae91b7cbda40ecd24823022aee7fc4068adc41947b97e17009fad9d0d4de",
    ),
    (
        "1632336631a3c666159b6e5e1fb62ffa21488e571cffb7bc3d75d55a837f242e789a75f0f583ce2b3a969c64c2b46de2184f1db9ac0fdd6b5ac0307e203d0b4237a50554eb7af37bb1894d9769609c96c8437e9d6d3679ebd5f979eb04035799",
        "184af3f8a359dd35dddd3dfcc6f5b55ed327907ed573378289209569244e3c9c02bdf278eb567186f8b64de380c1153612f5ba8e520c4730ac1fb75dabbfdc0181855e5ba2968a8c0ba36a47ab86ac45d19aa3d55f15a601e120be1f75eefe2404e313db704b103c2c1e3a58f8e95a470e7199081eb086e9524583131714c4a3db551fd51a3f2314a19a658e7b17653804040eab7416a1703b0d103120506f1de2b26b0f48c7a0ea63dca4d9ad1c478ae03b5d7bfd51f4cd6f8cea26212c4edf",
    ),
];
