//! The commitments `host verify` trusts are pinned in `pins/block-guest.json` and
//! `pins/standard-guest.json`: rebuilt from source here (each guest, and the aggregation keys
//! generated afresh, never read from the key cache), they must be exactly the pinned ones. When the guest's code, its dependencies or
//! OpenVM change, `host pin` rewrites the file, and the change shows in review.

use prover::guest::{GuestSpec, Keccak, Program};
use prover::proof::pin;

#[test]
fn the_source_builds_the_pinned_commitments() {
    for (program, file) in pin::PINNED {
        let pinned = pin::Pinned::builtin(program).unwrap_or_else(|e| panic!("{e}"));
        let computed = pin::compute(program).unwrap_or_else(|e| panic!("{e}"));
        let differences = pin::differences(&pinned.pin, &computed);
        assert!(
            differences.is_empty(),
            "the source builds other {differences:?} than {file} pins (exe {} built, {} pinned): run `host pin`",
            computed.exe_commit,
            pinned.pin.exe_commit
        );
        // The pin decodes to what it says.
        assert_eq!(pinned.pin.program, program.bin());
        assert_eq!(
            pinned.pin.public_values_len,
            GuestSpec::program(program, Keccak::Ours).public_values()
        );
    }
    assert_eq!(
        pin::Pinned::builtin(Program::Guest)
            .unwrap()
            .pin
            .public_values_len,
        program::PublicValues::LEN
    );
    // A guest that is not pinned has no pin.
    assert!(matches!(
        pin::Pinned::builtin(Program::KeccakAligned),
        Err(prover::proof::ProofError::NotPinned { subject }) if subject == "keccak_aligned"
    ));
}

/// Any edit of the pin's baseline or key is refused or changes what it accepts: a pin whose
/// program commitment disagrees with its baseline does not load.
#[test]
fn a_pin_that_contradicts_itself_does_not_load() {
    let text = include_str!("../../pins/block-guest.json");
    let mut json: serde_json::Value = serde_json::from_str(text).unwrap();
    let exe = json["exe_commit"].as_str().unwrap().to_owned();
    let flipped = format!(
        "{}{}",
        &exe[..exe.len() - 1],
        if exe.ends_with('0') { '1' } else { '0' }
    );
    json["exe_commit"] = flipped.into();
    assert_refused(&json, "the baseline's program commitment is not exe_commit");
    json["exe_commit"] = exe.into();
    assert!(pin::Pinned::parse(&json.to_string()).is_ok());
    json["agg_vk"] = "00".into();
    assert_refused(&json, "aggregation verifying key: ");
}

fn assert_refused(json: &serde_json::Value, why: &str) {
    match pin::Pinned::parse(&json.to_string()) {
        Err(prover::proof::ProofError::File { reason, .. }) => {
            assert!(reason.contains(why), "{reason}")
        }
        Err(e) => panic!("refused for another reason: {e}"),
        Ok(_) => panic!("a contradictory pin loaded"),
    }
}

/// The final proof's own STARK is made at OpenVM's 100-bit target.
#[test]
fn the_pinned_aggregation_key_is_at_100_bits() {
    for (program, _) in pin::PINNED {
        let bits = pin::Pinned::builtin(program).unwrap().security_bits();
        println!("{}: {bits:.2} bits", program.bin());
        assert!(bits >= 100.0, "{}: {bits}", program.bin());
    }
}

/// Verifying against source (`host verify --rebuild`, `--other-program`, `host cluster wait`
/// beyond the pins: all [`proof::Verifier::new`]) generates the aggregation keys from source and
/// never reads the prover's key cache: with another VM's keys planted under this VM's cache
/// file, the verifier's baseline is still exactly the pinned one. Its keys give every layer
/// (app, leaf, internal) at least 100 bits, not only the final key.
#[test]
fn verifying_against_source_ignores_a_planted_key_cache() {
    use prover::proof::{self, agg, Limits, Subject};
    let dir = std::env::temp_dir().join(format!("sv-planted-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // This process's key cache (no other test here reads it).
    std::env::set_var("STATELESS_VERIFIER_KEYS", &dir);
    let spec = GuestSpec::program(Program::Guest, Keccak::Ours);
    let (subject, _) = Subject::of(spec, Limits::for_proving(pin::PINNED_LOG_STACKED_HEIGHT))
        .unwrap_or_else(|e| panic!("{e}"));
    // Another VM's keys (32 public values), of the right format, planted as this VM's.
    let (_, other) = agg::agg_sdk(32, subject.log_stacked_height, subject.segment_memory)
        .unwrap_or_else(|e| panic!("{e}"));
    let ours = agg::keys_path_for(
        subject.public_values_len,
        subject.log_stacked_height,
        subject.segment_memory,
    )
    .unwrap();
    assert_ne!(other.path, ours);
    std::fs::rename(&other.path, &ours).unwrap();
    let planted = std::fs::read(&ours).unwrap();

    let verifier =
        proof::Verifier::new(&subject, proof::ProofKind::Stark).unwrap_or_else(|e| panic!("{e}"));
    let pinned = pin::Pinned::builtin(Program::Guest).unwrap();
    assert_eq!(
        encode(verifier.baseline().unwrap()),
        encode(&pinned.baseline),
        "the verifier's baseline is not the pinned one: it read the planted keys"
    );
    assert_eq!(
        std::fs::read(&ours).unwrap(),
        planted,
        "the cache was rewritten"
    );

    let security = verifier.security().unwrap();
    println!("security: {security:?}");
    assert!(security.min() >= 100.0, "{security:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn encode<T: serde::Serialize>(value: &T) -> Vec<u8> {
    bitcode::serialize(value).unwrap()
}
