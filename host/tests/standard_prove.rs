//! An invalid block has a proof: the standard guest (EIP-8025) ends normally on it and reveals
//! `false`, so `host prove --stateless-input` proves it and the proof verifies to that result.
//! Here the EF blockchain test `wrongStateRoot_Cancun` (a block whose header claims another
//! post-state root than its execution gives), fed to the standard guest as the bytes
//! `host ef-tests` builds for it, is proved (the app proof: one STARK per segment; the
//! aggregated proof and `host verify`'s `INVALID (proved)` are measured in BENCHMARKS.md) and
//! verified against the guest rebuilt from source; a claim of `true` over that proof is
//! refused. `host verify` says what the proof binds (schema, chain id, request root) and
//! accepts its verdict only for the request and fork the caller names: `INVALID (proved)`
//! (exit 4) for the named request, OTHER CHAIN (2) under another chain, NOT THE REQUEST ASKED
//! (6) under another fork, UNCHECKED (5) when nothing is named; `--json` carries every field.
//! An Amsterdam block (schema 0x1501, from the EEST Amsterdam corpus) is proved `false` the
//! same way, and verified.

mod support;

use program::standard::{validate, StandardError};
use program::ValidationError;
use prover::guest::Keccak;
use prover::proof::{self, Limits, ProofError, ProofKind, StandardProofError};
use stateless_ssz::Sha2Hasher;

/// One prover at a time: two at once would need twice the memory.
static ONE_PROVER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The standard input bytes of the rejected block of case `case` in `file` (relative to
/// `../shared/blocks`), which `host ef-tests` builds for it.
fn rejected_block_input(file: &str, case: &str) -> Vec<u8> {
    let shared = std::env::var_os("SHARED_BLOCKS_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/blocks"),
        std::path::PathBuf::from,
    );
    let mut input = None;
    let results =
        host::ef_tests::run_file_cases(&shared.join(file), |name| name == case, &mut |block| {
            if block.result.is_err() {
                input = block.standard.ours.map(<[u8]>::to_vec);
            }
        });
    assert_eq!(results.len(), 1);
    assert!(
        matches!(results[0].outcome, host::ef_tests::Outcome::Passed),
        "{:?}",
        results[0].outcome
    );
    input.expect("the rejected block has standard input bytes")
}

/// The app proof of the standard guest on `bytes` (one prover at a time), checked to prove
/// `expected`, the native result.
fn prove_app(
    bytes: &[u8],
    label: &str,
    expected: &stateless_ssz::StatelessValidationResult,
) -> proof::ProofFile {
    let _one = ONE_PROVER.lock().unwrap_or_else(|e| e.into_inner());
    let (file, report, proved) =
        proof::prove_standard(bytes, Keccak::Ours, Limits::for_proving(21), ProofKind::App)
            .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "{label}, standard guest: {} segment(s) proved in {:.1} s",
        file.segments,
        report.total.as_secs_f64()
    );
    assert_eq!(&proved, expected);
    file
}

/// The standard input bytes of the one block of `wrongStateRoot_Cancun`.
fn invalid_block_input() -> Vec<u8> {
    rejected_block_input(
        "../ef-tests/BlockchainTests/InvalidBlocks/bcInvalidHeaderTest/wrongStateRoot.json",
        "wrongStateRoot_Cancun",
    )
}

/// An Amsterdam block proved through the standard guest (schema 0x1501: the payload with its
/// block access list and slot number, the builder's requests): the EEST case whose block
/// admits a transaction on its gas after refunds, which EIP-7778 counts before them
/// (`GAS_USED_OVERFLOW`). Its input is proved (the app proof), verified against the standard
/// guest rebuilt from source, and proves the native result: `false`, under Amsterdam.
#[test]
fn an_amsterdam_block_is_proved_false_through_the_standard_guest() {
    let bytes = rejected_block_input(
        "../ef-tests-amsterdam/eip7778_block_gas_accounting_without_refunds/gas_accounting/extra_tx_admission_uses_pre_refund_gas.json.gz",
        "tests/amsterdam/eip7778_block_gas_accounting_without_refunds/test_gas_accounting.py::test_extra_tx_admission_uses_pre_refund_gas[fork_Amsterdam-refund_type_RefundTypes.STORAGE_CLEAR-blockchain_test-]",
    );
    let native = validate(&bytes, &Sha2Hasher);
    assert!(!native.result.successful_validation);
    assert_eq!(
        native.result.schema_id,
        stateless_ssz::Fork::Amsterdam.schema_id()
    );
    assert!(
        matches!(
            native.error(),
            Some(StandardError::Validation(
                ValidationError::BlockGasExceeded { .. }
            ))
        ),
        "{:?}",
        native.error()
    );
    let file = prove_app(
        &bytes,
        "extra_tx_admission_uses_pre_refund_gas (Amsterdam)",
        &native.result,
    );
    let verified = proof::verify_standard(&file, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(verified, native.result);
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

    let file = prove_app(&bytes, "wrongStateRoot_Cancun", &native.result);

    // Through a file, and verified against the guest rebuilt from source.
    let path = std::env::temp_dir().join(format!("standard-invalid-{}.proof", std::process::id()));
    proof::write(&path, &file).unwrap();
    let mut file = proof::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let verified = proof::verify_standard(&file, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(verified, native.result);
    assert!(!verified.successful_validation);
    cli_binds_the_request(&file, &bytes, &native.result);

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

/// `host verify --rebuild` of the proof: what it binds, judged against what the caller names.
fn cli_binds_the_request(
    file: &proof::ProofFile,
    input: &[u8],
    result: &stateless_ssz::StatelessValidationResult,
) {
    use support::cli::host_status;
    let dir = std::env::temp_dir().join(format!("standard-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("invalid.proof");
    proof::write(&path, file).unwrap();
    let proof_path = path.to_str().unwrap();
    let root = format!(
        "0x{}",
        alloy_primitives::hex::encode(result.new_payload_request_root)
    );
    assert_eq!(result.schema_id, stateless_ssz::Fork::Cancun.schema_id());
    assert_eq!(result.chain_id, 1);
    let verify = |extra: &[&str]| {
        let mut args = vec!["verify", proof_path, "--rebuild"];
        args.extend_from_slice(extra);
        host_status(&args)
    };

    // Nothing named: what the proof says, never VALID or INVALID, exit 5.
    let (code, stdout) = verify(&[]);
    assert_eq!(code, Some(5), "{stdout}");
    assert!(
        stdout.contains("UNCHECKED")
            && stdout.contains(&root)
            && stdout.contains("Cancun")
            && !stdout.contains("block VALID")
            && !stdout.contains("block INVALID"),
        "{stdout}"
    );
    // The request and fork it was made for, on mainnet's chain id: invalid, proved; exit 4.
    let json = dir.join("verify.json");
    let (code, stdout) = verify(&[
        "--schema",
        "cancun",
        "--request-root",
        &root,
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(4), "{stdout}");
    assert!(stdout.contains("block INVALID (proved)"), "{stdout}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["verdict"], "invalid");
    assert_eq!(report["exit"], 4);
    assert_eq!(report["proof_verified"], true);
    assert_eq!(report["result"]["successful_validation"], false);
    assert_eq!(report["result"]["new_payload_request_root"], root.as_str());
    assert_eq!(report["result"]["schema"], "Cancun");
    assert_eq!(report["result"]["schema_id"], 0x1001);
    assert_eq!(report["result"]["chain_id"], 1);
    assert_eq!(report["expected"]["request_root"], root.as_str());
    assert_eq!(report["chain_id"], 1);
    // The same under another chain: exit 2.
    let (code, stdout) = verify(&[
        "--schema",
        "0x1001",
        "--request-root",
        &root,
        "--chain",
        "sepolia",
    ]);
    assert_eq!(code, Some(2), "{stdout}");
    assert!(stdout.contains("OTHER CHAIN"), "{stdout}");
    // Under another fork's rules, or about another request: exit 6.
    let (code, stdout) = verify(&["--schema", "prague", "--request-root", &root]);
    assert_eq!(code, Some(6), "{stdout}");
    assert!(
        stdout.contains("NOT THE REQUEST ASKED") && stdout.contains("Prague"),
        "{stdout}"
    );
    let other_root = format!("0x{}", "11".repeat(32));
    let (code, stdout) = verify(&["--schema", "cancun", "--request-root", &other_root]);
    assert_eq!(code, Some(6), "{stdout}");
    assert!(stdout.contains(&other_root[2..]), "{stdout}");
    // A request file: the stateless input itself. Its payload is block 1 of a chain where
    // Cancun is active from genesis; under mainnet's schedule that block has no stateless
    // schema, so it names no expectation (an error, exit 2), never a verdict.
    let request = dir.join("input.ssz");
    std::fs::write(&request, input).unwrap();
    let (code, stdout) = verify(&["--request", request.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stdout}");
    assert!(!stdout.contains("block "), "{stdout}");
    // Under the test's own chain (chain id 1, Cancun from genesis), the schedule gives Cancun
    // at the payload's timestamp: the request file names what the proof is about; exit 4.
    let chain = dir.join("cancun.chain.json");
    let config = blockgen::genesis_chain_json(1, &["shanghai", "cancun"]);
    std::fs::write(&chain, config.to_string()).unwrap();
    let (code, stdout) = verify(&[
        "--request",
        request.to_str().unwrap(),
        "--chain",
        chain.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(4), "{stdout}");
    assert!(stdout.contains("block INVALID (proved)"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}
