//! The project's generated devnet blocks: `host gen` is deterministic and reproduces the files
//! committed under `blocks/`; the blocks hold what the generator promises (every transaction
//! kind succeeds, the reverting one fails, logs and new accounts and slots appear) and
//! validate natively.
use alloy_consensus::{Block, TxEnvelope};
use alloy_primitives::{keccak256, Address, B256, U256};
use alloy_rlp::Decodable;
use blockgen::{Devnet, FACTORY, HASHER, TOKEN};
use program::db::WitnessDb;

#[test]
fn gen_reproduces_the_committed_blocks_byte_for_byte() {
    let dir = std::env::temp_dir().join(format!("sv-gen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    blockgen::write_all(&dir).unwrap();
    blockgen::write_fork(&dir, blockgen::Fork::Amsterdam).unwrap();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    files.sort();
    assert_eq!(files.len(), 16, "{files:?}");
    for name in files {
        let fresh = std::fs::read(dir.join(&name)).unwrap();
        let committed = std::fs::read(tests::project_blocks_dir().join(&name))
            .unwrap_or_else(|e| panic!("blocks/{name:?} is not committed: {e}"));
        assert!(
            fresh == committed,
            "blocks/{name:?} differs from `host gen`'s output: run `host gen` and commit"
        );
    }
}

#[test]
fn the_committed_blocks_validate_natively_with_their_chain_config() {
    use alloy_hardforks::EthereumHardfork::{Amsterdam, Osaka};
    for (id, fork) in [
        ("devnet", Osaka),
        ("devnet-small", Osaka),
        ("devnet-amsterdam", Amsterdam),
        ("devnet-amsterdam-small", Amsterdam),
    ] {
        let run = host::native::run_native(&tests::project_blocks_dir(), id, None).unwrap();
        assert_eq!(run.chain.chain_id, blockgen::CHAIN_ID);
        assert_eq!(run.fork, fork);
        let out = run.verdict.unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_ne!(out.pre_state_root, out.post_state_root);
    }
}

/// Executes `block` on the devnet's genesis: receipts and the state changes.
fn execute(
    devnet: &Devnet,
    block: &Block<TxEnvelope>,
) -> (
    Vec<alloy_consensus::ReceiptEnvelope>,
    revm::database::BundleState,
) {
    let senders = program::body::recover_senders(&block.body.transactions).unwrap();
    let (_, hashes) = program::header::decode_ancestors(&devnet.witness.headers).unwrap();
    let store = devnet.witness.store();
    let state = program::witness::open_pre_state(&store, devnet.header.state_root).unwrap();
    let mut db = WitnessDb::new(state, &store, hashes);
    let executed = program::execute::execute(block, &senders, &devnet.chain, &mut db).unwrap();
    (executed.result.receipts, executed.bundle)
}

#[test]
fn the_default_block_exercises_what_it_claims() {
    let devnet = Devnet::new().unwrap();
    let generated = blockgen::default_block(&devnet).unwrap();
    let block = Block::<TxEnvelope>::decode(&mut generated.block_rlp.as_slice()).unwrap();
    let types: Vec<u8> = block
        .body
        .transactions
        .iter()
        .map(|t| t.tx_type() as u8)
        .collect();
    assert_eq!(types, [0, 1, 2, 2, 2, 2, 2, 2, 2, 2]);
    let (receipts, bundle) = execute(&devnet, &block);
    let status: Vec<bool> = receipts.iter().map(|r| r.status()).collect();
    assert_eq!(
        status,
        [true, true, true, true, true, true, true, true, true, false]
    );
    let logs: Vec<usize> = receipts.iter().map(|r| r.logs().len()).collect();
    assert_eq!(logs, [0, 0, 1, 1, 1, 1, 1, 1, 0, 0]);
    // Token transfers: Transfer(from, to, amount) with 20-byte addresses as topics.
    let transfer = &receipts[2].logs()[0];
    assert_eq!(transfer.address, TOKEN);
    assert_eq!(transfer.topics()[0], blockgen::asm::transfer_topic());
    // CREATE2: the children exist with code and their creator in slot 0.
    for (i, salt) in [(5usize, 1u64), (6, 2)] {
        let log = &receipts[i].logs()[0];
        assert_eq!(log.address, FACTORY);
        let child = Address::from_word(log.topics()[1]);
        let account = &bundle.state[&child];
        let info = account.info.as_ref().unwrap();
        assert_ne!(info.code_hash, alloy_primitives::KECCAK256_EMPTY);
        assert_eq!(
            account.storage[&U256::ZERO].present_value,
            U256::from_be_slice(FACTORY.into_word().as_slice())
        );
        assert_eq!(
            bundle.state[&FACTORY].storage[&U256::from(salt)].present_value,
            U256::from_be_slice(child.into_word().as_slice())
        );
    }
    // The hash chain: 64 new slots, slot i holding keccak^(i+1)(caller).
    let hasher = &bundle.state[&HASHER].storage;
    assert_eq!(hasher.len(), 64);
    let caller = blockgen::address_of(&blockgen::key(6));
    let mut h = caller.into_word();
    for i in 0..64u64 {
        h = keccak256(h);
        assert_eq!(
            hasher[&U256::from(i)].present_value,
            U256::from_be_bytes(h.0)
        );
    }
    assert_eq!(receipts[7].logs()[0].data.data.as_ref(), h.as_slice());
    // The CREATE deployment: the hasher's runtime at keccak(rlp(sender, 0)).
    let creator = blockgen::address_of(&blockgen::key(7));
    let created = creator.create(0);
    let info = bundle.state[&created].info.as_ref().unwrap();
    assert_eq!(info.code_hash, keccak256(blockgen::asm::hasher()));
    // Withdrawals credited (gwei → wei).
    let withdrawn = block.body.withdrawals.as_ref().unwrap()[1].address;
    assert_eq!(
        bundle.state[&withdrawn].info.as_ref().unwrap().balance,
        U256::from(1_000_000u64) * U256::from(1_000_000_000u64)
    );
    assert_eq!(block.header.hash_slow(), generated.output.block_hash);
    assert_ne!(block.header.logs_bloom, alloy_primitives::Bloom::ZERO);
    let _: B256 = block.header.requests_hash.unwrap();
}

#[test]
fn the_small_block_has_no_transactions_but_real_state_changes() {
    let devnet = Devnet::new().unwrap();
    let generated = blockgen::small_block(&devnet).unwrap();
    let block = Block::<TxEnvelope>::decode(&mut generated.block_rlp.as_slice()).unwrap();
    assert!(block.body.transactions.is_empty());
    let (_, bundle) = execute(&devnet, &block);
    // The EIP-4788 and EIP-2935 system calls and both withdrawals changed state.
    for address in [
        alloy_eips::eip4788::BEACON_ROOTS_ADDRESS,
        alloy_eips::eip2935::HISTORY_STORAGE_ADDRESS,
    ] {
        assert!(!bundle.state[&address].storage.is_empty(), "{address}");
    }
    for w in block.body.withdrawals.as_ref().unwrap().iter() {
        assert!(bundle.state.contains_key(&w.address));
    }
}

/// The committed devnet blocks' roots, checked by code other than the code that made them:
/// `host gen` fills each header from our execution and our `mpt` trie, so here the transactions,
/// withdrawals and receipts roots are alloy's ordered trie roots, and the state root is
/// alloy-trie's `HashBuilder` over the whole post-state (the genesis allocation from its JSON,
/// with the block's changes applied), never `mpt`.
#[test]
fn the_committed_blocks_roots_agree_with_alloy_over_the_full_post_state() {
    use alloy_consensus::proofs::{
        calculate_receipt_root, calculate_transaction_root, calculate_withdrawals_root,
    };
    use alloy_trie::root::{state_root_unhashed, storage_root_unhashed};
    use alloy_trie::TrieAccount;
    use std::collections::BTreeMap;

    for fork in [blockgen::Fork::Osaka, blockgen::Fork::Amsterdam] {
        let devnet = Devnet::of(fork).unwrap();
        let name = fork.devnet_id();
        let genesis: serde_json::Value = serde_json::from_slice(
            &std::fs::read(tests::project_blocks_dir().join(format!("{name}.genesis.json")))
                .unwrap(),
        )
        .unwrap();
        let alloc: BTreeMap<Address, chaindata::fixtures::GenesisAccount> =
            serde_json::from_value(genesis["alloc"].clone()).unwrap();
        assert_eq!(alloc, devnet.alloc);
        for id in [name.to_owned(), format!("{name}-small")] {
            let rlp =
                std::fs::read(tests::project_blocks_dir().join(format!("{id}.block.rlp"))).unwrap();
            let block = Block::<TxEnvelope>::decode(&mut rlp.as_slice()).unwrap();
            let header = &block.header;
            assert_eq!(
                calculate_transaction_root(&block.body.transactions),
                header.transactions_root,
                "{id}"
            );
            let withdrawals = block.body.withdrawals.as_ref().unwrap();
            assert_eq!(
                Some(calculate_withdrawals_root(withdrawals)),
                header.withdrawals_root,
                "{id}"
            );
            let (receipts, bundle) = execute(&devnet, &block);
            assert_eq!(
                calculate_receipt_root(&receipts),
                header.receipts_root,
                "{id}"
            );

            // The full post-state: every genesis account, then the block's changes.
            let mut state: BTreeMap<Address, (TrieAccount, BTreeMap<U256, U256>)> = alloc
                .iter()
                .map(|(address, a)| {
                    let account = TrieAccount {
                        nonce: a.nonce.to::<u64>(),
                        balance: a.balance,
                        storage_root: alloy_trie::EMPTY_ROOT_HASH,
                        code_hash: keccak256(&a.code),
                    };
                    (*address, (account, a.storage.clone()))
                })
                .collect();
            let mut changed = 0;
            for (address, account) in &bundle.state {
                let Some(info) = &account.info else {
                    state.remove(address);
                    continue;
                };
                let entry = state.entry(*address).or_insert_with(|| {
                    (
                        TrieAccount {
                            nonce: 0,
                            balance: U256::ZERO,
                            storage_root: alloy_trie::EMPTY_ROOT_HASH,
                            code_hash: alloy_primitives::KECCAK256_EMPTY,
                        },
                        BTreeMap::new(),
                    )
                });
                if account.was_destroyed() {
                    entry.1.clear();
                }
                entry.0.nonce = info.nonce;
                entry.0.balance = info.balance;
                entry.0.code_hash = info.code_hash;
                for (slot, value) in &account.storage {
                    entry.1.insert(*slot, value.present_value);
                }
                changed += 1;
            }
            assert!(changed > 0, "{id}");
            let accounts = state.into_iter().map(|(address, (mut account, storage))| {
                let slots = storage
                    .into_iter()
                    .filter(|(_, v)| !v.is_zero())
                    .map(|(slot, value)| (B256::from(slot.to_be_bytes::<32>()), value));
                account.storage_root = storage_root_unhashed(slots);
                (address, account)
            });
            assert_eq!(state_root_unhashed(accounts), header.state_root, "{id}");
        }
    }
}
