//! Native validation of the real mainnet blocks.

use std::time::Instant;

use program::{ChainConfig, ValidationError, WitnessError};
use tests::{mainnet_block, MAINNET};

#[test]
fn real_mainnet_blocks_validate() {
    let chain = ChainConfig::mainnet();
    for (number, hash) in &MAINNET[..2] {
        let data = mainnet_block(*number);
        let started = Instant::now();
        let out = program::validate_block(&data.block_rlp, &data.witness, &chain)
            .unwrap_or_else(|e| panic!("block {number}: {e}"));
        println!("block {number}: valid in {:?}: {out:?}", started.elapsed());
        assert_eq!(out.block_hash.to_string(), *hash);
    }
}

#[test]
fn block_without_parent_header_is_rejected_by_name() {
    let data = mainnet_block(23587691);
    let err = program::validate_block(&data.block_rlp, &data.witness, &ChainConfig::mainnet())
        .unwrap_err();
    assert_eq!(err, ValidationError::Witness(WitnessError::NoParentHeader));
    assert!(err.to_string().contains("no parent header"), "{err}");
}

#[test]
fn guest_input_round_trips_through_its_items() {
    use program::{GuestInput, StatelessInput};
    let data = mainnet_block(24171384);
    let input = StatelessInput {
        block: data.block_rlp.clone().into(),
        witness: data.witness.clone(),
        chain: ChainConfig::mainnet(),
    };
    let items = input.to_items();
    let w = &data.witness;
    assert_eq!(items.len(), 1 + w.state.len() + w.codes.len());
    let decoded = GuestInput::from_items(&items).unwrap();
    // The block and every header are views into the head, starting on a word.
    let base = decoded.block.as_ptr() as usize - 4;
    for view in std::iter::once(&decoded.block).chain(&decoded.headers) {
        assert_eq!((view.as_ptr() as usize - base) % 4, 0);
        assert!(view.as_ptr() as usize >= base && (view.as_ptr() as usize) < base + items[0].len());
    }
    assert_eq!(decoded.block, input.block);
    assert_eq!(decoded.headers, w.headers);
    assert_eq!(decoded.validate().unwrap(), input.validate().unwrap());
    let head_payload: usize =
        data.block_rlp.len() + w.headers.iter().map(|b| b.len()).sum::<usize>();
    println!(
        "guest input: a {}-byte head ({} of them framing, padding and the chain config), then {} items",
        items[0].len(),
        items[0].len() - head_payload,
        items.len() - 1
    );
}

#[test]
fn malformed_files_are_errors_not_panics() {
    let dir = std::env::temp_dir().join(format!("sv-malformed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, &[u8], &[u8]); 4] = [
        (
            "garbage",
            b"\xff\x00garbage",
            b"{\"state\":[],\"codes\":[]}",
        ),
        ("badjson", b"\xc0", b"{\"state\": [\"0xzz\"]}"),
        (
            "emptyblock",
            b"\xc4\xc0\xc0\xc0\xc0",
            b"{\"state\":[],\"codes\":[],\"headers\":[]}",
        ),
        (
            "truncated",
            b"\xf9\x02",
            b"{\"state\":[],\"codes\":[],\"headers\":[\"0xc0\"]}",
        ),
    ];
    for (id, block, witness) in cases {
        std::fs::write(dir.join(format!("{id}.block.rlp")), block).unwrap();
        std::fs::write(dir.join(format!("{id}.witness.json")), witness).unwrap();
        match host::native::run_native(&dir, id, None) {
            Err(e) => println!("{id}: load error: {e}"),
            Ok(run) => {
                let err = run.verdict.expect_err("malformed input must not validate");
                println!("{id}: invalid: {err}");
            }
        }
    }
    assert!(host::native::run_native(&dir, "absent", None).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
