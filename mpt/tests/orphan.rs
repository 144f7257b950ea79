//! Deletions over witnesses shaped like `eth_getProof` answers: the proofs of the touched keys
//! in the pre-state and of the deleted keys in the post-state, never the sibling a collapse
//! folds into. The trie derives that sibling from the post-state nodes, and only by its hash
//! (`mpt::trie::orphan`); roots are checked against alloy-trie's `HashBuilder`.

use alloy_primitives::{keccak256, B256};
use alloy_trie::Nibbles;
use mpt::trie::RawNode;
use mpt::{Trie, TrieError, WitnessStore};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

mod common;
use common::{reference_root, Model};

/// The whole trie of `model`, to take proofs from.
fn full_trie(model: &Model) -> Trie<'static> {
    let mut trie = Trie::empty();
    for (k, v) in model {
        trie.insert(k, v.clone()).unwrap();
    }
    trie
}

/// A 32-byte key with the given leading nibbles, the rest from `fill`.
fn key(nibbles: &[u8], fill: u8) -> Vec<u8> {
    let mut all: Vec<u8> = nibbles.to_vec();
    all.resize(64, fill & 0xf);
    all.chunks(2).map(|p| p[0] << 4 | p[1]).collect()
}

/// The `eth_getProof`-shaped witness of deleting `deleted` (and writing `written`) from
/// `model`: pre-state proofs of every touched key, post-state proofs of the deleted ones.
fn proof_witness(model: &Model, written: &Model, deleted: &[Vec<u8>]) -> (Vec<Vec<u8>>, Model) {
    let mut pre = full_trie(model);
    let mut nodes = Vec::new();
    for k in written.keys().chain(deleted) {
        nodes.extend(pre.proof(k).unwrap());
    }
    let mut after = model.clone();
    after.extend(written.clone());
    for k in deleted {
        after.remove(k);
    }
    let mut post = full_trie(&after);
    for k in deleted {
        nodes.extend(post.proof(k).unwrap());
    }
    (nodes, after)
}

/// Opens `nodes` at `model`'s root, writes then deletes as the validator does.
fn apply<'s>(
    store: &'s WitnessStore,
    model: &Model,
    written: &Model,
    deleted: &[Vec<u8>],
) -> Result<Trie<'s>, TrieError> {
    let mut trie = Trie::open(store, reference_root(model))?;
    for (k, v) in written {
        trie.insert(k, v.clone())?;
    }
    for k in deleted {
        trie.delete(k)?;
    }
    Ok(trie)
}

/// Three leaves: deleting the one under nibble 1 leaves the root branch with the subtree under
/// nibble 2, which no proof of the pre-state holds.
fn three_leaves(sibling_is_extension: bool) -> Model {
    let value = vec![0x42; 40];
    let mut model = Model::new();
    model.insert(key(&[1], 1), value.clone());
    model.insert(key(&[1, 5], 2), value.clone());
    if sibling_is_extension {
        // Two keys under nibble 2 sharing three more nibbles: an extension over a branch.
        model.insert(key(&[2, 7, 7, 7, 1], 3), value.clone());
        model.insert(key(&[2, 7, 7, 7, 9], 4), value);
    } else {
        model.insert(key(&[2], 3), value);
    }
    model
}

#[test]
fn a_collapse_derives_its_sibling_from_the_post_state_proof() {
    for extension in [false, true] {
        let mut model = three_leaves(extension);
        // One more key under nibble 1, so deleting both collapses the root branch.
        model.insert(key(&[1, 9], 5), vec![0x43; 40]);
        let deleted = vec![key(&[1], 1), key(&[1, 5], 2), key(&[1, 9], 5)];
        let (nodes, after) = proof_witness(&model, &Model::new(), &deleted);
        let store = WitnessStore::new(nodes.clone());
        let mut trie = apply(&store, &model, &Model::new(), &deleted).unwrap();
        assert_eq!(
            trie.root(),
            reference_root(&after),
            "extension: {extension}"
        );
        assert_eq!(trie.derived_nodes(), 1);

        // Without the post-state proofs the sibling is missing, by its hash and path.
        let mut pre = full_trie(&model);
        let pre_nodes: Vec<Vec<u8>> = deleted.iter().flat_map(|k| pre.proof(k).unwrap()).collect();
        let store = WitnessStore::new(pre_nodes);
        match apply(&store, &model, &Model::new(), &deleted) {
            Err(TrieError::MissingNode { path, .. }) => assert_eq!(path.to_string(), "0x2"),
            other => panic!("expected the sibling missing, got {other:?}"),
        }
    }
}

/// The post-state node with the right path and a wrong value (or child) is never used: its
/// shortened form does not hash to the sibling's reference.
#[test]
fn a_forged_derived_node_is_never_used() {
    for extension in [false, true] {
        let model = three_leaves(extension);
        let deleted = vec![key(&[1], 1), key(&[1, 5], 2)];
        let (mut nodes, _) = proof_witness(&model, &Model::new(), &deleted);
        nodes.sort();
        nodes.dedup();
        // Replace the post-state root node (the merged sibling) by a forgery of the same shape.
        let mut forged_nodes = Vec::new();
        let mut forged = 0;
        for node in nodes {
            let replaced = match RawNode::decode(&node).unwrap() {
                RawNode::Leaf { path, .. } if path.len() == 64 => {
                    Some(encode_leaf(&path, &[0x66; 40]))
                }
                RawNode::Extension { path, .. } if path.len() == 4 => {
                    Some(encode_extension(&path, &B256::repeat_byte(0x77)))
                }
                _ => None,
            };
            forged += usize::from(replaced.is_some());
            forged_nodes.push(replaced.unwrap_or(node));
        }
        assert_eq!(
            forged, 1,
            "one merged node to forge (extension: {extension})"
        );
        let store = WitnessStore::new(forged_nodes);
        match apply(&store, &model, &Model::new(), &deleted) {
            Err(TrieError::MissingNode { path, .. }) => assert_eq!(path.to_string(), "0x2"),
            other => panic!("a forged node was used: {other:?}"),
        }
    }
}

fn hex_prefix(path: &Nibbles, leaf: bool) -> Vec<u8> {
    let mut out = vec![(u8::from(leaf) * 2 + (path.len() % 2) as u8) << 4];
    let mut nibbles: Vec<u8> = path.to_vec();
    if nibbles.len() % 2 == 1 {
        out[0] |= nibbles.remove(0);
    }
    out.extend(nibbles.chunks(2).map(|p| p[0] << 4 | p[1]));
    out
}

fn encode_leaf(path: &Nibbles, value: &[u8]) -> Vec<u8> {
    let items = [
        alloy_rlp::encode(hex_prefix(path, true)),
        alloy_rlp::encode(value),
    ];
    list(&items)
}

fn encode_extension(path: &Nibbles, child: &B256) -> Vec<u8> {
    let items = [
        alloy_rlp::encode(hex_prefix(path, false)),
        alloy_rlp::encode(child),
    ];
    list(&items)
}

fn list(items: &[Vec<u8>]) -> Vec<u8> {
    let payload: Vec<u8> = items.concat();
    let mut out = Vec::new();
    alloy_rlp::Header {
        list: true,
        payload_length: payload.len(),
    }
    .encode(&mut out);
    out.extend(payload);
    out
}

/// Random tries, random writes and deletions: over the proof-shaped witness the root is
/// always right, or the one thing missing is a sibling that is a branch (which no proof of
/// the post-state holds, so it cannot be derived), never a wrong root.
#[test]
fn random_deletions_over_proof_witnesses_are_right_or_name_a_branch() {
    let mut rng = SmallRng::seed_from_u64(17);
    let (mut derived, mut branch_misses, mut rounds) = (0, 0, 0);
    for _ in 0..300 {
        let n = rng.random_range(2..120);
        let model: Model = (0..n)
            .map(|_| {
                let k: Vec<u8> = (0..32).map(|_| rng.random()).collect();
                let len = if rng.random_bool(0.3) { 2 } else { 40 };
                (k, vec![rng.random(); len])
            })
            .collect();
        let keys: Vec<Vec<u8>> = model.keys().cloned().collect();
        // At least one deletion, so the witness holds the root.
        let deleted: Vec<Vec<u8>> = keys
            .iter()
            .enumerate()
            .filter(|(i, _)| *i == 0 || rng.random_bool(0.3))
            .map(|(_, k)| k.clone())
            .collect();
        let written: Model = keys
            .iter()
            .filter(|k| !deleted.contains(k) && rng.random_bool(0.1))
            .map(|k| (k.clone(), vec![7; 40]))
            .collect();
        let (nodes, after) = proof_witness(&model, &written, &deleted);
        let store = WitnessStore::new(nodes);
        match apply(&store, &model, &written, &deleted) {
            Ok(mut trie) => {
                assert_eq!(trie.root(), reference_root(&after));
                derived += trie.derived_nodes();
            }
            Err(TrieError::MissingNode { hash, .. }) => {
                let full = full_trie(&model).encoded_nodes();
                let node = full
                    .iter()
                    .find(|n| keccak256(n) == hash)
                    .expect("the missing node is a node of the trie");
                assert!(
                    matches!(RawNode::decode(node).unwrap(), RawNode::Branch(_)),
                    "only a branch sibling may stay missing"
                );
                branch_misses += 1;
            }
            Err(e) => panic!("{e}"),
        }
        rounds += 1;
    }
    assert_eq!(rounds, 300);
    assert!(derived > 50, "derivations exercised: {derived}");
    assert!(
        branch_misses > 0,
        "branch siblings exercised: {branch_misses}"
    );
}
