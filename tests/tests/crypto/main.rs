//! The guest's accelerated cryptography (`crypto::OpenVmPrecompiles`) against revm's own
//! software implementation (`DefaultCrypto`), on official vectors and seeded random inputs:
//! natively (the field macros' software path) and in the VM (the chips, guest
//! `crypto_check`).

use alloy_primitives::{hex, Signature, U256};
use crypto::check::{outcome, write_record, Tag};
use prover::guest::{GuestSpec, Keccak, Program};
use prover::vm::Vm;
use rand::{rngs::SmallRng, Rng, SeedableRng};

mod bn254_pairing;
mod cases;
mod eip2537;
mod kzg;
mod modexp;

use cases::*;

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
        // Hashes and BLAKE2's compression take any input.
        if !matches!(tag, Tag::Sha256 | Tag::Blake2f) {
            assert!(
                of_tag.iter().any(|e| e[0] == 0 || e[1..] == [0]),
                "{tag:?}: no failure"
            );
        }
    }
}

/// Natively: every case, secp256k1 recovery included (the host computes the square root the
/// VM hints).
#[test]
fn natively_the_accelerated_paths_answer_as_revm_does() {
    let cases = cases();
    for (k, ((tag, input), want)) in cases.iter().zip(expected(&cases)).enumerate() {
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

/// One `BLAKE2F` call of 5,000,000 rounds, metered in the VM: every segment stays within the
/// proving-memory cap that ends segments, and the round chip has exactly one row per round.
/// OpenVM checks a segment's limits only every 1,000 instructions; the guest's calls of 1,000
/// rounds keep what such a window adds small. With calls of 65,530 rounds, one window added
/// millions of round rows, past any segment's limits: the block could not have been proved.
#[test]
fn a_long_blake2f_call_fits_its_segments() {
    const ROUNDS: u32 = 5_000_000;
    let mut input = ROUNDS.to_be_bytes().to_vec();
    input.extend((0..208u32).map(|i| (i * 37 + 11) as u8));
    input.push(1);
    let want = outcome(&revm::precompile::DefaultCrypto, Tag::Blake2f, &input).unwrap();
    let mut records = Vec::new();
    write_record(&mut records, Tag::Blake2f, &input, &want);
    let elf = GuestSpec::program(Program::CryptoCheck, Keccak::Ours)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let vm = Vm::new(elf, 32).unwrap_or_else(|e| panic!("{e}"));
    let (_, metering) = vm.metered(&records).unwrap_or_else(|e| panic!("{e}"));
    let cap = prover::vm::default_segment_memory() as u64;
    for (i, segment) in metering.segments.iter().enumerate() {
        assert!(
            segment.memory_bytes <= cap,
            "segment {i}: {} bytes estimated, over the {cap}-byte cap",
            segment.memory_bytes
        );
    }
    let rounds = metering
        .airs
        .iter()
        .find(|air| air.name == "Blake2bRoundAir")
        .map(|air| air.rows);
    assert_eq!(rounds, Some(u64::from(ROUNDS)));
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
