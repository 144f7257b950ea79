//! The trie against alloy-trie's `HashBuilder` (an independent root computation), over random
//! insert / update / delete sequences, from scratch and reopened from witness nodes.

use std::collections::BTreeMap;

use alloy_primitives::{keccak256, Address, B256, U256};
use alloy_trie::{TrieAccount, EMPTY_ROOT_HASH, KECCAK_EMPTY};
use mpt::{NodeError, StateTrie, Trie, TrieError, WitnessStore};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

mod common;
use common::{reference_root, Model};

fn random_key(rng: &mut SmallRng, key_len: usize, model: &Model) -> Vec<u8> {
    // Half the time reuse a present key, so updates and deletes hit.
    if !model.is_empty() && rng.random_bool(0.5) {
        let n = rng.random_range(0..model.len());
        return model.keys().nth(n).unwrap().clone();
    }
    (0..key_len).map(|_| rng.random()).collect()
}

fn random_value(rng: &mut SmallRng) -> Vec<u8> {
    // Short values make leaves under 32 bytes: embedded (inline) nodes for short keys.
    let len = if rng.random_bool(0.5) {
        rng.random_range(1..4)
    } else {
        rng.random_range(1..80)
    };
    (0..len).map(|_| rng.random()).collect()
}

/// Applies `ops` random operations to `trie` and `model`, checking gets and roots as it goes.
fn run_ops(trie: &mut Trie<'_>, model: &mut Model, rng: &mut SmallRng, key_len: usize, ops: usize) {
    for op in 0..ops {
        let key = random_key(rng, key_len, model);
        match rng.random_range(0..10) {
            0..=5 => {
                let value = random_value(rng);
                trie.insert(&key, value.clone()).unwrap();
                model.insert(key, value);
            }
            6..=8 => {
                let removed = trie.delete(&key).unwrap();
                assert_eq!(
                    removed,
                    model.remove(&key).is_some(),
                    "delete result for {key:02x?}"
                );
            }
            _ => {
                let got = trie.get(&key).unwrap().map(<[u8]>::to_vec);
                assert_eq!(got.as_ref(), model.get(&key), "get {key:02x?}");
            }
        }
        if op % 7 == 0 || op + 1 == ops {
            assert_eq!(
                trie.root(),
                reference_root(model),
                "root after op {op}, key length {key_len}"
            );
        }
    }
}

#[test]
fn random_sequences_match_hash_builder() {
    let mut rng = SmallRng::seed_from_u64(0x5eed);
    let mut checked = 0;
    for &key_len in &[1usize, 2, 3, 32] {
        for _ in 0..12 {
            let mut trie = Trie::empty();
            let mut model = Model::new();
            run_ops(&mut trie, &mut model, &mut rng, key_len, 400);
            checked += 400;
            // Delete everything: back to the empty root.
            for key in model.keys().cloned().collect::<Vec<_>>() {
                assert!(trie.delete(&key).unwrap());
            }
            assert_eq!(trie.root(), EMPTY_ROOT_HASH);
        }
    }
    println!("trie: {checked} random operations matched alloy-trie's HashBuilder");
}

/// Builds a trie from scratch and returns its witness (every node) and root.
fn witness_of(model: &Model) -> (Vec<Vec<u8>>, B256) {
    let mut trie = Trie::empty();
    for (k, v) in model {
        trie.insert(k, v.clone()).unwrap();
    }
    let root = trie.root();
    (trie.encoded_nodes(), root)
}

fn random_model(rng: &mut SmallRng, key_len: usize, n: usize) -> Model {
    (0..n)
        .map(|_| {
            (
                (0..key_len).map(|_| rng.random()).collect(),
                random_value(rng),
            )
        })
        .collect()
}

#[test]
fn reopened_from_witness_nodes_reads_and_updates() {
    let mut rng = SmallRng::seed_from_u64(7);
    for &key_len in &[2usize, 32] {
        for round in 0..8 {
            let mut model = random_model(&mut rng, key_len, 50 + round * 40);
            let (nodes, root) = witness_of(&model);
            assert_eq!(root, reference_root(&model));
            let store = WitnessStore::new(nodes.iter().cloned());
            let mut trie = Trie::open(&store, root).unwrap();
            for (k, v) in &model {
                assert_eq!(trie.get(k).unwrap(), Some(&v[..]));
            }
            // Absent keys are proven absent.
            for _ in 0..50 {
                let k: Vec<u8> = (0..key_len).map(|_| rng.random()).collect();
                assert_eq!(trie.get(&k).unwrap().is_some(), model.contains_key(&k));
            }
            run_ops(&mut trie, &mut model, &mut rng, key_len, 300);
        }
    }
}

#[test]
fn unchanged_writes_keep_the_root_cached() {
    let mut rng = SmallRng::seed_from_u64(11);
    let model = random_model(&mut rng, 32, 200);
    let (nodes, root) = witness_of(&model);
    let store = WitnessStore::new(nodes.iter().cloned());
    let mut trie = Trie::open(&store, root).unwrap();
    for (k, v) in model.iter().take(20) {
        trie.insert(k, v.clone()).unwrap();
    }
    // Rewriting the same values touches no hash: the root is the witness's, untouched.
    assert_eq!(trie.root(), root);
}

#[test]
fn partial_witness_fails_loudly_never_wrongly() {
    let mut rng = SmallRng::seed_from_u64(99);
    let mut missing_seen = 0;
    for round in 0..30 {
        let model = random_model(&mut rng, 32, 120);
        let (mut nodes, root) = witness_of(&model);
        // Drop one node other than the root (the first encoded node is the root).
        let dropped = nodes.remove(1 + round % (nodes.len() - 1));
        let dropped_hash = keccak256(&dropped);
        let store = WitnessStore::new(nodes.iter().cloned());
        let mut trie = Trie::open(&store, root).unwrap();
        let mut expect = model.clone();
        let mut hit_missing = false;
        for _ in 0..200 {
            let key = random_key(&mut rng, 32, &expect);
            let result = if rng.random_bool(0.5) {
                let v = random_value(&mut rng);
                trie.insert(&key, v.clone())
                    .map(|()| drop(expect.insert(key, v)))
            } else {
                trie.delete(&key)
                    .map(|removed| assert_eq!(removed, expect.remove(&key).is_some()))
            };
            match result {
                Ok(()) => {}
                Err(TrieError::MissingNode { hash, .. }) => {
                    assert_eq!(hash, dropped_hash, "only the dropped node can be missing");
                    hit_missing = true;
                    break;
                }
                Err(e) => panic!("unexpected error {e}"),
            }
        }
        if hit_missing {
            missing_seen += 1;
        } else {
            // The dropped node was never needed: every result must still be right.
            assert_eq!(trie.root(), reference_root(&expect));
        }
    }
    assert!(
        missing_seen > 0,
        "dropping nodes must surface MissingNode errors"
    );
}

#[test]
fn missing_root_and_malformed_nodes_are_typed_errors() {
    let store = WitnessStore::new(Vec::<Vec<u8>>::new());
    let root = B256::repeat_byte(0x42);
    match Trie::open(&store, root) {
        Err(TrieError::MissingNode { hash, path }) => {
            assert_eq!(hash, root);
            assert_eq!(path.to_string(), "<root>");
        }
        other => panic!("expected MissingNode, got {other:?}"),
    }
    // A string where a node (a list) must be.
    let garbage: &[u8] = &[0xa0; 33];
    let store = WitnessStore::new([garbage]);
    // The root is decoded when the trie is opened.
    match Trie::open(&store, keccak256(garbage)) {
        Err(TrieError::MalformedNode {
            source: NodeError::NotAList,
            hash,
            ..
        }) => {
            assert_eq!(hash, keccak256(garbage))
        }
        other => panic!("expected MalformedNode, got {other:?}"),
    }
    // A 3-item list.
    let three: &[u8] = &[0xc3, 0x01, 0x02, 0x03];
    assert_eq!(
        mpt::trie::RawNode::decode(three),
        Err(NodeError::ItemCount(3))
    );
    // Trailing bytes after the node.
    let trailing: &[u8] = &[0xc2, 0x20, 0x01, 0x00];
    assert_eq!(
        mpt::trie::RawNode::decode(trailing),
        Err(NodeError::TrailingBytes(1))
    );
    // A leaf with an empty path decodes; an extension with one does not.
    assert!(mpt::trie::RawNode::decode(&[0xc2, 0x20, 0x01]).is_ok());
    assert_eq!(
        mpt::trie::RawNode::decode(&[0xc2, 0x00, 0x01]),
        Err(NodeError::BadChild(0))
    );
}

#[test]
fn key_of_wrong_length_is_an_error() {
    let mut trie = Trie::empty();
    trie.insert(&[1, 2], vec![1]).unwrap();
    trie.insert(&[1, 3], vec![2]).unwrap();
    assert!(matches!(
        trie.insert(&[1], vec![3]),
        Err(TrieError::KeyLength { .. })
    ));
    assert!(matches!(trie.get(&[1]), Err(TrieError::KeyLength { .. })));
    assert!(matches!(
        trie.delete(&[1]),
        Err(TrieError::KeyLength { .. })
    ));
    assert!(matches!(
        trie.get(&[1, 2, 3]),
        Err(TrieError::KeyLength { .. })
    ));
}

fn account(rng: &mut SmallRng) -> TrieAccount {
    TrieAccount {
        nonce: rng.random_range(0..1000),
        balance: U256::from(rng.random::<u64>()),
        storage_root: EMPTY_ROOT_HASH,
        code_hash: if rng.random_bool(0.5) {
            KECCAK_EMPTY
        } else {
            B256::from(rng.random::<[u8; 32]>())
        },
    }
}

#[test]
fn state_trie_matches_reference_roots() {
    let mut rng = SmallRng::seed_from_u64(2024);
    let mut accounts: BTreeMap<Address, (TrieAccount, BTreeMap<U256, U256>)> = BTreeMap::new();
    let mut state = StateTrie::open(
        Box::leak(Box::new(WitnessStore::new(Vec::<Vec<u8>>::new()))),
        EMPTY_ROOT_HASH,
    )
    .unwrap();
    for _ in 0..60 {
        let address = Address::from(rng.random::<[u8; 20]>());
        let acc = account(&mut rng);
        state.set_account(address, Some(&acc)).unwrap();
        let mut slots = BTreeMap::new();
        for _ in 0..rng.random_range(0..20) {
            let (slot, value) = (
                U256::from(rng.random::<u16>()),
                U256::from(rng.random::<u64>() % 5),
            );
            state.set_storage(address, slot, value).unwrap();
            if value.is_zero() {
                slots.remove(&slot);
            } else {
                slots.insert(slot, value);
            }
        }
        accounts.insert(address, (acc, slots));
    }
    let reference = |accounts: &BTreeMap<Address, (TrieAccount, BTreeMap<U256, U256>)>| {
        let mut leaves = Model::new();
        for (address, (acc, slots)) in accounts {
            let mut storage = Model::new();
            for (slot, value) in slots {
                storage.insert(
                    keccak256(slot.to_be_bytes::<32>()).to_vec(),
                    alloy_rlp::encode(value),
                );
            }
            let acc = TrieAccount {
                storage_root: reference_root(&storage),
                ..*acc
            };
            leaves.insert(keccak256(address).to_vec(), alloy_rlp::encode(acc));
        }
        reference_root(&leaves)
    };
    assert_eq!(state.root().unwrap(), reference(&accounts));

    // Reads through the lazily opened storage tries.
    for (address, (acc, slots)) in accounts.iter().take(10) {
        let got = state.account(*address).unwrap().unwrap();
        assert_eq!(
            (got.nonce, got.balance, got.code_hash),
            (acc.nonce, acc.balance, acc.code_hash)
        );
        for (slot, value) in slots {
            assert_eq!(state.storage(*address, *slot).unwrap(), *value);
        }
    }
    // Wipe one account's storage and delete another.
    let (&wiped, _) = accounts.iter().next().unwrap();
    state.wipe_storage(wiped);
    accounts.get_mut(&wiped).unwrap().1.clear();
    let (&gone, _) = accounts.iter().nth(1).unwrap();
    state.wipe_storage(gone);
    state.set_account(gone, None).unwrap();
    accounts.remove(&gone);
    assert_eq!(state.root().unwrap(), reference(&accounts));
    assert!(state.account(gone).unwrap().is_none());
}

/// The witness of a state lists the storage tries in hashed-address order, not the order of a
/// map whose seed changes from run to run: generated witness files are the same bytes on every
/// run.
#[test]
fn encoded_nodes_list_storage_tries_in_hashed_address_order() {
    let store = WitnessStore::new(Vec::<Vec<u8>>::new());
    let mut state = StateTrie::open(&store, EMPTY_ROOT_HASH).unwrap();
    let addresses: Vec<Address> = (1u8..=8).map(Address::repeat_byte).collect();
    for (i, address) in addresses.iter().enumerate() {
        state
            .set_account(*address, Some(&TrieAccount::default()))
            .unwrap();
        // One slot each: the storage trie is one leaf ending with its value's byte.
        let value = U256::from(i + 1);
        state.set_storage(*address, U256::ZERO, value).unwrap();
    }
    let nodes = state.encoded_nodes().unwrap();
    let last: Vec<u8> = nodes[nodes.len() - addresses.len()..]
        .iter()
        .map(|node| *node.last().unwrap())
        .collect();
    let mut by_hash: Vec<(B256, u8)> = addresses
        .iter()
        .enumerate()
        .map(|(i, address)| (keccak256(address), i as u8 + 1))
        .collect();
    by_hash.sort();
    let expected: Vec<u8> = by_hash.into_iter().map(|(_, value)| value).collect();
    assert_eq!(last, expected);
}
