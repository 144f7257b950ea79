//! The commitments `host verify` trusts are pinned in `pins/block-guest.json` and
//! `pins/standard-guest.json`: rebuilt from source here (each guest, and the aggregation keys
//! generated afresh, never read from the key cache), they must be exactly the pinned ones. When the guest's code, its dependencies or
//! OpenVM change, `host pin` rewrites the file, and the change shows in review.

use host::guest::{GuestSpec, Keccak, Program};
use host::proof::pin;

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
    assert!(pin::Pinned::builtin(Program::KeccakAligned).is_err());
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
    assert!(pin::Pinned::parse(&json.to_string()).is_err());
    json["exe_commit"] = exe.into();
    assert!(pin::Pinned::parse(&json.to_string()).is_ok());
    json["agg_vk"] = "00".into();
    assert!(pin::Pinned::parse(&json.to_string()).is_err());
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
