//! Guest instructions and main cells per call of precompiles no block here calls, on the chips:
//! `cargo bench -p tests --bench precompile_calls`. Each operation is run through the
//! `crypto_check` guest once and twice; the difference of the exact metered counts is one
//! call (with the harness' record decoding and comparison, a few hundred
//! instructions). Prints figures; asserts nothing about them beyond the guest agreeing with
//! revm's software.

use alloy_primitives::hex;
use crypto::check::{outcome, write_record, Tag};
use prover::guest::{GuestSpec, Keccak, Program};
use prover::vm::Vm;

/// base length (u16 BE) ‖ exponent length (u16 BE) ‖ base ‖ exponent ‖ modulus.
fn modexp(base: &[u8], exp: &[u8], modulus: &[u8]) -> Vec<u8> {
    let len = |x: &[u8]| u16::try_from(x.len()).unwrap().to_be_bytes();
    [&len(base)[..], &len(exp), base, exp, modulus].concat()
}

fn main() {
    let fp = hex!("12a6330b5d9dc9f81818e811892f902bd23f0824128b2f330c5c7fd0a6a3a4506513270e269e0d37f2a74de452e6b438");
    let fp2 = [fp, hex!("11a22dd91738f7d93d9c172411e20b8f6b0d549b6f03675a1600a35a099950d836f675cc81e74ef5e8e25d940ed90475")]
        .concat();
    let exp32 = [0xa7u8; 32];
    let odd32 = [&[0xc3u8; 31][..], &[0x01]].concat();
    let even32 = [&[0xc3u8; 31][..], &[0x10]].concat();
    let odd16 = [&[0xc3u8; 15][..], &[0x01]].concat();
    // Multi-digit moduli (120-bit digits on the Int256 chip), top bit set, odd.
    let odd = |len: usize| [&[0xc3u8; 1][..], &vec![0x5a; len - 2], &[0x01]].concat();
    let cases: Vec<(&str, Tag, Vec<u8>)> = vec![
        ("`MAP_FP_TO_G1` (0x10)", Tag::Bls12MapFpToG1, fp.to_vec()),
        ("`MAP_FP2_TO_G2` (0x11)", Tag::Bls12MapFp2ToG2, fp2),
        (
            "`MODEXP`, odd 32-byte modulus, 32-byte exponent",
            Tag::Modexp,
            modexp(&[0x5a; 32], &exp32, &odd32),
        ),
        (
            "`MODEXP`, even 32-byte modulus, 32-byte exponent",
            Tag::Modexp,
            modexp(&[0x5a; 32], &exp32, &even32),
        ),
        (
            "`MODEXP`, odd 16-byte modulus, 32-byte exponent",
            Tag::Modexp,
            modexp(&[0x5a; 16], &exp32, &odd16),
        ),
        (
            "`MODEXP`, odd 64-byte modulus, 32-byte exponent",
            Tag::Modexp,
            modexp(&[0x5a; 64], &exp32, &odd(64)),
        ),
        (
            "`MODEXP`, odd 256-byte modulus, `x²`",
            Tag::Modexp,
            modexp(&[0x5a; 256], &[2], &odd(256)),
        ),
        (
            "`MODEXP`, odd 1,024-byte modulus, `x²`",
            Tag::Modexp,
            modexp(&[0x5a; 1024], &[2], &odd(1024)),
        ),
    ];
    let elf = GuestSpec::program(Program::CryptoCheck, Keccak::Ours)
        .build()
        .expect("crypto_check builds");
    let vm = Vm::new(elf, 32).expect("VM");
    println!("| operation | guest instructions per call | main cells per call |\n|---|---:|---:|");
    for (name, tag, input) in cases {
        let want = outcome(&revm::precompile::DefaultCrypto, tag, &input).expect("well-formed");
        let run = |copies: usize| {
            let mut records = Vec::new();
            for _ in 0..copies {
                write_record(&mut records, tag, &input, &want);
            }
            let stats = vm.metered(&records).expect("the chips agree with revm").1;
            (stats.instructions, stats.main_cells)
        };
        let ((i1, c1), (i2, c2)) = (run(1), run(2));
        println!("| {name} | {} | {} |", i2 - i1, c2 - c1);
    }
}
