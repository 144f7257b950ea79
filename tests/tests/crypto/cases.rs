//! The cases every check runs: official vectors and seeded random inputs for each precompile
//! (the bigger families in their own modules), and revm's software answer to each.

use alloy_primitives::{hex, Signature, U256};
use crypto::check::{outcome, Tag};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use revm::precompile::{Crypto, DefaultCrypto};

use super::{bn254_pairing, eip2537, kzg, modexp};

pub(crate) const BN254_P: U256 = U256::from_be_bytes(hex!(
    "30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47"
));
pub(crate) const BN254_R: U256 = U256::from_be_bytes(hex!(
    "30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001"
));
pub(crate) const P256_P: U256 = U256::from_be_bytes(hex!(
    "FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF"
));
pub(crate) const P256_N: U256 = U256::from_be_bytes(hex!(
    "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"
));
pub(crate) const SECP256K1_N: U256 = U256::from_be_bytes(hex!(
    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"
));

pub(crate) fn be(x: U256) -> [u8; 32] {
    x.to_be_bytes()
}

pub(crate) fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// A BN254 G1 point k·G as revm computes it (G = (1, 2)).
pub(crate) fn bn254_point(k: U256) -> [u8; 64] {
    let g = cat(&[&be(U256::from(1)), &be(U256::from(2))]);
    DefaultCrypto.bn254_g1_mul(&g, &be(k)).unwrap()
}

pub(crate) fn neg_bn254(p: [u8; 64]) -> [u8; 64] {
    let y = U256::from_be_slice(&p[32..]);
    let mut out = p;
    out[32..].copy_from_slice(&be(if y.is_zero() { y } else { BN254_P - y }));
    out
}

/// The seeded cases, each with its input.
pub(crate) fn cases() -> Vec<(Tag, Vec<u8>)> {
    let mut rng = SmallRng::seed_from_u64(0x5eed);
    let mut cases = Vec::new();
    // SHA-256: FIPS 180-2's "abc" and two-block vector, then every padding boundary.
    cases.push((Tag::Sha256, b"abc".to_vec()));
    cases.push((
        Tag::Sha256,
        b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".to_vec(),
    ));
    for len in [
        0, 1, 3, 31, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 200, 1000, 4099,
    ] {
        cases.push((Tag::Sha256, (0..len).map(|_| rng.random()).collect()));
    }

    // BN254 ECADD / ECMUL.
    let zero = [0u8; 64];
    let points: Vec<[u8; 64]> = (0..6)
        .map(|_| bn254_point(U256::from_be_bytes(rng.random::<[u8; 32]>()) % BN254_R))
        .collect();
    let off_curve = cat(&[&be(U256::from(1)), &be(U256::from(3))]);
    let x_too_big = cat(&[&be(BN254_P), &be(U256::from(2))]);
    let y_too_big = cat(&[&be(U256::from(1)), &be(BN254_P + U256::from(2))]);
    let p = points[0];
    for (a, b) in [
        (&p[..], &points[1][..]),
        (&points[2], &points[3]),
        (&points[4], &points[5]),
        (&p, &p),
        (&p, &neg_bn254(p)),
        (&zero, &p),
        (&p, &zero),
        (&zero, &zero),
        (&x_too_big, &p),
        (&p, &y_too_big),
        (&off_curve, &p),
    ] {
        cases.push((Tag::Bn254Add, cat(&[a, b])));
    }
    let max = U256::MAX;
    let mut scalars: Vec<U256> = (0..6)
        .map(|_| U256::from_be_bytes(rng.random::<[u8; 32]>()))
        .collect();
    scalars.extend([
        U256::ZERO,
        U256::from(1),
        U256::from(2),
        BN254_R - U256::from(1),
        BN254_R,
        BN254_R + U256::from(1),
        max,
    ]);
    for (i, k) in scalars.iter().enumerate() {
        cases.push((Tag::Bn254Mul, cat(&[&points[i % 6], &be(*k)])));
    }
    for bad in [&zero[..], &off_curve, &x_too_big, &y_too_big] {
        cases.push((Tag::Bn254Mul, cat(&[bad, &be(scalars[0])])));
    }

    // P256VERIFY: valid, high s, wrong message, out-of-range r / s, bad keys.
    use p256::ecdsa::{signature::hazmat::PrehashSigner, SigningKey};
    for _ in 0..6 {
        let key = SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        let point = key.verifying_key().to_encoded_point(false);
        let xy = &point.as_bytes()[1..];
        let msg: [u8; 32] = rng.random();
        let sig: p256::ecdsa::Signature = key.sign_prehash(&msg).unwrap();
        let (r, s) = (
            U256::from_be_slice(&sig.r().to_bytes()),
            U256::from_be_slice(&sig.s().to_bytes()),
        );
        let y = U256::from_be_slice(&xy[32..]);
        let bad_y = cat(&[&xy[..32], &be(y ^ U256::from(1))]);
        let x_p = cat(&[&be(P256_P), &xy[32..]]);
        let mut other = msg;
        other[0] ^= 1;
        for (m, r, s, k) in [
            (msg, r, s, xy),
            (msg, r, P256_N - s, xy),
            (other, r, s, xy),
            (msg, U256::ZERO, s, xy),
            (msg, r, P256_N, xy),
            (msg, r, s, &bad_y[..]),
            (msg, r, s, &[0u8; 64][..]),
            (msg, r, s, &x_p[..]),
        ] {
            cases.push((Tag::P256Verify, cat(&[&m, &be(r), &be(s), k])));
        }
    }

    // ECRECOVER: low s, high s with the other parity, the wrong parity, invalid signatures.
    for _ in 0..8 {
        let key = k256::ecdsa::SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        let msg: [u8; 32] = rng.random();
        let (sig, id) = key.sign_prehash_recoverable(&msg).unwrap();
        let sig = Signature::from((sig, id));
        let (r, s, v) = (sig.r(), sig.s(), u8::from(sig.v()));
        for (r, s, v) in [(r, s, v), (r, SECP256K1_N - s, v ^ 1), (r, s, v ^ 1)] {
            cases.push((Tag::Ecrecover, cat(&[&be(r), &be(s), &[v], &msg])));
        }
    }
    // secp256k1 verification (alloy's verify hook): valid, high s, wrong message, bad key.
    for _ in 0..4 {
        let key = k256::ecdsa::SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        let point = key.verifying_key().to_encoded_point(false);
        let xy = &point.as_bytes()[1..];
        let msg: [u8; 32] = rng.random();
        let sig: k256::ecdsa::Signature = key.sign_prehash(&msg).unwrap();
        let (r, s) = (
            U256::from_be_slice(&sig.r().to_bytes()),
            U256::from_be_slice(&sig.s().to_bytes()),
        );
        let mut other = msg;
        other[31] ^= 1;
        let y = U256::from_be_slice(&xy[32..]);
        let bad_y = cat(&[&xy[..32], &be(y ^ U256::from(1))]);
        for (m, r, s, k) in [
            (msg, r, s, xy),
            (msg, r, SECP256K1_N - s, xy),
            (other, r, s, xy),
            (msg, r, SECP256K1_N, xy),
            (msg, r, s, &bad_y[..]),
        ] {
            cases.push((Tag::Secp256k1Verify, cat(&[&m, &be(r), &be(s), k])));
        }
    }
    let one = U256::from(1);
    for (r, s, v) in [
        (U256::ZERO, one, 0),
        (one, U256::ZERO, 0),
        (SECP256K1_N, one, 1),
        (one, SECP256K1_N, 0),
        (one, one, 2),
        (one, one, 3),
    ] {
        cases.push((Tag::Ecrecover, cat(&[&be(r), &be(s), &[v], &[7; 32]])));
    }
    for input in bn254_pairing::cases(&mut rng) {
        cases.push((Tag::Bn254Pairing, input));
    }
    for input in kzg::cases(&mut rng) {
        cases.push((Tag::KzgPointEvaluation, input));
    }
    for input in modexp::cases(&mut rng) {
        cases.push((Tag::Modexp, input));
    }
    cases.extend(eip2537::cases(&mut rng));
    // BLAKE2F: EIP-152's vector (12 rounds of "abc", final), then random states and messages
    // over round counts around the schedule's period of 10 and the chip's call size, not final
    // and final.
    let eip152 = [
        &hex!("0000000c")[..],
        &hex!("48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5"),
        &hex!("d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b"),
        b"abc",
        &[0; 125],
        &hex!("03000000000000000000000000000000"),
        &[1],
    ]
    .concat();
    cases.push((Tag::Blake2f, eip152));
    // 65,531 and 70,000 rounds: the guest splits them into a chip call of 65,530 (a multiple
    // of the schedule's period) and one of the rest.
    for rounds in [0u32, 1, 9, 10, 11, 20, 65_531, 70_000] {
        let mut input = rounds.to_be_bytes().to_vec();
        input.extend((0..208).map(|_| rng.random::<u8>()));
        input.push(u8::from(rounds % 2 == 1));
        cases.push((Tag::Blake2f, input));
    }
    cases
}

/// revm's software answer to each case (k256's for secp256k1 verification).
pub(crate) fn expected(cases: &[(Tag, Vec<u8>)]) -> Vec<Vec<u8>> {
    cases
        .iter()
        .map(|(tag, input)| match tag {
            Tag::Secp256k1Verify => vec![1, u8::from(k256_verifies(input))],
            _ => outcome(&DefaultCrypto, *tag, input).unwrap(),
        })
        .collect()
}

/// k256's verdict on msg ‖ r ‖ s ‖ x ‖ y (high s accepted, as alloy's hook does).
pub(crate) fn k256_verifies(input: &[u8]) -> bool {
    use k256::ecdsa::{signature::hazmat::PrehashVerifier, Signature, VerifyingKey};
    let key = VerifyingKey::from_sec1_bytes(&cat(&[&[4], &input[96..160]]));
    let sig = Signature::from_slice(&input[32..96]);
    match (key, sig) {
        (Ok(key), Ok(sig)) => {
            let sig = sig.normalize_s().unwrap_or(sig);
            key.verify_prehash(&input[..32], &sig).is_ok()
        }
        _ => false,
    }
}
