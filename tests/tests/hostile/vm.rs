//! A sample of every family on the chips: the `crypto_check` guest (probes) runs each case's
//! `Crypto` call in OpenVM's VM and asserts revm's answer, as `tests/tests/crypto`'s VM test
//! does for the official vectors. The families' native runs are the guest's code on software
//! arithmetic; this checks a few of each on the chips themselves (their field and curve
//! instructions, the SHA-2 and Int256 chips, and secp256k1 recovery's square-root hint). The
//! sample is small (a few cases a family, a handful of pairings), as VM execution is slow.

use crypto::check::{write_record, Tag};
use prover::guest::{GuestSpec, Keccak, Program};
use prover::vm::Vm;

use super::{arith, bls, bn254, guest, p256, reference, rng, secp256k1};

/// The sample: each family's generator with a small count (its own seed, so the sample does
/// not move when a family's count does).
fn sample() -> Vec<(Tag, Vec<u8>)> {
    let mut rng = rng("vm sample");
    let rng = &mut rng;
    let mut cases: Vec<(Tag, Vec<u8>)> = arith::sha256_cases(rng, 6)
        .into_iter()
        .step_by(16)
        .collect();
    cases.extend(arith::modexp_cases(rng, 40));
    cases.extend(arith::blake2f_cases(rng, 8));
    cases.extend(bn254::add_cases(rng, 30));
    cases.extend(bn254::mul_cases(rng, 12));
    cases.extend(bn254::pairing_cases(rng, 4));
    cases.extend(p256::cases(rng, 24));
    cases.extend(bls::g1_add_cases(rng, 24));
    cases.extend(bls::g2_add_cases(rng, 12));
    cases.extend(bls::g1_msm_cases(rng, 6));
    cases.extend(bls::g2_msm_cases(rng, 3));
    cases.extend(bls::pairing_cases(rng, 3));
    cases.extend(bls::map_fp_cases(rng, 6));
    cases.extend(bls::map_fp2_cases(rng, 3));
    cases.extend(bls::kzg_cases(rng, 6));
    cases.extend(secp256k1::vm_cases(rng));
    cases
}

#[test]
fn in_the_vm_a_sample_of_every_family_answers_as_revm_does() {
    let cases = sample();
    let mut records = Vec::new();
    let mut skipped = 0;
    for (tag, input) in &cases {
        let want = reference(*tag, input);
        // The guest asserts equal bytes; a case whose halt differs only in kind from revm's
        // (natively) would fail it for no reason. None does today; they would be counted.
        if *tag != Tag::Ecrecover && guest(*tag, input) != want {
            skipped += 1;
            continue;
        }
        write_record(&mut records, *tag, input, &want);
    }
    assert!(
        skipped * 10 <= cases.len(),
        "{skipped} of {} skipped",
        cases.len()
    );
    let elf = GuestSpec::program(Program::CryptoCheck, Keccak::Ours)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let vm = Vm::new(elf, 32).unwrap_or_else(|e| panic!("{e}"));
    let public = vm.execute(&records).unwrap_or_else(|e| panic!("{e}"));
    let checked = u32::from_le_bytes(public[..4].try_into().unwrap()) as usize;
    assert_eq!(checked, cases.len() - skipped);
    println!("{checked} hostile cases checked in the VM ({skipped} skipped)");
}
