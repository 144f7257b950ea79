//! The guest's accelerated cryptography (`crypto::OpenVmPrecompiles`) against revm's own
//! software implementation (`DefaultCrypto`), on official vectors and seeded random inputs:
//! natively (the field macros' software path) and in the VM (the chips, guest
//! `crypto_check`).

use alloy_primitives::{hex, Signature, U256};
use crypto::check::{outcome, write_record, Tag};
use prover::guest::{GuestSpec, Keccak, Program};
use prover::vm::Vm;
use rand::{rngs::SmallRng, Rng, SeedableRng};
use revm::precompile::{Crypto, DefaultCrypto};

#[path = "crypto_cases/bn254_pairing.rs"]
mod bn254_pairing;
#[path = "crypto_cases/eip2537.rs"]
mod eip2537;
#[path = "crypto_cases/kzg.rs"]
mod kzg;
#[path = "crypto_cases/modexp.rs"]
mod modexp;

const BN254_P: U256 = U256::from_be_bytes(hex!(
    "30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47"
));
const BN254_R: U256 = U256::from_be_bytes(hex!(
    "30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001"
));
const P256_P: U256 = U256::from_be_bytes(hex!(
    "FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF"
));
const P256_N: U256 = U256::from_be_bytes(hex!(
    "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"
));
const SECP256K1_N: U256 = U256::from_be_bytes(hex!(
    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"
));

fn be(x: U256) -> [u8; 32] {
    x.to_be_bytes()
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// A BN254 G1 point k·G as revm computes it (G = (1, 2)).
fn bn254_point(k: U256) -> [u8; 64] {
    let g = cat(&[&be(U256::from(1)), &be(U256::from(2))]);
    DefaultCrypto.bn254_g1_mul(&g, &be(k)).unwrap()
}

fn neg_bn254(p: [u8; 64]) -> [u8; 64] {
    let y = U256::from_be_slice(&p[32..]);
    let mut out = p;
    out[32..].copy_from_slice(&be(if y.is_zero() { y } else { BN254_P - y }));
    out
}

/// The seeded cases, each with its input.
fn cases() -> Vec<(Tag, Vec<u8>)> {
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
    cases
}

/// Every non-zero modulus takes a chip path: those the guest declares, every other one of up to
/// 32 significant bytes, and longer ones (a `MODEXP` the chips do not compute would pass the
/// differential checks on revm's software path unnoticed); a zero modulus does not.
#[test]
fn modexp_takes_a_chip_path_for_every_non_zero_modulus() {
    for m in modexp::CHIP_MODULI {
        assert!(
            crypto::modexp::modexp(&[3], &[5], m).is_some(),
            "{}",
            hex::encode(m)
        );
    }
    for m in [&[1][..], &[2], &[0x10; 32], &[0, 0, 7], &[0xff; 32]] {
        assert!(crypto::modexp::modexp(&[3], &[5], m).is_some(), "{m:?}");
    }
    assert!(crypto::modexp::modexp(&[3], &[5], &[0; 32]).is_none());
    assert!(crypto::modexp::modexp(&[3], &[5], &[0; 40]).is_none());
    assert!(crypto::modexp::modexp(&[3], &[5], &[0x10; 33]).is_some());
    assert!(crypto::modexp::modexp(&[3], &[5], &[0x10; 1024]).is_some());
}

/// revm's software answer to each case (k256's for secp256k1 verification).
fn expected(cases: &[(Tag, Vec<u8>)]) -> Vec<Vec<u8>> {
    cases
        .iter()
        .map(|(tag, input)| match tag {
            Tag::Secp256k1Verify => vec![1, u8::from(k256_verifies(input))],
            _ => outcome(&DefaultCrypto, *tag, input).unwrap(),
        })
        .collect()
}

/// k256's verdict on msg ‖ r ‖ s ‖ x ‖ y (high s accepted, as alloy's hook does).
fn k256_verifies(input: &[u8]) -> bool {
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

#[test]
fn the_cases_cover_successes_and_failures_of_every_precompile() {
    let cases = cases();
    let expected = expected(&cases);
    for tag in Tag::ALL {
        let of_tag: Vec<&Vec<u8>> = cases
            .iter()
            .zip(&expected)
            .filter(|((t, _), _)| *t == tag)
            .map(|(_, e)| e)
            .collect();
        assert!(
            of_tag.iter().any(|e| e[0] == 1 && e[1..] != [0]),
            "{tag:?}: no success"
        );
        if tag != Tag::Sha256 {
            assert!(
                of_tag.iter().any(|e| e[0] == 0 || e[1..] == [0]),
                "{tag:?}: no failure"
            );
        }
    }
}

/// Natively: everything but secp256k1 recovery, which needs the VM's square-root hint.
#[test]
fn natively_the_accelerated_paths_answer_as_revm_does() {
    let cases = cases();
    for (k, ((tag, input), want)) in cases.iter().zip(expected(&cases)).enumerate() {
        if *tag == Tag::Ecrecover {
            continue;
        }
        let got = outcome(&crypto::OpenVmPrecompiles, *tag, input).unwrap();
        assert_eq!(
            got,
            want,
            "case {k} ({tag:?}, input {})",
            hex::encode(input)
        );
    }
}

/// The guest's `e(P, Q)` is arkworks' `Fp12` element, coefficient by coefficient: the tower,
/// Miller loop and final exponentiation agree, not just the verdicts.
#[test]
fn natively_bn254_pairings_equal_arkworks_values() {
    let mut rng = SmallRng::seed_from_u64(197);
    for (p, q, want) in bn254_pairing::pairing_values(&mut rng, 3) {
        let f = crypto::bn254::pairing::pairing(
            p.as_slice().try_into().unwrap(),
            q.as_slice().try_into().unwrap(),
        )
        .unwrap()
        .expect("neither point is infinity");
        let got = crypto::bn254::pairing::to_le_bytes(&f);
        assert_eq!(hex::encode(got), hex::encode(want));
    }
}

/// The same for BLS12-381's pairing, and the G2 constants the KZG check uses are arkworks'
/// generator and revm's trusted-setup `[τ]G2`.
#[test]
fn natively_bls12_381_pairings_and_constants_equal_arkworks() {
    use crypto::bls12_381::{g2, pairing, read_compressed};
    let mut rng = SmallRng::seed_from_u64(381);
    for (p, q, want) in kzg::pairing_values(&mut rng, 2) {
        let p = read_compressed(&p).unwrap();
        let q = g2::from_be_bytes(q.as_slice().try_into().unwrap()).unwrap();
        let got = pairing::to_le_bytes(&pairing::pairing(&p, &q));
        assert_eq!(hex::encode(got), hex::encode(want));
    }
    use ark_ec::AffineRepr;
    use ark_serialize::CanonicalDeserialize;
    let generator = kzg::g2_bytes(ark_bls12_381::G2Affine::generator());
    assert_eq!(
        g2::from_be_bytes(generator.as_slice().try_into().unwrap()),
        Some(g2::generator())
    );
    let tau = ark_bls12_381::G2Affine::deserialize_compressed(
        &revm::precompile::bls12_381_const::TRUSTED_SETUP_TAU_G2_BYTES[..],
    )
    .unwrap();
    let tau = kzg::g2_bytes(tau);
    assert_eq!(
        g2::from_be_bytes(tau.as_slice().try_into().unwrap()),
        Some(g2::tau())
    );
}

/// Compressed G1 points decode to arkworks' coordinates, and those arkworks refuses (off the
/// curve, outside G1) are refused.
#[test]
fn natively_bls12_381_g1_decompression_agrees_with_arkworks() {
    let mut rng = SmallRng::seed_from_u64(48);
    for (compressed, want) in kzg::g1_encodings(&mut rng, 6) {
        let got = crypto::bls12_381::read_compressed(&compressed)
            .ok()
            .map(|p| crypto::bls12_381::to_uncompressed(&p).to_vec());
        assert_eq!(got, want, "{}", hex::encode(compressed));
    }
}

/// The map-to-curve precompiles give EIP-2537's own vectors.
#[test]
fn map_to_curve_gives_the_eip2537_vectors() {
    use crypto::bls12_381::map::{fp2_to_g2, fp_to_g1};
    for (input, want) in eip2537::MAP_G1_VECTORS {
        let input: [u8; 48] = hex::decode(input).unwrap().try_into().unwrap();
        assert_eq!(hex::encode(fp_to_g1(&input).unwrap()), want);
    }
    for (input, want) in eip2537::MAP_G2_VECTORS {
        let input = hex::decode(input).unwrap();
        let c = |i: usize| -> [u8; 48] { input[48 * i..48 * (i + 1)].try_into().unwrap() };
        assert_eq!(hex::encode(fp2_to_g2(&(c(0), c(1))).unwrap()), want);
    }
}

#[test]
fn in_the_vm_the_chips_answer_as_revm_does() {
    let cases = cases();
    let expected = expected(&cases);
    let mut records = Vec::new();
    for ((tag, input), want) in cases.iter().zip(&expected) {
        write_record(&mut records, *tag, input, want);
    }
    let elf = GuestSpec::program(Program::CryptoCheck, Keccak::Ours)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let vm = Vm::new(elf, 32).unwrap_or_else(|e| panic!("{e}"));
    let public = vm.execute(&records).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        u32::from_le_bytes(public[..4].try_into().unwrap()) as usize,
        cases.len()
    );
    // A wrong expectation fails the guest: the check can fail.
    let mut wrong = Vec::new();
    let (tag, input) = &cases[0];
    let mut want = expected[0].clone();
    *want.last_mut().unwrap() ^= 1;
    write_record(&mut wrong, *tag, input, &want);
    assert!(vm.execute(&wrong).is_err());
}

/// EIP-7702 authorities recovered through alloy's hook (`program::execute::recover_authority`)
/// follow the rules revm applies with alloy's own `recover_authority`: valid, high s (invalid),
/// y parity 2 (invalid), r = 0 (invalid), and the other parity (another authority or none).
#[test]
fn eip7702_authorities_recover_as_alloy_does() {
    use alloy_eips::eip7702::{Authorization, RecoveredAuthority, SignedAuthorization};
    use program::execute::recover_authority;
    let mut rng = SmallRng::seed_from_u64(7702);
    let mut valid = 0;
    for _ in 0..8 {
        let key = k256::ecdsa::SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        let auth = Authorization {
            chain_id: U256::from(1),
            address: alloy_primitives::Address::from(rng.random::<[u8; 20]>()),
            nonce: rng.random(),
        };
        let (sig, id) = key
            .sign_prehash_recoverable(auth.signature_hash().as_slice())
            .unwrap();
        let sig = Signature::from((sig, id));
        let (r, s, v) = (sig.r(), sig.s(), u8::from(sig.v()));
        for (y, r, s) in [
            (v, r, s),
            (v ^ 1, r, SECP256K1_N - s),
            (2, r, s),
            (v, U256::ZERO, s),
            (v ^ 1, r, s),
        ] {
            let signed = SignedAuthorization::new_unchecked(auth.clone(), y, r, s);
            let reference = signed
                .recover_authority()
                .map_or(RecoveredAuthority::Invalid, RecoveredAuthority::Valid);
            let ours = recover_authority(&signed);
            assert_eq!(ours, reference, "y {y}, r {r}, s {s}");
            valid += usize::from(matches!(ours, RecoveredAuthority::Valid(_)));
        }
    }
    assert!(valid >= 8, "{valid} valid");
}

/// Every EEST `MODEXP` blockchain test (EIP-198's vectors under Prague and Osaka, EIP-7883's
/// thresholds, EIP-7823's bounds with their 1,024-byte operands, the fork transition: 129
/// cases) through both guests in the VM: each block reveals the native run's public values,
/// and the native run matches the fixture's post-state, where the contracts store each
/// call's output. So every result the chips computed, 33- to 1,024-byte moduli included, is
/// the one the fixture expects.
#[test]
fn in_the_vm_every_eest_modexp_test_passes() {
    let root = tests::shared_blocks_dir().join("../ef-tests-eest/blockchain_tests_devnet");
    let dirs = [
        "for_prague/byzantium/eip198_modexp_precompile",
        "for_prague/osaka/eip7883_modexp_gas_increase",
        "for_osaka/byzantium/eip198_modexp_precompile",
        "for_osaka/osaka/eip7823_modexp_upper_bounds",
        "for_osaka/osaka/eip7883_modexp_gas_increase",
        "for_praguetoosakaattime15k/osaka/eip7823_modexp_upper_bounds",
    ];
    let paths: Vec<_> = dirs.iter().map(|d| root.join(d)).collect();
    let files = host::ef_tests::fixtures::discover(&paths).unwrap();
    let cases = host::ef_tests::vm::sample(&files, usize::MAX);
    assert!(cases.len() >= 129, "{} cases", cases.len());
    let sample = host::ef_tests::vm::run_sample(&cases).unwrap_or_else(|e| panic!("{e}"));
    assert!(sample.failures.is_empty(), "{:#?}", sample.failures);
    assert!(sample.over_budget.is_empty(), "{:#?}", sample.over_budget);
    assert!(
        sample.valid_blocks >= 129,
        "{} valid blocks",
        sample.valid_blocks
    );
}
