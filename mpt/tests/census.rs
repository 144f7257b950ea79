//! The keccak census counts what this crate's sponge does (`--features census`). One test: the
//! counters are process-wide. The idiomatic stock baseline hashes through OpenVM's code, which
//! counts nothing.
#![cfg(feature = "census")]

use mpt::keccak::census::{snapshot, Census};

#[test]
fn census_counts_every_class() {
    #[repr(align(8))]
    struct Buf([u8; 300]);
    let buf = Buf([7; 300]);
    let before = snapshot();
    // An address-sized aligned input: all aligned (20 is a multiple of 4).
    mpt::keccak256(&buf.0[..20]);
    // A 32-byte slot one byte off the grid: the input is misaligned.
    mpt::keccak256(&buf.0[1..33]);
    // Two aligned rate blocks: two aligned calls, three permutations.
    mpt::keccak256(&buf.0[..272]);
    // Streaming: 20 bytes (aligned), then 33 at offset 20 (ragged length), then 5 at offset 53
    // (state off the grid).
    let mut h = mpt::Keccak256::new();
    h.update(&buf.0[..20]);
    h.update(&buf.0[..33]);
    h.update(&buf.0[..5]);
    h.finalize();
    let now = snapshot();
    let w = |c: Census| c.to_words();
    let diff: Vec<u64> = w(now).iter().zip(w(before)).map(|(a, b)| a - b).collect();
    let got = Census::from_words(diff.try_into().unwrap());
    println!("census: {got:?}");
    if cfg!(feature = "stock-keccak") {
        assert_eq!(got, Census::default());
        return;
    }
    assert_eq!(
        (
            got.aligned,
            got.len_unaligned,
            got.state_unaligned,
            got.input_unaligned,
            got.overlapping
        ),
        (4, 1, 1, 1, 0)
    );
    assert_eq!(got.keccakf, 6);
    // Software: the 33-byte absorb's 1-byte tail, the 5-byte absorb's 3-byte lead and
    // 2-byte tail. Staged: the misaligned slot's 32 bytes. Heap: none.
    assert_eq!(
        (got.software_bytes, got.staged_bytes, got.heap_bytes),
        (6, 32, 0)
    );
}
