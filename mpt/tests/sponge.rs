//! The sponge against an independent Keccak-256 (tiny-keccak), known vectors, and RLP streamed
//! through `BufMut`.

use alloy_primitives::{address, b256, keccak256 as alloy_keccak, Address, Bytes, B256, U256};
use alloy_rlp::{Encodable, RlpEncodable};
use alloy_trie::TrieAccount;
use bytes::BufMut;
use mpt::keccak::{Machine, Soft, Sponge, RATE};
use tiny_keccak::{Hasher, Keccak};

fn reference(data: &[u8]) -> B256 {
    let mut k = Keccak::v256();
    k.update(data);
    let mut out = [0u8; 32];
    k.finalize(&mut out);
    B256::new(out)
}

/// Chunk sizes: every residue mod W (1..=2W+1) and both sides of the rate boundary.
fn chunkings(w: usize) -> Vec<usize> {
    let mut sizes: Vec<usize> = (1..=2 * w + 1).collect();
    sizes.extend([RATE - 1, RATE, RATE + 1, 2 * RATE + 3]);
    sizes
}

fn sponge_matches_reference<const W: usize>() -> usize {
    #[repr(C, align(64))]
    struct Data([u8; 1100]);
    let mut data = Data([0; 1100]);
    for (k, x) in data.0.iter_mut().enumerate() {
        *x = (k as u32).wrapping_mul(2_654_435_761).to_le_bytes()[2];
    }
    let sizes = chunkings(W);
    let mut checks = 0;
    for len in 0..=1000 {
        for misalign in 0..W {
            let input = &data.0[misalign..misalign + len];
            let want = reference(input);
            let mut one = Sponge::<Soft<W>>::new();
            one.update(input);
            assert_eq!(
                one.finalize(),
                want,
                "W={W} one-shot len {len} at +{misalign}"
            );
            checks += 1;
            // Chunked absorbs; long inputs take fewer chunkings to keep the run short, but
            // every length below 300 takes them all.
            let sizes = if len < 300 { &sizes[..] } else { &sizes[W..] };
            for &chunk in sizes {
                let mut h = Sponge::<Soft<W>>::new();
                for part in input.chunks(chunk) {
                    h.update(part);
                }
                assert_eq!(
                    h.finalize(),
                    want,
                    "W={W} len {len} at +{misalign} in {chunk}s"
                );
                checks += 1;
            }
        }
    }
    checks
}

#[test]
fn sponge_equals_tiny_keccak_w4() {
    let n = sponge_matches_reference::<4>();
    println!("sponge W=4: {n} hashes equal tiny-keccak");
}

#[test]
fn sponge_equals_tiny_keccak_w8() {
    let n = sponge_matches_reference::<8>();
    println!("sponge W=8: {n} hashes equal tiny-keccak");
}

#[test]
fn irregular_chunking_across_rate_boundaries() {
    // Prefix sums that land on every offset of a block: chunks 1, 2, 3, ... wrap the rate
    // boundary at a different place each block.
    let data: Vec<u8> = (0..5000u32).map(|k| (k * 7 + 3) as u8).collect();
    let mut h = mpt::Keccak256::new();
    let (mut at, mut step) = (0, 1);
    while at < data.len() {
        let end = (at + step).min(data.len());
        h.update(&data[at..end]);
        at = end;
        step = step % 150 + 1;
    }
    assert_eq!(h.finalize(), reference(&data));
}

#[test]
fn known_vectors() {
    assert_eq!(
        mpt::keccak256([]),
        b256!("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
    );
    assert_eq!(
        mpt::keccak256(b"abc"),
        b256!("4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45")
    );
    // keccak256(rlp("")) = the empty trie root.
    assert_eq!(mpt::keccak256([0x80]), alloy_trie::EMPTY_ROOT_HASH);
    let block = [0x61u8; RATE];
    assert_eq!(mpt::keccak256(block), reference(&block));
}

#[test]
fn update_byte_equals_update() {
    let data: Vec<u8> = (0..400u16).map(|k| (k * 13) as u8).collect();
    let mut h = mpt::Keccak256::new();
    for &b in &data {
        h.update_byte(b);
    }
    assert_eq!(h.finalize(), reference(&data));
}

#[derive(RlpEncodable)]
struct HeaderLike {
    parent: B256,
    beneficiary: Address,
    number: u64,
    gas: U256,
    extra: Bytes,
}

fn streamed(value: &dyn Encodable) -> (B256, B256) {
    let mut encoded = Vec::new();
    value.encode(&mut encoded);
    let mut sponge = mpt::Keccak256::new();
    value.encode(&mut sponge);
    (sponge.finalize(), reference(&encoded))
}

#[test]
fn rlp_streamed_through_bufmut_equals_hash_of_encoding() {
    let addr = address!("95222290dd7278aa3ddd389cc1e1d165cc4bafe5");
    let account = TrieAccount {
        nonce: 42,
        balance: U256::from(10u64).pow(U256::from(21)),
        storage_root: alloy_trie::EMPTY_ROOT_HASH,
        code_hash: alloy_trie::KECCAK_EMPTY,
    };
    let header = HeaderLike {
        parent: alloy_trie::EMPTY_ROOT_HASH,
        beneficiary: addr,
        number: 24_001_988,
        gas: U256::from(30_000_000u64),
        extra: Bytes::from(vec![0xab; 97]),
    };
    let list: Vec<Bytes> = (0..40).map(|k| Bytes::from(vec![k as u8; k])).collect();
    let cases: [&dyn Encodable; 7] = [
        &addr,
        &U256::MAX,
        &0u8,
        &account,
        &header,
        &list,
        &Bytes::from(vec![7u8; 1000]),
    ];
    for (k, value) in cases.into_iter().enumerate() {
        let (got, want) = streamed(value);
        assert_eq!(got, want, "case {k}");
    }
    // The address as a trie key: 20 bytes, the slow-path shape the stock sponge copies.
    assert_eq!(mpt::keccak256(addr), alloy_keccak(addr));
}

#[test]
fn bufmut_chunk_path_absorbs_what_was_written() {
    let data: Vec<u8> = (0..300u16).map(|k| (k ^ 0x5a) as u8).collect();
    let mut h = mpt::Keccak256::new();
    // `put` with a `Buf` source copies through `chunk_mut` / `advance_mut`.
    h.put(&data[..]);
    assert_eq!(h.finalize(), reference(&data));

    let mut h = mpt::Keccak256::new();
    let chunk = h.chunk_mut();
    assert!(chunk.len() >= 3);
    chunk[..3].copy_from_slice(&[1, 2, 3]);
    // SAFETY: three bytes were just initialised.
    unsafe { h.advance_mut(3) };
    assert_eq!(h.finalize(), reference(&[1, 2, 3]));
}

#[test]
fn word_sizes_agree() {
    assert_eq!(<Soft<4> as Machine>::WORD, 4);
    let data = [0x11u8; 777];
    let mut a = Sponge::<Soft<4>>::new();
    let mut b = Sponge::<Soft<8>>::new();
    a.update(&data[3..]);
    b.update(&data[3..]);
    assert_eq!(a.finalize(), b.finalize());
}
