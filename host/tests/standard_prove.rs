//! An invalid block has a proof: the standard guest (EIP-8025) ends normally on it and reveals
//! `false`, so `host prove --stateless-input` proves it and the proof verifies to that result.
//! Here the EF blockchain test `wrongStateRoot_Cancun` (a block whose header claims another
//! post-state root than its execution gives), fed to the standard guest as the bytes
//! `host ef-tests` builds for it, is proved (the app proof: one STARK per segment; the
//! aggregated proof and `host verify`'s `INVALID (proved)` are measured in BENCHMARKS.md) and
//! verified against the guest rebuilt from source; a claim of `true` over that proof is
//! refused.

use host::guest::Keccak;
use host::proof::{self, Limits, ProofError, ProofKind, StandardProofError};
use program::standard::{validate, StandardError};
use program::ValidationError;
use stateless_ssz::Sha2Hasher;

/// The standard input bytes of the one block of `wrongStateRoot_Cancun`.
fn invalid_block_input() -> Vec<u8> {
    let file = tests::shared_blocks_dir()
        .join("../ef-tests/BlockchainTests/InvalidBlocks/bcInvalidHeaderTest/wrongStateRoot.json");
    let mut input = None;
    let results = host::ef_tests::run_file_cases(
        &file,
        |name| name == "wrongStateRoot_Cancun",
        &mut |block| {
            if block.result.is_err() {
                input = block.standard.ours.map(<[u8]>::to_vec);
            }
        },
    );
    assert_eq!(results.len(), 1);
    assert!(
        matches!(results[0].outcome, host::ef_tests::Outcome::Passed),
        "{:?}",
        results[0].outcome
    );
    input.expect("the rejected block has standard input bytes")
}

#[test]
fn an_invalid_block_is_proved_false_and_the_proof_verifies() {
    let bytes = invalid_block_input();
    let native = validate(&bytes, &Sha2Hasher);
    assert!(!native.result.successful_validation);
    assert!(
        matches!(
            native.error(),
            Some(StandardError::Validation(ValidationError::StateRoot { .. }))
        ),
        "{:?}",
        native.error()
    );

    let (file, report, proved) = proof::prove_standard(
        &bytes,
        Keccak::Ours,
        Limits::for_proving(21),
        ProofKind::App,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "wrongStateRoot_Cancun, standard guest: {} segment(s) proved in {:.1} s",
        file.segments,
        report.total.as_secs_f64()
    );
    assert_eq!(proved, native.result);

    // Through a file, and verified against the guest rebuilt from source.
    let path = std::env::temp_dir().join(format!("standard-invalid-{}.proof", std::process::id()));
    proof::write(&path, &file).unwrap();
    let mut file = proof::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let verified = proof::verify_standard(&file, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(verified, native.result);
    assert!(!verified.successful_validation);

    // The pinned verifier takes aggregated proofs only.
    assert!(matches!(
        proof::verify_standard(&file, false),
        Err(StandardProofError::Proof(ProofError::NotPinned { .. }))
    ));

    // The same proof claimed as `true`: the file's claim is not what the proof commits to.
    file.public_values[32] = 1;
    assert!(matches!(
        proof::verify_standard(&file, true),
        Err(StandardProofError::Proof(ProofError::PublicValues { .. }))
    ));
}
