//! The sponge and the trie on every real mainnet block in `../shared/blocks/mainnet/`: the
//! witness decodes, a node hashes to the pre-state root, and every account and storage slot
//! reachable from it reads back through the trie; writes that restore the old values give back
//! the pre-state root.

use alloy_consensus::Header;
use alloy_primitives::{Address, B256};
use alloy_rlp::Decodable;
use alloy_trie::{Nibbles, TrieAccount, EMPTY_ROOT_HASH};
use mpt::trie::walk_leaves;
use mpt::{StateTrie, TrieError, WitnessStore};
use program::WitnessError;
use tests::{mainnet_block, MAINNET, ROOT_23587691};

/// The pre-state root of a mainnet block, from its parent header when the witness has one.
fn pre_state_root(data: &chaindata::blocks::BlockData) -> B256 {
    match data.witness.parent_state_root() {
        Ok(root) => root,
        Err(WitnessError::NoParentHeader) => {
            assert_eq!(data.id, "23587691", "only 23587691 lacks its parent header");
            ROOT_23587691.parse().unwrap()
        }
        Err(e) => panic!("block {}: {e}", data.id),
    }
}

#[test]
fn headers_hash_and_link_through_the_sponge() {
    for (number, hash) in MAINNET {
        let data = mainnet_block(number);
        assert_eq!(data.block_hash().to_string(), hash, "block {number} hash");
        let header = Header::decode(&mut data.header_rlp()).unwrap();
        assert_eq!(header.number, number);
        if let Some(parent) = data.witness.headers.last() {
            // The parent link: keccak(parent RLP) through our sponge equals the header's field,
            // and our state_root extraction equals alloy-consensus' full decode.
            assert_eq!(
                mpt::keccak256(parent),
                header.parent_hash,
                "block {number} parent link"
            );
            let parent_header = Header::decode(&mut parent.as_ref()).unwrap();
            assert_eq!(
                data.witness.parent_state_root().unwrap(),
                parent_header.state_root
            );
        }
    }
}

#[test]
fn every_witness_node_hashes_like_an_independent_keccak() {
    let mut total = 0;
    for (number, _) in MAINNET {
        let data = mainnet_block(number);
        for node in data.witness.state.iter().chain(&data.witness.codes) {
            assert_eq!(
                mpt::keccak256(node),
                alloy_primitives::keccak256(node),
                "block {number}"
            );
            total += 1;
        }
    }
    println!("{total} real nodes and codes hashed identically by the sponge and tiny-keccak");
}

#[test]
fn witness_holds_the_pre_state_root() {
    for (number, _) in MAINNET {
        let data = mainnet_block(number);
        let store = data.witness.store();
        assert_eq!(
            store.distinct(),
            data.witness.state.len() + data.witness.codes.len(),
            "block {number}: duplicate nodes or codes"
        );
        let root = pre_state_root(&data);
        assert!(
            store.contains(&root),
            "block {number}: no node hashes to {root}"
        );
        match data.witness.pre_state(&store) {
            Ok(_) => assert_ne!(number, 23587691),
            Err(WitnessError::NoParentHeader) => assert_eq!(number, 23587691),
            Err(e) => panic!("block {number}: {e}"),
        }
    }
}

#[test]
fn a_tampered_root_node_is_rejected_by_name() {
    let mut data = mainnet_block(24171384);
    let root = data.witness.parent_state_root().unwrap();
    let at = data
        .witness
        .state
        .iter()
        .position(|n| mpt::keccak256(n) == root)
        .unwrap();
    let mut node = data.witness.state[at].to_vec();
    node[40] ^= 1;
    data.witness.state[at] = node.into();
    let store = data.witness.store();
    match data.witness.pre_state(&store) {
        Err(WitnessError::PreStateRootNotInWitness(r)) => assert_eq!(r, root),
        other => panic!("expected PreStateRootNotInWitness, got {other:?}"),
    }
}

/// Every reachable account, with its storage slots: (hashed address, account, [(hashed slot, value)]).
type Reached = Vec<(B256, TrieAccount, Vec<(B256, Vec<u8>)>)>;

fn reachable(store: &WitnessStore, root: B256) -> Reached {
    let mut accounts = Vec::new();
    walk_leaves(store, root, |path: &Nibbles, mut leaf| {
        let account = TrieAccount::decode(&mut leaf).expect("account leaf");
        accounts.push((B256::from_slice(&path.pack()), account));
    })
    .unwrap();
    accounts
        .into_iter()
        .map(|(hashed, account)| {
            let mut slots = Vec::new();
            if account.storage_root != EMPTY_ROOT_HASH && store.contains(&account.storage_root) {
                walk_leaves(store, account.storage_root, |path, value| {
                    slots.push((B256::from_slice(&path.pack()), value.to_vec()))
                })
                .unwrap();
            }
            (hashed, account, slots)
        })
        .collect()
}

#[test]
fn reachable_accounts_and_slots_read_through_the_trie() {
    for (number, _) in MAINNET {
        let data = mainnet_block(number);
        let store = data.witness.store();
        let root = pre_state_root(&data);
        let reached = reachable(&store, root);
        assert!(!reached.is_empty(), "block {number}: no account reachable");
        let mut state = StateTrie::open(&store, root).unwrap();
        let mut slots = 0;
        for (hashed, account, storage) in &reached {
            assert_eq!(
                state.account_by_hash(*hashed).unwrap().as_ref(),
                Some(account)
            );
            for (hashed_slot, value) in storage {
                let got = state.storage_by_hash(*hashed, *hashed_slot).unwrap();
                assert_eq!(
                    alloy_rlp::encode(got),
                    *value,
                    "block {number} slot {hashed_slot}"
                );
                slots += 1;
            }
        }
        // Untouched state is still the pre-state.
        assert_eq!(state.root().unwrap(), root);
        println!(
            "block {number}: {} accounts and {slots} slots read through the trie",
            reached.len()
        );
    }
}

#[test]
fn real_addresses_resolve_through_the_sponge() {
    // The beneficiary is touched by every block, so the witness proves its account (or absence).
    for (number, _) in MAINNET {
        let data = mainnet_block(number);
        let header = Header::decode(&mut data.header_rlp()).unwrap();
        let store = data.witness.store();
        let mut state = StateTrie::open(&store, pre_state_root(&data)).unwrap();
        state
            .account(header.beneficiary)
            .unwrap_or_else(|e| panic!("block {number}: {e}"));
    }
    // 21882667's witness carries key preimages: every 20-byte one is an address it proves.
    let data = mainnet_block(21882667);
    let store = data.witness.store();
    let mut state = StateTrie::open(&store, pre_state_root(&data)).unwrap();
    let addresses: Vec<Address> = data
        .keys
        .iter()
        .filter(|k| k.len() == 20)
        .map(|k| Address::from_slice(k))
        .collect();
    assert!(addresses.len() > 100, "expected many address preimages");
    let present = addresses
        .iter()
        .filter(|a| state.account(**a).unwrap().is_some())
        .count();
    println!(
        "21882667: {} address preimages resolved, {present} accounts exist",
        addresses.len()
    );
    // The witness proves both kinds: most accounts a block touches exist (313 of 335 here),
    // and the rest (accounts the block creates, or calls that find nothing) are proved absent,
    // not missing: every lookup above resolved without a missing node.
    assert!(present * 10 >= addresses.len() * 9, "{present}");
    assert!(present < addresses.len(), "no absence proved");
}

#[test]
fn writes_then_restores_give_back_the_pre_state_root() {
    for (number, _) in MAINNET {
        let data = mainnet_block(number);
        let store = data.witness.store();
        let root = pre_state_root(&data);
        let reached = reachable(&store, root);
        let mut state = StateTrie::open(&store, root).unwrap();
        let accounts = state.accounts();
        // Bump every reachable account's nonce: the root must change...
        for (hashed, account, _) in &reached {
            let bumped = TrieAccount {
                nonce: account.nonce + 1,
                ..*account
            };
            accounts
                .insert(hashed.as_slice(), alloy_rlp::encode(bumped))
                .unwrap();
        }
        let changed = accounts.root();
        assert_ne!(changed, root);
        // ...and restoring every one must rehash back to exactly the pre-state root.
        for (hashed, account, _) in &reached {
            accounts
                .insert(hashed.as_slice(), alloy_rlp::encode(account))
                .unwrap();
        }
        assert_eq!(accounts.root(), root, "block {number}");
    }
}

#[test]
fn a_missing_node_is_named_with_its_path() {
    let data = mainnet_block(24171384);
    let root = data.witness.parent_state_root().unwrap();
    let full = data.witness.store();
    let reached = reachable(&full, root);
    for (hashed, _, _) in reached.iter().take(20) {
        let on_path = tests::path_to(&full, root, *hashed);
        assert!(on_path.len() > 1, "an account leaf sits below the root");
        let dropped = *on_path.last().unwrap();
        let store = WitnessStore::new(
            data.witness
                .state
                .iter()
                .filter(|n| mpt::keccak256(n) != dropped)
                .cloned(),
        );
        let mut trie = mpt::Trie::open(&store, root).unwrap();
        match trie.get(hashed.as_slice()) {
            Err(TrieError::MissingNode { hash, path }) => {
                assert_eq!(hash, dropped);
                // The path named is a prefix of the key's nibbles.
                let path = path.to_string();
                assert!(
                    hashed.to_string().starts_with(&path),
                    "{path} is not on the way to {hashed}"
                );
            }
            other => panic!("expected MissingNode {dropped}, got {other:?}"),
        }
    }
}
