//! The standard guest (EIP-8025) on the EF corpora, natively: on every block's own standard
//! input it must agree with the block guest, and where a fixture carries
//! `statelessInputBytes` its result must be the fixture's `statelessOutputBytes`, byte for byte.
//! The VM sample (`--vm`, [`super::vm`]) runs both inputs in the standard guest as well.

use program::{ChainConfig, ExecutionWitness, ValidationError};

/// A block's own standard input and the standard guest's result on it, natively.
pub(crate) struct StandardCheck {
    /// The input bytes.
    pub bytes: Vec<u8>,
    /// Whether the result is `true` and the bytes decode back to the input.
    pub valid: bool,
}

/// The standard guest on the block's standard input bytes, natively (`None`: the block has
/// none; a valid block's bytes that do not decode back to its input count as `false`). Its
/// execution requests are those the block guest's run produced (none when it failed), its
/// block access list the one execution built (the fixture's when it failed), and a
/// signature that recovers no key gets a zero key: the input of a block that is not valid must
/// be `false` whatever it holds.
pub(crate) fn agrees(
    rlp: &[u8],
    witness: &ExecutionWitness,
    chain: &ChainConfig,
    result: &Result<program::ValidBlock<'_>, ValidationError>,
    fixture_list: Option<&[alloy_eips::eip7928::AccountChanges]>,
) -> Option<StandardCheck> {
    let none = alloy_eips::eip7685::Requests::default();
    let requests = result.as_ref().map_or(&none, |v| &v.requests);
    // Amsterdam: the list execution built, or for a block that is not valid the fixture's.
    let access_list = match result {
        Ok(valid) => valid.access_list.as_deref(),
        Err(_) => fixture_list,
    };
    let produced = prover::standard::Produced {
        requests,
        access_list,
    };
    let input = prover::standard::stateless_input_with(rlp, witness, chain, produced, true).ok()?;
    // Through the bytes, as a guest reads them: they must decode back to the input.
    let bytes = stateless_ssz::encode_input(&input);
    let round_trips = stateless_ssz::decode_input(&bytes).as_ref() == Ok(&input);
    let out = program::standard::validate(&bytes, &stateless_ssz::Sha2Hasher);
    Some(StandardCheck {
        valid: out.result.successful_validation && round_trips,
        bytes,
    })
}

/// A fixture's `statelessInputBytes` and `statelessOutputBytes`, decoded.
pub(crate) type FixtureBytes = (Vec<u8>, Vec<u8>);

/// Checks a fixture's `statelessOutputBytes` against the standard guest's result on its
/// `statelessInputBytes` (both hex), natively, and returns both decoded; nothing to check when
/// the fixture carries neither.
pub(crate) fn fixture_bytes(
    input: Option<&str>,
    output: Option<&str>,
) -> Result<Option<FixtureBytes>, String> {
    let (input, output) = match (input, output) {
        (None, None) => return Ok(None),
        (Some(i), Some(o)) => (i, o),
        _ => return Err("statelessInputBytes and statelessOutputBytes come together".into()),
    };
    let hex = |what: &str, text: &str| {
        alloy_primitives::hex::decode(text).map_err(|e| format!("{what} is not hex: {e}"))
    };
    let (input, expected) = (
        hex("statelessInputBytes", input)?,
        hex("statelessOutputBytes", output)?,
    );
    let out = program::standard::validate(&input, &stateless_ssz::Sha2Hasher);
    let got = out.result.to_bytes();
    if got[..] != expected[..] {
        return Err(format!(
            "the standard guest's result 0x{} is not the fixture's statelessOutputBytes 0x{}{}",
            alloy_primitives::hex::encode(got),
            alloy_primitives::hex::encode(&expected),
            out.error()
                .map_or(String::new(), |e| format!(" ({}: {e})", e.verdict().name()))
        ));
    }
    Ok(Some((input, expected)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_bytes_are_checked_byte_for_byte() {
        assert_eq!(fixture_bytes(None, None), Ok(None));
        // Undecodable input: 43 zero bytes, and nothing else.
        let zeros = "00".repeat(43);
        assert_eq!(
            fixture_bytes(Some("0x1201ff"), Some(&zeros)),
            Ok(Some((vec![0x12, 0x01, 0xff], vec![0; 43])))
        );
        let wrong = format!("01{}", "00".repeat(42));
        let err = fixture_bytes(Some("0x1201ff"), Some(&wrong)).unwrap_err();
        assert!(
            err.contains("is not the fixture's statelessOutputBytes"),
            "{err}"
        );
        assert!(fixture_bytes(Some("0x1201"), None).is_err());
        assert!(fixture_bytes(Some("zz"), Some(&zeros))
            .unwrap_err()
            .contains("not hex"));
    }
}
