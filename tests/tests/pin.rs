//! The commitments `host verify` trusts are pinned in `pins/block-guest.json`: rebuilt from
//! source here (the block guest, and the aggregation keys generated afresh, never read from the
//! key cache), they must be exactly the pinned ones. When the guest's code, its dependencies or
//! OpenVM change, `host pin` rewrites the file, and the change shows in review.

use host::proof::pin;

#[test]
fn the_source_builds_the_pinned_commitments() {
    let pinned = pin::Pinned::builtin().unwrap_or_else(|e| panic!("{e}"));
    let computed = pin::compute().unwrap_or_else(|e| panic!("{e}"));
    let differences = pin::differences(&pinned.pin, &computed);
    assert!(
        differences.is_empty(),
        "the source builds other {differences:?} than {} pins (exe {} built, {} pinned): run `host pin`",
        pin::PIN_PATH,
        computed.exe_commit,
        pinned.pin.exe_commit
    );
    // The pin decodes to what it says.
    assert_eq!(pinned.pin.program, "guest");
    assert_eq!(pinned.pin.public_values_len, program::PublicValues::LEN);
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
