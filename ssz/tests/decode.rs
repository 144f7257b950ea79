//! Decoding input bytes: every fork's shape round-trips; malformed bytes (short input, a schema
//! id for another fork or none, bad offsets, lists and byte lists over their limits, trailing
//! bytes) are refused with an error, never a panic; and seeded random corruptions of a valid
//! input either fail or decode to an input that encodes back to the very same bytes. The
//! guest's decoders, the zero-copy view ([`InputView`]) and the stream ([`InputStream`], read
//! front to back) agree with `libssz`'s on every one of these inputs, and on inputs whose
//! offsets are corrupted: the same error, or the same input.

mod support;

use libssz::SszEncode;
use libssz_derive::{HashTreeRoot, SszDecode, SszEncode};
use libssz_types::{ProgressiveList, SszList};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use stateless_ssz::*;
use support::input;

#[test]
fn every_fork_round_trips_under_its_schema_id() {
    let mut rng = SmallRng::seed_from_u64(1);
    for fork in Fork::ALL {
        let original = input(&mut rng, fork);
        let encoded = encode_input(&original);
        assert_eq!(
            u16::from_be_bytes([encoded[0], encoded[1]]),
            fork.schema_id()
        );
        let decoded = decode_input(&encoded).unwrap();
        assert_eq!(decoded, original, "{}", fork.name());
        assert!(decoded.shape_matches());
    }
}

#[test]
fn malformed_input_is_refused() {
    let mut rng = SmallRng::seed_from_u64(2);
    let osaka = encode_input(&input(&mut rng, Fork::Osaka));
    assert_eq!(decode_input(&[]), Err(InputError::Short(0)));
    assert_eq!(decode_input(&[0x12]), Err(InputError::Short(1)));
    let empty = decode_input(&[0x12, 0x01]).unwrap_err().to_string();
    assert!(empty.contains("Osaka"), "{empty}");
    // Bogota, another revision, no fork.
    for id in [0x1601u16, 0x1502, 0x1202, 0x0001] {
        let mut bytes = osaka.clone();
        bytes[..2].copy_from_slice(&id.to_be_bytes());
        assert_eq!(decode_input(&bytes), Err(InputError::Schema(id)));
    }
    // Another fork's schema id over Osaka's shape: Cancun's request has no requests field,
    // Shanghai's payload no blob gas.
    for fork in [Fork::Amsterdam, Fork::Cancun, Fork::Shanghai, Fork::Paris] {
        let mut bytes = osaka.clone();
        bytes[..2].copy_from_slice(&fork.schema_id().to_be_bytes());
        assert!(
            matches!(decode_input(&bytes), Err(InputError::Ssz { .. })),
            "{}",
            fork.name()
        );
    }
    // A byte after the container.
    let mut bytes = osaka.clone();
    bytes.push(0);
    assert!(matches!(decode_input(&bytes), Err(InputError::Ssz { .. })));
    // The first offset (the request's) pointing elsewhere, and past the end.
    for offset in [0u32, 19, osaka.len() as u32 + 10] {
        let mut bytes = osaka.clone();
        bytes[2..6].copy_from_slice(&offset.to_le_bytes());
        assert!(
            matches!(decode_input(&bytes), Err(InputError::Ssz { .. })),
            "{offset}"
        );
    }
    // Truncated anywhere.
    for cut in [3, 10, osaka.len() / 2, osaka.len() - 1] {
        assert!(decode_input(&osaka[..cut]).is_err(), "{cut}");
    }
}

/// The witness with every limit raised, to write what the real one must refuse.
#[derive(SszEncode, SszDecode, HashTreeRoot)]
struct LooseWitness {
    state: ProgressiveList<SszList<u8, 4096>>,
    codes: ProgressiveList<SszList<u8, 200_000>>,
    headers: SszList<SszList<u8, 4096>, 1024>,
}

#[derive(SszEncode, SszDecode, HashTreeRoot)]
struct LooseInput {
    new_payload_request: NewPayloadRequestV4,
    witness: LooseWitness,
    chain_id: u64,
    public_keys: ProgressiveList<[u8; 65]>,
}

fn loose(state: usize, code: usize, header: usize, headers: usize) -> Vec<u8> {
    let mut rng = SmallRng::seed_from_u64(3);
    let NewPayloadRequest::V4(request) = input(&mut rng, Fork::Prague).new_payload_request else {
        unreachable!()
    };
    let whole = LooseInput {
        new_payload_request: request,
        witness: LooseWitness {
            state: vec![vec![1u8; state].try_into().unwrap()].into(),
            codes: vec![vec![2u8; code].try_into().unwrap()].into(),
            headers: vec![vec![3u8; header].try_into().unwrap(); headers]
                .try_into()
                .unwrap(),
        },
        chain_id: 1,
        public_keys: Default::default(),
    };
    let mut out = Fork::Prague.schema_id().to_be_bytes().to_vec();
    whole.ssz_append(&mut out);
    out
}

#[test]
fn lists_over_their_limits_are_refused() {
    assert!(decode_input(&loose(1024, 65536, 1024, 256)).is_ok());
    for (what, bytes) in [
        ("a 1,025-byte trie node", loose(1025, 1, 1, 1)),
        ("a 65,537-byte code", loose(1, 65537, 1, 1)),
        ("a 1,025-byte header", loose(1, 1, 1025, 1)),
        ("257 headers", loose(1, 1, 1, 257)),
    ] {
        assert!(
            matches!(decode_input(&bytes), Err(InputError::Ssz { .. })),
            "{what} was accepted"
        );
    }
}

#[test]
fn corrupted_input_fails_or_round_trips_never_panics() {
    let mut rng = SmallRng::seed_from_u64(8025);
    let mut decoded_ok = 0;
    for round in 0..3000 {
        let fork = Fork::ALL[round % Fork::ALL.len()];
        let mut bytes = encode_input(&input(&mut rng, fork));
        for _ in 0..rng.random_range(1..4) {
            let at = rng.random_range(0..bytes.len());
            match rng.random_range(0..4) {
                0 => bytes[at] ^= 1 << rng.random_range(0..8),
                1 => bytes[at] = rng.random(),
                2 => bytes.truncate(at.max(1)),
                _ => bytes.insert(at, rng.random()),
            }
        }
        assert_views_agree(&bytes, &format!("corruption {round}"));
        if let Ok(decoded) = decode_input(&bytes) {
            decoded_ok += 1;
            assert_eq!(
                encode_input(&decoded),
                bytes,
                "round {round}: not canonical"
            );
        }
    }
    // Most corruptions land in byte contents, which still decode.
    assert!(decoded_ok > 100, "{decoded_ok}");
}

/// The view decoder's answer as `decode_input`'s: the same error, or the same input.
fn assert_views_agree(bytes: &[u8], what: &str) {
    let view = InputView::decode(bytes).map(|v| v.to_owned());
    let reference = decode_input(bytes);
    assert_eq!(view, reference, "{what}: the view");
    assert_eq!(decode_streamed(bytes), reference, "{what}: the stream");
}

fn word(bytes: &[u8], at: usize) -> usize {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize
}

/// Where a valid input's offsets are: the outer container's three, the witness's three, and
/// each of its lists' tables.
fn offset_positions(bytes: &[u8]) -> Vec<usize> {
    let mut at = vec![2, 6, 18];
    let witness = 2 + word(bytes, 6);
    let witness_end = 2 + word(bytes, 18);
    at.extend([witness, witness + 4, witness + 8]);
    let lists = [0, 4, 8].map(|k| witness + word(bytes, witness + k));
    for (k, &start) in lists.iter().enumerate() {
        let end = lists.get(k + 1).copied().unwrap_or(witness_end);
        if end > start {
            at.extend((0..word(bytes, start) / 4).map(|j| start + 4 * j));
        }
    }
    at
}

#[test]
fn the_view_decoder_agrees_with_libssz() {
    let mut rng = SmallRng::seed_from_u64(7916);
    let mut accepted = 0;
    for round in 0..4000 {
        let fork = Fork::ALL[round % Fork::ALL.len()];
        let valid = encode_input(&input(&mut rng, fork));
        assert_views_agree(&valid, "a valid input");
        let offsets = offset_positions(&valid);
        let mut bytes = valid.clone();
        for _ in 0..rng.random_range(1..3) {
            let len = bytes.len();
            if rng.random_bool(0.6) {
                // An offset replaced by a near value, an edge, or another offset's value.
                let at = offsets[rng.random_range(0..offsets.len())];
                if at + 4 > len {
                    continue;
                }
                let old = word(&bytes, at) as i64;
                let other = word(&valid, offsets[rng.random_range(0..offsets.len())]) as i64;
                let value = match rng.random_range(0..5) {
                    0 => old + rng.random_range(-5..=5),
                    1 => [0, 1, 4, 12, 20, u32::MAX as i64][rng.random_range(0..6)],
                    2 => len as i64 - 2 + rng.random_range(-1..=1),
                    3 => other,
                    _ => rng.random::<u32>() as i64,
                };
                bytes[at..at + 4].copy_from_slice(&(value as u32).to_le_bytes());
            } else {
                let at = rng.random_range(0..len);
                match rng.random_range(0..3) {
                    0 => bytes[at] = rng.random(),
                    1 => bytes.truncate(at.max(1)),
                    _ => bytes.insert(at, rng.random()),
                }
            }
        }
        assert_views_agree(&bytes, &format!("round {round}"));
        accepted += usize::from(decode_input(&bytes).is_ok());
    }
    // Both outcomes are exercised.
    assert!((100..3900).contains(&accepted), "{accepted} accepted");
    for (what, bytes) in [
        ("limits", loose(1024, 65536, 1024, 256)),
        ("a 1,025-byte trie node", loose(1025, 1, 1, 1)),
        ("a 65,537-byte code", loose(1, 65537, 1, 1)),
        ("a 1,025-byte header", loose(1, 1, 1025, 1)),
        ("257 headers", loose(1, 1, 1, 257)),
    ] {
        assert_views_agree(&bytes, what);
    }
    for short in [&[][..], &[0x12], &[0x12, 0x01], &[0x15, 0x01, 0, 0]] {
        assert_views_agree(short, "short");
    }
}
