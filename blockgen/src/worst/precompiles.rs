//! The precompile categories: each precompile on valid inputs ([`super::inputs`]), in the
//! shapes that cost the most per gas.

use super::builders::{modexp_min, precompile};
use super::category::Category;
use super::{inputs, WorstError};
use crate::Fork;

/// A precompile category: `|fork| input` is its input under a fork.
macro_rules! pc {
    ($name:literal, $about:literal, $number:expr, |$fork:pat_param| $input:expr, $out:expr, $unroll:expr) => {
        Category {
            name: $name,
            group: "precompile",
            about: $about,
            build: |fork, gas| {
                let piece = |$fork: Fork| -> Result<Vec<u8>, WorstError> { Ok($input) };
                precompile(
                    $name,
                    (fork, gas),
                    $number,
                    (piece(fork)?, 1),
                    $out,
                    $unroll,
                )
            },
        }
    };
}

/// Every precompile category.
pub(super) const PRECOMPILES: &[Category] = &[
    pc!(
        "ecrecover",
        "ECRECOVER of a valid signature",
        1,
        |_| inputs::ecrecover(),
        32,
        4
    ),
    pc!(
        "sha256-32",
        "SHA256 of 32 bytes",
        2,
        |_| vec![0x5a; 32],
        32,
        16
    ),
    pc!(
        "sha256-1k",
        "SHA256 of 1 KiB",
        2,
        |_| vec![0x5a; 1024],
        32,
        4
    ),
    pc!(
        "ripemd160-32",
        "RIPEMD160 of 32 bytes",
        3,
        |_| vec![0x5a; 32],
        32,
        8
    ),
    pc!(
        "ripemd160-1k",
        "RIPEMD160 of 1 KiB",
        3,
        |_| vec![0x5a; 1024],
        32,
        2
    ),
    pc!(
        "identity-32",
        "IDENTITY of 32 bytes",
        4,
        |_| vec![0x5a; 32],
        32,
        16
    ),
    pc!(
        "identity-1k",
        "IDENTITY of 1 KiB",
        4,
        |_| vec![0x5a; 1024],
        1024,
        8
    ),
    pc!(
        "modexp-min-gas",
        "MODEXP, 32-byte odd modulus, the longest exponent at the minimum price",
        5,
        |fork| modexp_min(fork, false)?,
        32,
        4
    ),
    pc!(
        "modexp-min-gas-even",
        "MODEXP, 32-byte even modulus, the longest exponent at the minimum price",
        5,
        |fork| modexp_min(fork, true)?,
        32,
        4
    ),
    pc!(
        "modexp-mod32-exp32",
        "MODEXP, 32-byte base and odd modulus, 32-byte all-ones exponent",
        5,
        |_| inputs::modexp(32, &[0xff; 32], 32, false),
        32,
        1
    ),
    pc!(
        "modexp-even-mod32-exp32",
        "MODEXP, 32-byte even modulus, 32-byte all-ones exponent",
        5,
        |_| inputs::modexp(32, &[0xff; 32], 32, true),
        32,
        1
    ),
    pc!(
        "modexp-mod33-exp32",
        "MODEXP, 33-byte base and odd modulus (the shortest of 3 digits), 32-byte all-ones exponent",
        5,
        |_| inputs::modexp(33, &[0xff; 32], 33, false),
        33,
        1
    ),
    pc!(
        "modexp-mod64-exp64",
        "MODEXP, 64-byte base and odd modulus, 64-byte all-ones exponent (exponent-heavy)",
        5,
        |_| inputs::modexp(64, &[0xff; 64], 64, false),
        64,
        1
    ),
    pc!(
        "modexp-mod256-exp8",
        "MODEXP, 256-byte base and odd modulus, 8-byte exponent",
        5,
        |_| inputs::modexp(256, &[0xff; 8], 256, false),
        256,
        1
    ),
    pc!(
        "modexp-mod1024-exp2",
        "MODEXP, 1,024-byte base and odd modulus (EIP-7823's bound), 2-byte exponent (base-heavy)",
        5,
        |_| inputs::modexp(1024, &[0xff; 2], 1024, false),
        1024,
        1
    ),
    pc!(
        "bn254-add",
        "BN254 ADD of the generator to itself",
        6,
        |_| inputs::bn_add(),
        64,
        8
    ),
    pc!(
        "bn254-mul",
        "BN254 MUL, full-width scalar",
        7,
        |_| inputs::bn_mul(),
        64,
        2
    ),
    pc!(
        "bn254-pairing-1",
        "BN254 PAIRING, one pair",
        8,
        |_| inputs::bn_pairing(1),
        32,
        1
    ),
    pc!(
        "bn254-pairing-8",
        "BN254 PAIRING, eight pairs",
        8,
        |_| inputs::bn_pairing(8),
        32,
        1
    ),
    Category {
        name: "blake2f",
        group: "precompile",
        about: "BLAKE2F, as many rounds per call as a transaction holds (up to 1 M): 1 gas a round",
        build: |fork, gas| {
            let rounds = (gas / 64).clamp(12, 1_000_000) as u32;
            let input = inputs::blake2f(rounds);
            precompile("blake2f", (fork, gas), 9, (input, 1), 64, 1)
        },
    },
    pc!(
        "kzg-point-evaluation",
        "KZG POINT_EVALUATION, a valid opening",
        0x0a,
        |fork| inputs::kzg(fork)?,
        64,
        1
    ),
    pc!(
        "bls12-g1add",
        "BLS12-381 G1ADD",
        0x0b,
        |_| inputs::bls_g1_add(),
        128,
        8
    ),
    Category {
        name: "bls12-g1msm-128",
        group: "precompile",
        about: "BLS12-381 G1MSM of 128 pairs (the largest discount, cheapest per pair)",
        build: |fork, gas| {
            let piece = (inputs::bls_g1_msm_pair(), 128);
            precompile("bls12-g1msm-128", (fork, gas), 0x0c, piece, 128, 1)
        },
    },
    pc!(
        "bls12-g1msm-1",
        "BLS12-381 G1MSM of one pair",
        0x0c,
        |_| inputs::bls_g1_msm_pair(),
        128,
        2
    ),
    pc!(
        "bls12-g2add",
        "BLS12-381 G2ADD",
        0x0d,
        |_| inputs::bls_g2_add(),
        256,
        8
    ),
    Category {
        name: "bls12-g2msm-128",
        group: "precompile",
        about: "BLS12-381 G2MSM of 128 pairs (the largest discount, cheapest per pair)",
        build: |fork, gas| {
            let piece = (inputs::bls_g2_msm_pair(), 128);
            precompile("bls12-g2msm-128", (fork, gas), 0x0e, piece, 256, 1)
        },
    },
    pc!(
        "bls12-g2msm-1",
        "BLS12-381 G2MSM of one pair",
        0x0e,
        |_| inputs::bls_g2_msm_pair(),
        256,
        2
    ),
    pc!(
        "bls12-pairing-1",
        "BLS12-381 PAIRING, one pair",
        0x0f,
        |_| inputs::bls_pairing_pair(),
        32,
        1
    ),
    Category {
        name: "bls12-pairing-8",
        group: "precompile",
        about: "BLS12-381 PAIRING, eight pairs",
        build: |fork, gas| {
            let piece = (inputs::bls_pairing_pair(), 8);
            precompile("bls12-pairing-8", (fork, gas), 0x0f, piece, 32, 1)
        },
    },
    pc!(
        "bls12-map-fp-to-g1",
        "BLS12-381 MAP_FP_TO_G1",
        0x10,
        |_| inputs::bls_map_fp(),
        128,
        2
    ),
    pc!(
        "bls12-map-fp2-to-g2",
        "BLS12-381 MAP_FP2_TO_G2",
        0x11,
        |_| inputs::bls_map_fp2(),
        256,
        1
    ),
    pc!(
        "p256verify",
        "P256VERIFY of a valid signature (Osaka)",
        0x100,
        |_| inputs::p256(),
        32,
        2
    ),
];
