//! Amsterdam on the project's devnet (`host gen --fork amsterdam`): the EIP-7928 access list
//! execution builds holds what the EIP says each phase touched and hashes as alloy's own code
//! hashes it; a header whose list hash or item count breaks the rules is invalid, naming the
//! rule; and a chain switches from BPO2's rules to Amsterdam's at the activation timestamp,
//! header shape and system calls with it; in the VM, the devnet block and a sample of the
//! Amsterdam corpus agree with the native runs in both guests.

use alloy_consensus::{Block, Header, TxEnvelope};
use alloy_eips::eip7928::{compute_block_access_list_hash, BlockAccessIndex, ITEM_COST};
use alloy_hardforks::{EthereumHardfork, ForkCondition};
use alloy_primitives::{Address, B256};
use alloy_rlp::Decodable;
use blockgen::{Devnet, Fork};
use program::{ValidationError, Verdict};

/// The block `generated` re-encoded after `edit` to its header.
fn with_header(block_rlp: &[u8], edit: impl FnOnce(&mut Header)) -> Vec<u8> {
    let mut block = Block::<TxEnvelope>::decode(&mut &block_rlp[..]).unwrap();
    edit(&mut block.header);
    alloy_rlp::encode(&block)
}

/// What validating a block gives these tests: what it commits to, and the access list
/// execution built.
struct Built {
    output: program::BlockOutput,
    access_list: Option<alloy_eips::eip7928::BlockAccessList>,
}

fn validate(devnet: &Devnet, block_rlp: &[u8]) -> Result<Built, String> {
    let store = devnet.witness.store();
    program::validate_block_over(block_rlp, &devnet.witness.headers, &store, &devnet.chain)
        .map(|valid| Built {
            output: valid.output,
            access_list: valid.access_list,
        })
        .map_err(|e| format!("{e:?}"))
}

#[test]
fn the_built_access_list_holds_each_phase_and_hashes_as_alloy_hashes_it() {
    let devnet = Devnet::of(Fork::Amsterdam).unwrap();
    let generated = blockgen::default_block(&devnet).unwrap();
    let block = Block::<TxEnvelope>::decode(&mut generated.block_rlp.as_slice()).unwrap();
    let valid = validate(&devnet, &generated.block_rlp).unwrap();
    // Every transaction does what it does under Osaka (the last one reverts by design).
    assert_eq!(
        generated.succeeded,
        [true, true, true, true, true, true, true, true, true, false]
    );
    let list = valid.access_list.expect("an Amsterdam block has a list");
    // The header's hash is execution's list, hashed by alloy's code (alloy-rlp, tiny-keccak on
    // the host) as well as by ours (the sponge).
    let hash = compute_block_access_list_hash(&list);
    assert_eq!(block.header.block_access_list_hash, Some(hash));
    assert_eq!(program::access_list::hash(&list), hash);
    // Canonical order: accounts by address, no duplicates.
    assert!(list.windows(2).all(|w| w[0].address < w[1].address));
    let account = |address: Address| {
        list.iter()
            .find(|a| a.address == address)
            .unwrap_or_else(|| panic!("{address} not in the list"))
    };
    let index = BlockAccessIndex::new;
    // Phase 0: the EIP-4788 and EIP-2935 system calls write their slots.
    for contract in [
        alloy_eips::eip4788::BEACON_ROOTS_ADDRESS,
        alloy_eips::eip2935::HISTORY_STORAGE_ADDRESS,
    ] {
        let writes = account(contract).storage_changes();
        assert!(!writes.is_empty(), "{contract}");
        assert!(writes
            .iter()
            .flat_map(|slot| &slot.changes)
            .all(|c| c.block_access_index == index(0)));
    }
    // Transaction i at i + 1: each sender's nonce moves at its transactions' indices.
    let senders = program::body::recover_senders(&block.body.transactions).unwrap();
    for (i, sender) in senders.iter().enumerate() {
        let nonces = account(sender.signer()).nonce_changes();
        assert!(
            nonces
                .iter()
                .any(|n| n.block_access_index == index(i as u64 + 1)),
            "transaction {i}: {nonces:?}"
        );
    }
    // After the last transaction: the withdrawals' balances, the request contracts read
    // (EIP-7002, EIP-7251, EIP-8282).
    let last = index(senders.len() as u64 + 1);
    for w in block.body.withdrawals.as_ref().unwrap().iter() {
        let balances = account(w.address).balance_changes();
        assert_eq!(
            balances.last().unwrap().block_access_index,
            last,
            "{}",
            w.address
        );
    }
    for contract in [
        alloy_eips::eip7002::WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS,
        alloy_eips::eip7251::CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS,
        alloy_eips::eip8282::BUILDER_DEPOSIT_CONTRACT_ADDRESS,
        alloy_eips::eip8282::BUILDER_EXIT_CONTRACT_ADDRESS,
    ] {
        account(contract);
    }
    // The hash chain's 64 new slots, written by transaction 7 (index 8).
    let hasher = account(blockgen::HASHER).storage_changes();
    assert_eq!(hasher.len(), 64);
    assert!(hasher
        .iter()
        .all(|s| s.changes.len() == 1 && s.changes[0].block_access_index == index(8)));
}

/// A header whose list hash is not execution's list is invalid, naming both hashes; a list
/// given beside it is compared entry by entry and the first differing account and field named.
#[test]
fn a_wrong_access_list_hash_is_invalid() {
    let devnet = Devnet::of(Fork::Amsterdam).unwrap();
    let generated = blockgen::default_block(&devnet).unwrap();
    let built = validate(&devnet, &generated.block_rlp)
        .unwrap()
        .access_list
        .unwrap();
    let true_hash = program::access_list::hash(&built);
    let planted = B256::repeat_byte(0xba);
    let forged = with_header(&generated.block_rlp, |h| {
        h.block_access_list_hash = Some(planted)
    });
    let store = devnet.witness.store();
    let result =
        program::validate_block_over(&forged, &devnet.witness.headers, &store, &devnet.chain);
    let err = result.map(|v| v.output).unwrap_err();
    assert_eq!(
        err,
        ValidationError::BlockAccessListHash {
            expected: planted,
            got: true_hash
        }
    );
    assert_eq!(err.verdict(), Verdict::Invalid);
    // The lists a prover could claim instead: one account dropped, one balance changed, one
    // read added; each is named where it parts from the built list.
    let mut missing = built.clone();
    let dropped = missing.remove(3).address;
    let difference = program::access_list::first_difference(&missing, &built).unwrap();
    assert_eq!((difference.account, difference.field), (dropped, "account"));
    let mut changed = built.clone();
    let k = changed
        .iter()
        .position(|a| !a.balance_changes.is_empty())
        .unwrap();
    changed[k].balance_changes[0].post_balance += alloy_primitives::U256::from(1);
    let difference = program::access_list::first_difference(&changed, &built).unwrap();
    assert_eq!(
        (difference.account, difference.field),
        (built[k].address, "balance_changes")
    );
    let mut read = built.clone();
    read[0]
        .storage_reads
        .push(alloy_primitives::U256::from(u64::MAX));
    let difference = program::access_list::first_difference(&read, &built).unwrap();
    assert_eq!(
        (difference.account, difference.field),
        (built[0].address, "storage_reads")
    );
    assert_eq!(program::access_list::first_difference(&built, &built), None);
}

/// EIP-7928's size rule: at most `gas_limit / ITEM_COST` accounts and slots. A block whose
/// system calls and one transfer touch more than a 25,000-gas limit allows is invalid, though
/// its header carries the very list's hash.
#[test]
fn an_access_list_over_the_item_limit_is_invalid() {
    let gas_limit = 25_000;
    let devnet = Devnet::with(Default::default(), gas_limit, Fork::Amsterdam).unwrap();
    let transfer = alloy_consensus::TxEip1559 {
        chain_id: devnet.chain.chain_id,
        nonce: 0,
        gas_limit: 21_000,
        max_fee_per_gas: 10_000_000_000,
        max_priority_fee_per_gas: 1_000_000_000,
        to: alloy_primitives::TxKind::Call(blockgen::address_of(&devnet.keys[1])),
        value: alloy_primitives::U256::from(1),
        ..Default::default()
    };
    let tx: TxEnvelope = blockgen::signed(transfer, &devnet.keys[0]).into();
    let sender = blockgen::address_of(&devnet.keys[0]);
    let (block, succeeded) = blockgen::seal_as(&devnet, vec![tx], Vec::new(), &[sender]).unwrap();
    assert_eq!(succeeded, [true]);
    let rlp = alloy_rlp::encode(&block);
    let store = devnet.witness.store();
    let err = program::validate_block_over(&rlp, &devnet.witness.headers, &store, &devnet.chain)
        .map(|v| v.output)
        .unwrap_err();
    let limit = gas_limit / ITEM_COST as u64;
    match err {
        ValidationError::BlockAccessListItems { items, limit: l } => {
            assert_eq!(l, limit);
            assert!(items > limit, "{items}");
        }
        other => panic!("{other:?}"),
    }
}

/// BPO2 → Amsterdam in one chain: the devnet's genesis under BPO2's header shape, Amsterdam at
/// block 1's timestamp. Block 1 made under Amsterdam is valid there and, one second before the
/// switch, refused for the fields BPO2 does not have; block 1 made under BPO2 is valid one
/// second before and refused at the switch for lacking them.
#[test]
fn a_chain_switches_to_amsterdam_at_its_timestamp() {
    let at = |switch: u64| {
        let mut devnet = Devnet::of(Fork::Amsterdam).unwrap();
        devnet.header.block_access_list_hash = None;
        devnet.header.slot_number = None;
        devnet.witness.headers = vec![alloy_rlp::encode(&devnet.header).into()];
        let amsterdam = devnet
            .chain
            .forks
            .iter_mut()
            .find(|(f, _)| *f == EthereumHardfork::Amsterdam)
            .unwrap();
        amsterdam.1 = ForkCondition::Timestamp(switch);
        devnet
    };
    let block_time = blockgen::GENESIS_TIMESTAMP + 12;
    let (amsterdam, bpo2) = (at(block_time), at(block_time + 1));
    let under_amsterdam = blockgen::default_block(&amsterdam).unwrap();
    let under_bpo2 = blockgen::default_block(&bpo2).unwrap();
    let shape = |rlp: &[u8]| {
        let block = Block::<TxEnvelope>::decode(&mut &rlp[..]).unwrap();
        (
            block.header.block_access_list_hash.is_some(),
            block.header.slot_number.is_some(),
        )
    };
    assert_eq!(shape(&under_amsterdam.block_rlp), (true, true));
    assert_eq!(shape(&under_bpo2.block_rlp), (false, false));
    // Amsterdam's state gas: the same transactions cost more.
    assert!(under_amsterdam.output.gas_used > under_bpo2.output.gas_used);
    let verdict = |devnet: &Devnet, rlp: &[u8]| validate(devnet, rlp).map(|v| v.output.block_hash);
    assert!(verdict(&amsterdam, &under_amsterdam.block_rlp).is_ok());
    assert!(verdict(&bpo2, &under_bpo2.block_rlp).is_ok());
    let refused = verdict(&bpo2, &under_amsterdam.block_rlp).unwrap_err();
    assert!(
        refused.contains("block_access_list_hash") && refused.contains("required: false"),
        "{refused}"
    );
    let refused = verdict(&amsterdam, &under_bpo2.block_rlp).unwrap_err();
    assert!(
        refused.contains("block_access_list_hash") && refused.contains("required: true"),
        "{refused}"
    );
    // The schedule is in the chain digest: the two chains differ only in Amsterdam's time.
    assert_ne!(amsterdam.chain.digest(), bpo2.chain.digest());
}

/// The Amsterdam devnet block in the VM: the block guest reveals the native public values
/// under Amsterdam's rules (its access list built and hashed in the guest), as the Osaka block
/// of the same transactions does under Osaka's. Prints both runs' cells per gas (BENCHMARKS.md).
#[test]
fn the_amsterdam_devnet_block_runs_in_the_vm() {
    use host::report::{run_in_vm, Mode};
    use prover::guest::{Crypto, GuestSpec, Keccak};
    let blocks = tests::project_blocks_dir();
    for (id, fork) in [
        ("devnet-amsterdam", EthereumHardfork::Amsterdam),
        ("devnet", EthereumHardfork::Osaka),
    ] {
        let native = host::native::run_native(&blocks, id, None).unwrap();
        assert_eq!(native.fork, fork);
        let gas = native.verdict.as_ref().unwrap().gas_used;
        let report = run_in_vm(
            &native,
            Mode::Metered,
            GuestSpec::block(Keccak::Ours, Crypto::Openvm),
        )
        .unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(report.valid, "{id}");
        let (insns, cells) = (report.instructions.unwrap(), report.main_cells.unwrap());
        println!(
            "{id}: {gas} gas, {insns} instructions, {cells} main cells, {:.0} cells/gas",
            cells as f64 / gas as f64
        );
    }
}

/// A sample of the Amsterdam corpus through both guests in the VM: every block valid natively
/// reveals the native public values, each rejected one ends the block guest with the native
/// verdict, and the standard guest reveals the native result on every block's 0x1501 input.
#[test]
fn a_sample_of_the_amsterdam_corpus_agrees_in_the_vm() {
    use host::ef_tests::{discover, vm};
    let corpus = tests::shared_blocks_dir().join("../ef-tests-amsterdam");
    let cases = vm::sample(&discover(&[corpus]).unwrap(), 6);
    assert_eq!(cases.len(), 6);
    assert!(cases.iter().any(|c| c.blocks > 1));
    let sample = vm::run_sample(&cases).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "Amsterdam in the VM: {} valid blocks, {} rejected, standard guest {} blocks ({} false), {:.1} s",
        sample.valid_blocks,
        sample.rejected_blocks,
        sample.standard_blocks,
        sample.standard_false,
        sample.wall_s
    );
    assert!(sample.failures.is_empty(), "{:#?}", sample.failures);
    assert!(sample.over_budget.is_empty(), "{:#?}", sample.over_budget);
    assert!(sample.valid_blocks >= 6);
    assert_eq!(
        sample.standard_blocks,
        sample.valid_blocks + sample.rejected_blocks
    );
}
