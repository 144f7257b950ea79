//! Crafted witnesses never panic the trie: node sets built to be hostile (paths that run past a
//! 32-byte key, leaves where branches belong, embedded nodes, dangling hashes, keys reaching
//! through them) only ever give a typed error or a result.
//!
//! A bounded, seeded fuzzer: each round builds a random node set bottom-up (each node may point
//! at earlier ones by hash or embed them), opens a trie at one of them and runs random reads,
//! writes and deletes (which collapse branches) and a root computation, each under
//! `catch_unwind`. `CRAFTED_ROUNDS` sets how many rounds (default 3000, ~seconds).

use alloy_primitives::B256;
use alloy_rlp::{BufMut, Encodable, Header};
use alloy_trie::Nibbles;
use mpt::{Trie, WitnessStore};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Hex-prefix encoding of `nibbles` (any length, including past 64).
fn hex_prefix(nibbles: &[u8], leaf: bool) -> Vec<u8> {
    let flag = if leaf { 2 } else { 0 };
    let mut out = Vec::new();
    let mut rest = nibbles;
    if nibbles.len() % 2 == 1 {
        out.push(((flag + 1) << 4) | nibbles[0]);
        rest = &nibbles[1..];
    } else {
        out.push(flag << 4);
    }
    for pair in rest.chunks(2) {
        out.push((pair[0] << 4) | pair[1]);
    }
    out
}

fn list(items: &[Vec<u8>]) -> Vec<u8> {
    let payload: usize = items.iter().map(Vec::len).sum();
    let mut out = Vec::new();
    Header {
        list: true,
        payload_length: payload,
    }
    .encode(&mut out);
    for item in items {
        out.put_slice(item);
    }
    out
}

fn string(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    bytes.encode(&mut out);
    out
}

/// A reference to an earlier node: its hash, or the node itself when it is under 32 bytes
/// (sometimes a hash no node has).
fn child_ref(rng: &mut SmallRng, nodes: &[Vec<u8>]) -> Vec<u8> {
    if nodes.is_empty() || rng.random_bool(0.1) {
        return string(&rng.random::<[u8; 32]>());
    }
    let node = &nodes[rng.random_range(0..nodes.len())];
    if node.len() < 32 && rng.random_bool(0.7) {
        node.clone()
    } else {
        string(mpt::keccak256(node).as_slice())
    }
}

fn nibbles(rng: &mut SmallRng) -> Vec<u8> {
    // Lengths around the edges: empty, short, near and past 64.
    let len = match rng.random_range(0..4) {
        0 => rng.random_range(0..4),
        1 => rng.random_range(60..70),
        _ => rng.random_range(0..66),
    };
    (0..len).map(|_| rng.random_range(0..16u8)).collect()
}

fn crafted_node(rng: &mut SmallRng, nodes: &[Vec<u8>]) -> Vec<u8> {
    match rng.random_range(0..3) {
        0 => {
            let value: Vec<u8> = (0..rng.random_range(1..40)).map(|_| rng.random()).collect();
            list(&[string(&hex_prefix(&nibbles(rng), true)), string(&value)])
        }
        1 => list(&[
            string(&hex_prefix(&nibbles(rng), false)),
            child_ref(rng, nodes),
        ]),
        _ => {
            let mut items: Vec<Vec<u8>> = (0..16)
                .map(|_| {
                    if rng.random_bool(0.6) {
                        string(&[])
                    } else {
                        child_ref(rng, nodes)
                    }
                })
                .collect();
            items.push(string(&[]));
            list(&items)
        }
    }
}

fn key(rng: &mut SmallRng, near: &[Vec<u8>]) -> Vec<u8> {
    // Mostly 32-byte keys; sometimes other lengths, which the trie must refuse, not trip on.
    let len = if rng.random_bool(0.9) {
        32
    } else {
        rng.random_range(0..40)
    };
    let mut k: Vec<u8> = (0..len).map(|_| rng.random()).collect();
    // Share a prefix with an earlier key half the time, to walk deep into the same branches.
    if let (true, Some(other)) = (rng.random_bool(0.5), near.last()) {
        let shared = rng.random_range(0..=other.len().min(k.len()));
        k[..shared].copy_from_slice(&other[..shared]);
    }
    k
}

fn round(seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut nodes: Vec<Vec<u8>> = Vec::new();
    for _ in 0..rng.random_range(1..24) {
        let node = crafted_node(&mut rng, &nodes);
        nodes.push(node);
    }
    let store = WitnessStore::new(nodes.iter().cloned());
    let root_node = &nodes[rng.random_range(0..nodes.len())];
    let root: B256 = mpt::keccak256(root_node);
    let Ok(mut trie) = Trie::open(&store, root) else {
        return;
    };
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for _ in 0..rng.random_range(1..16) {
        let k = key(&mut rng, &keys);
        let _ = match rng.random_range(0..3) {
            0 => trie.get(&k).map(drop),
            1 => {
                let value: Vec<u8> = (0..rng.random_range(0..40)).map(|_| rng.random()).collect();
                trie.insert(&k, value)
            }
            _ => trie.delete(&k).map(drop),
        };
        keys.push(k);
    }
    let _ = trie.root();
    let _ = trie.encoded_nodes();
    let _ = mpt::trie::walk_leaves(&store, root, |_, _| {});
}

#[test]
fn crafted_node_sets_never_panic_the_trie() {
    let rounds: u64 = std::env::var("CRAFTED_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3000);
    let mut failures = Vec::new();
    for seed in 0..rounds {
        if std::panic::catch_unwind(|| round(seed)).is_err() {
            failures.push(seed);
        }
    }
    assert!(failures.is_empty(), "panicked on seeds {failures:?}");
}

#[test]
fn a_collapse_past_64_nibbles_is_a_typed_error() {
    // A branch at the root with two leaves: one at nibble 0 whose own path is 64 nibbles (one
    // too many below a branch), one at nibble 1. Deleting the key under nibble 1 folds the
    // branch into the first leaf: 1 + 64 nibbles.
    let long_leaf = list(&[string(&hex_prefix(&[5; 64], true)), string(&[1; 40])]);
    let other_leaf = list(&[string(&hex_prefix(&[7; 63], true)), string(&[2; 40])]);
    let mut items = vec![string(&[]); 17];
    items[0] = string(mpt::keccak256(&long_leaf).as_slice());
    items[1] = string(mpt::keccak256(&other_leaf).as_slice());
    let branch = list(&items);
    let store = WitnessStore::new([long_leaf.clone(), other_leaf.clone(), branch.clone()]);
    let mut trie = Trie::open(&store, mpt::keccak256(&branch)).unwrap();
    let mut key = vec![0x17u8];
    key.extend([0x77u8; 31]);
    assert_eq!(Nibbles::unpack(&key).len(), 64);
    match trie.delete(&key) {
        Err(mpt::TrieError::PathTooDeep { extra: 64, .. }) => {}
        other => panic!("expected PathTooDeep, got {other:?}"),
    }
}
