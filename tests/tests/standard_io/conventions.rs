//! The EIP-8025 output conventions the Reth guest (paradigmxyz/stateless) set when it moved to
//! tests-zkevm v0.8.4, held against this project's standard guest:
//!
//! 1. bytes that do not decode give the 43-byte result of zeros: there is no request, chain or
//!    schema to name. Truncated bytes, trailing bytes, bad offsets, unknown schema ids and
//!    another shape's schema id are each undecodable here, natively and (one case) in the VM.
//!    Two edits that look like corruption are not: the public keys are the input's last field
//!    and run to its end, so cutting or appending a whole number of 65-byte keys there is
//!    another, decodable input, whose result is that of convention 2.
//! 2. bytes that decode give the exact schema id they were decoded under, with `false` when
//!    validation fails, the input's chain id, and `hash_tree_root(new_payload_request)` of the
//!    request the input holds: Prague's shape under each of its four ids (0x1101 to 0x1401)
//!    and Amsterdam's (0x1501), for a bad state root in the header, a wrong public key, an
//!    extra key and an unknown chain.
//! 3. the storage of a destroyed account is cleared before the block's changes to it apply, so
//!    an account destroyed and created again starts with empty storage. Checked on blocks made
//!    here: under Osaka (EIP-6780) a contract that writes storage and destroys itself in the
//!    transaction that creates it, created again by CREATE2 in a later transaction; under
//!    Shanghai, where SELFDESTRUCT destroys any contract, a contract of the genesis with
//!    storage destroyed and then created again at the same address in the same block.
//!
//! The reference for (3) is independent of the code it checks. The project's generator
//! (`blockgen::seal_as`) seals a header with the validator's own state update
//! (`program::execute::apply_bundle` on the `mpt` trie), so a block it makes agrees with the
//! validator whether or not either clears storage. Here the post-state is the genesis
//! accounts with revm's own plain-state changes applied (`BundleState::to_plain_state`, whose
//! `wipe_storage` says which accounts to clear), and its root is built from scratch with
//! alloy-trie's `HashBuilder`: neither `apply_bundle` nor the `mpt` trie. The Shanghai block
//! is sealed with that root; the Osaka block's generated root must equal it.

use std::collections::BTreeMap;

use alloy_consensus::{
    proofs, Block, BlockBody, Header, TxEip1559, TxEnvelope, TxReceipt, EMPTY_OMMER_ROOT_HASH,
};
use alloy_eips::eip1559::BaseFeeParams;
use alloy_primitives::{keccak256, Address, Bloom, Bytes, TxKind, B256, U256};
use alloy_trie::{TrieAccount, EMPTY_ROOT_HASH, KECCAK_EMPTY};
use blockgen::{seal_as, signed, Devnet, Fork as DevnetFork, GAS_LIMIT};
use chaindata::fixtures::{full_state_witness, GenesisAccount};
use k256::ecdsa::SigningKey;
use program::standard::{validate, StandardError};
use program::{ChainConfig, ExecutionWitness, ValidationError};
use revm::database::{BundleState, OriginalValuesKnown};
use stateless_ssz::{decode_input, encode_input, Fork, Sha2Hasher, StatelessInput};

use super::{devnet, input_of, project_block};

const GWEI: u128 = 1_000_000_000;

// ---------------------------------------------------------------------------------------------
// 1. Undecodable bytes.
// ---------------------------------------------------------------------------------------------

/// `bytes` do not decode: the result is 43 zero bytes, the error a decoding one, and the owned
/// decoder refuses them too.
fn assert_undecodable(what: &str, bytes: &[u8]) {
    let out = validate(bytes, &Sha2Hasher);
    assert_eq!(out.result.to_bytes(), [0u8; 43], "{what}");
    assert!(
        matches!(out.error(), Some(StandardError::Decode(_))),
        "{what}: {:?}",
        out.error()
    );
    assert!(decode_input(bytes).is_err(), "{what}");
}

/// Where the input's fields start in its bytes (after the 2-byte schema id): the request's,
/// the witness's and the public keys' offsets, as absolute positions.
struct Layout {
    witness: usize,
    keys: usize,
}

fn u32_at(bytes: &[u8], at: usize) -> usize {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize
}

fn with_u32(bytes: &[u8], at: usize, value: u32) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    out
}

fn layout(bytes: &[u8]) -> Layout {
    // StatelessInput's fixed part: request offset, witness offset, chain id, keys offset.
    assert_eq!(
        u32_at(bytes, 2),
        20,
        "the request starts after the 20-byte fixed part"
    );
    Layout {
        witness: 2 + u32_at(bytes, 6),
        keys: 2 + u32_at(bytes, 18),
    }
}

#[test]
fn undecodable_bytes_give_43_zero_bytes() {
    let (data, chain) = devnet();
    let input = input_of(&data, &chain);
    let bytes = encode_input(&input);
    let keys = input.public_keys.len();
    assert!(keys >= 2, "the devnet block has transactions");
    let at = layout(&bytes);
    assert_eq!(bytes.len() - at.keys, 65 * keys);

    // Too short for a schema id, or a schema id alone (each fork's: its container is absent).
    assert_undecodable("empty", &[]);
    assert_undecodable("one byte", &[0x12]);
    for fork in Fork::ALL {
        assert_undecodable(fork.name(), &fork.schema_id().to_be_bytes());
    }

    // Schema ids this guest does not read, over an input that decodes under its own.
    for id in [0x1601u16, 0x1202, 0x1200, 0x0d01, 0x0000, 0xffff] {
        let mut other = bytes.clone();
        other[..2].copy_from_slice(&id.to_be_bytes());
        assert_undecodable(&format!("schema id {id:#06x}"), &other);
    }
    // Another shape's schema id over Prague's shape.
    for fork in [Fork::Paris, Fork::Shanghai, Fork::Cancun, Fork::Amsterdam] {
        let mut other = bytes.clone();
        other[..2].copy_from_slice(&fork.schema_id().to_be_bytes());
        assert_undecodable(&format!("Prague's shape as {}", fork.name()), &other);
    }

    // Truncated at every length. A cut that leaves a whole number of public keys is another
    // input (fewer keys): it decodes (convention 2).
    let mut cuts = 0;
    let mut fewer_keys = 0;
    let n = bytes.len();
    for len in 0..n {
        let cut = &bytes[..len];
        if len >= at.keys && (n - len).is_multiple_of(65) {
            let out = validate(cut, &Sha2Hasher);
            assert_eq!(out.result.schema_id, input.fork.schema_id(), "cut at {len}");
            assert!(!out.result.successful_validation, "cut at {len}");
            assert!(
                matches!(
                    out.error(),
                    Some(StandardError::Validation(
                        ValidationError::PublicKeyCount { .. }
                    ))
                ),
                "cut at {len}: {:?}",
                out.error()
            );
            fewer_keys += 1;
        } else {
            assert_undecodable(&format!("cut at {len} of {n}"), cut);
            cuts += 1;
        }
    }
    assert_eq!((cuts, fewer_keys), (n - keys, keys));
    println!("{n} input bytes: {cuts} cuts undecodable, {fewer_keys} leave fewer keys");

    // Trailing bytes that are not a whole key.
    for extra in [1usize, 2, 4, 32, 64, 66, 129] {
        for fill in [0u8, 0xff] {
            let mut longer = bytes.clone();
            longer.extend(std::iter::repeat_n(fill, extra));
            assert_undecodable(&format!("{extra} trailing bytes {fill:#04x}"), &longer);
        }
    }

    // Bad offsets in the outer container: the request's must be the fixed part's length, the
    // rest in order and in bounds.
    let ssz_len = (n - 2) as u32;
    let witness = (at.witness - 2) as u32;
    let keys_offset = (at.keys - 2) as u32;
    for (what, at, value) in [
        ("request offset 19", 2, 19),
        ("request offset 21", 2, 21),
        ("request offset 0", 2, 0),
        ("request offset max", 2, u32::MAX),
        ("witness offset before the request", 6, 19),
        ("witness offset = request offset (empty request)", 6, 20),
        ("witness offset after the keys", 6, keys_offset + 1),
        ("witness offset past the end", 6, ssz_len + 1),
        ("witness offset max", 6, u32::MAX),
        ("keys offset before the witness", 18, witness - 1),
        ("keys offset one byte on", 18, keys_offset + 1),
        ("keys offset past the end", 18, ssz_len + 1),
        ("keys offset max", 18, u32::MAX),
    ] {
        assert_undecodable(what, &with_u32(&bytes, at, value));
    }
    // ... and inside the witness: its own first offset (3 offsets: 12), and its node list's
    // first offset (a whole number of 4-byte offsets).
    assert_eq!(u32_at(&bytes, at.witness), 12);
    for value in [11, 13, 0, u32::MAX] {
        assert_undecodable(
            &format!("witness first offset {value}"),
            &with_u32(&bytes, at.witness, value),
        );
    }
    let nodes = at.witness + 12;
    let first = u32_at(&bytes, nodes) as u32;
    assert_eq!(first as usize, 4 * input.witness.state.len());
    for value in [first + 1, first - 2, 0, u32::MAX] {
        assert_undecodable(
            &format!("node list first offset {value}"),
            &with_u32(&bytes, nodes, value),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Validation errors name the decoded schema.
// ---------------------------------------------------------------------------------------------

/// The input of `block_rlp` (valid over `witness`) with its header's state root changed. The
/// payload's block hash is the changed header's, so the input decodes and its request is a
/// block, which validation refuses at the post-state root. Returns the input and the two roots
/// (the header's now, the real one).
fn with_bad_state_root(
    block_rlp: &[u8],
    witness: &ExecutionWitness,
    chain: &ChainConfig,
) -> (StatelessInput, B256, B256) {
    let store = witness.store();
    let valid = program::validate_block_over(block_rlp, &witness.headers, &store, chain).unwrap();
    let mut block = program::decode_block(block_rlp).unwrap();
    let real = block.header.state_root;
    block.header.state_root = keccak256(real);
    let produced = prover::standard::Produced {
        requests: &valid.requests,
        access_list: valid.access_list.as_deref(),
    };
    let input = prover::standard::stateless_input_with(
        &alloy_rlp::encode(&block),
        witness,
        chain,
        produced,
        false,
    )
    .unwrap();
    (input, block.header.state_root, real)
}

/// `input` validates `false` with its own schema id, chain id and request root; returns the
/// error.
fn false_with_its_ids(what: &str, input: &StatelessInput) -> StandardError {
    let bytes = encode_input(input);
    let out = validate(&bytes, &Sha2Hasher);
    let result = out.result;
    assert!(!result.successful_validation, "{what}");
    assert_eq!(result.schema_id, input.fork.schema_id(), "{what}");
    assert_eq!(
        u16::from_be_bytes([bytes[0], bytes[1]]),
        result.schema_id,
        "{what}: the id the bytes carry"
    );
    assert_eq!(result.chain_id, input.chain_id, "{what}");
    assert_eq!(
        result.new_payload_request_root,
        input.request_root(&Sha2Hasher),
        "{what}"
    );
    assert_ne!(result.to_bytes(), [0u8; 43], "{what}");
    out.outcome.unwrap_err()
}

#[test]
fn a_validation_error_gives_the_decoded_schema_id() {
    let (data, chain) = devnet();
    let honest = input_of(&data, &chain);
    let honest_root = honest.request_root(&Sha2Hasher);
    assert_eq!(honest.fork, Fork::Osaka);

    // A bad state root in the header, under each id of Prague's shape: the result names the
    // id the bytes carry, not the fork of the block's timestamp nor the shape's first fork.
    let (bad, claimed, real) = with_bad_state_root(&data.block_rlp, &data.witness, &chain);
    let bad_root = bad.request_root(&Sha2Hasher);
    assert_ne!(
        bad_root, honest_root,
        "the root is of the request the input holds"
    );
    let error = false_with_its_ids("bad state root", &bad);
    assert_eq!(
        error,
        StandardError::Validation(ValidationError::StateRoot {
            expected: claimed,
            got: real
        })
    );
    for fork in [Fork::Prague, Fork::Osaka, Fork::Bpo1, Fork::Bpo2] {
        let mut relabelled = bad.clone();
        relabelled.fork = fork;
        false_with_its_ids(&format!("bad state root as {}", fork.name()), &relabelled);
        assert_eq!(relabelled.request_root(&Sha2Hasher), bad_root);
    }

    // Amsterdam's shape (0x1501).
    let (amsterdam, amsterdam_chain) = project_block("devnet-amsterdam");
    let (bad, claimed, real) =
        with_bad_state_root(&amsterdam.block_rlp, &amsterdam.witness, &amsterdam_chain);
    assert_eq!(bad.fork, Fork::Amsterdam);
    assert_eq!(
        false_with_its_ids("Amsterdam, bad state root", &bad),
        StandardError::Validation(ValidationError::StateRoot {
            expected: claimed,
            got: real
        })
    );

    // A wrong public key: the request is the honest one, so is its root.
    let mut swapped = honest.clone();
    let mut keys = swapped.public_keys.to_vec();
    keys.swap(0, 1);
    swapped.public_keys = keys.into();
    let error = false_with_its_ids("keys swapped", &swapped);
    assert!(
        matches!(
            error,
            StandardError::Validation(ValidationError::PublicKey { index: 0, .. })
        ),
        "{error:?}"
    );
    assert_eq!(swapped.request_root(&Sha2Hasher), honest_root);

    // 65 bytes appended decode as one more key: a validation error, not undecodable bytes.
    let mut bytes = encode_input(&honest);
    bytes.extend([0x04; 65]);
    let out = validate(&bytes, &Sha2Hasher);
    let txs = honest.public_keys.len();
    assert_eq!(
        out.error(),
        Some(&StandardError::Validation(
            ValidationError::PublicKeyCount { keys: txs + 1, txs }
        ))
    );
    assert_eq!(out.result.schema_id, Fork::Osaka.schema_id());
    assert_eq!(out.result.chain_id, chain.chain_id);
    assert_eq!(out.result.new_payload_request_root, honest_root);

    // A chain this guest has no rules for: its id echoed, under the decoded schema.
    let mut unknown = honest.clone();
    unknown.chain_id = 424242;
    unknown.fork = Fork::Bpo2;
    assert_eq!(
        false_with_its_ids("unknown chain", &unknown),
        StandardError::UnknownChain(424242)
    );
}

// ---------------------------------------------------------------------------------------------
// 3. A destroyed account's storage is cleared.
// ---------------------------------------------------------------------------------------------

/// The factory: CREATE2 of [`phoenix_init`] with salt `calldata[0..32]`, forwarding the call's
/// value, and the result (the address, or zero when the creation failed) stored at slot
/// `salt`.
fn phoenix_factory() -> Bytes {
    let init = phoenix_init();
    let len = u8::try_from(init.len()).unwrap();
    let mut code = vec![
        0x60, len, 0x60, 0, 0x60, 0,
        0x39, // CODECOPY(0, init, len); init's offset patched below
        0x60, 0, 0x35, // salt
        0x60, len, 0x60, 0, 0x34, // size, offset, CALLVALUE
        0xf5, // CREATE2 -> [address]
        0x60, 0, 0x35, 0x55, // SSTORE(salt, address)
        0x00, // STOP
    ];
    code[3] = u8::try_from(code.len()).unwrap();
    code.extend_from_slice(&init);
    code.into()
}

/// The runtime of every incarnation: SELFDESTRUCT to the transaction's origin.
const PHOENIX_RUNTIME: [u8; 2] = [0x32, 0xff];

/// Storage the constructor reads before it writes: slot 4 = slot 1 + 1 and slot 5 = slot 3 + 1,
/// so both are 1 exactly when the incarnation's storage starts empty. With no value it then
/// writes slots 1 and 3 and destroys itself (within its creating transaction: destroyed under
/// EIP-6780 too); with a value it writes slot 2 and deploys [`PHOENIX_RUNTIME`].
fn phoenix_init() -> Vec<u8> {
    let mut code = vec![
        0x60, 1, 0x54, 0x60, 1, 0x01, 0x60, 4, 0x55, // slot4 = slot1 + 1
        0x60, 3, 0x54, 0x60, 1, 0x01, 0x60, 5, 0x55, // slot5 = slot3 + 1
        0x34, 0x15, 0x60, 0, 0x57, // CALLVALUE == 0: jump to destroy (patched)
        0x60, 0xbb, 0x60, 2, 0x55, // slot2 = 0xbb
        0x60, 2, 0x60, 0, 0x60, 0, 0x39, // CODECOPY(0, runtime (patched), 2)
        0x60, 2, 0x60, 0, 0xf3, // RETURN(0, 2)
    ];
    let destroy = code.len();
    code[21] = u8::try_from(destroy).unwrap();
    code.extend_from_slice(&[
        0x5b, // JUMPDEST
        0x60, 0xaa, 0x60, 1, 0x55, // slot1 = 0xaa
        0x60, 0xcc, 0x60, 3, 0x55, // slot3 = 0xcc
        0x32, 0xff, // SELFDESTRUCT(origin)
    ]);
    let runtime = code.len();
    code[31] = u8::try_from(runtime).unwrap();
    code.extend_from_slice(&PHOENIX_RUNTIME);
    code
}

const FACTORY: Address = Address::new([0xfa; 20]);

fn salt(n: u64) -> B256 {
    B256::from(U256::from(n))
}

/// The address CREATE2 gives salt `n`.
fn phoenix(n: u64) -> Address {
    FACTORY.create2(salt(n), keccak256(phoenix_init()))
}

/// The storage the genesis gives phoenix 1 (a contract there already, with [`PHOENIX_RUNTIME`]).
fn old_storage() -> BTreeMap<U256, U256> {
    [(1u64, 0x11u64), (3, 0x33), (7, 0x77), (9, 0x99)]
        .into_iter()
        .map(|(k, v)| (U256::from(k), U256::from(v)))
        .collect()
}

/// The genesis accounts besides the devnet's own: the factory, and phoenix 1 with storage.
fn extra_accounts() -> BTreeMap<Address, GenesisAccount> {
    BTreeMap::from([
        (
            FACTORY,
            GenesisAccount {
                nonce: U256::from(1),
                code: phoenix_factory(),
                ..Default::default()
            },
        ),
        (
            phoenix(1),
            GenesisAccount {
                nonce: U256::from(1),
                balance: U256::from(10u64).pow(U256::from(17)),
                code: Bytes::from_static(&PHOENIX_RUNTIME),
                storage: old_storage(),
            },
        ),
    ])
}

/// The block's transactions, all from devnet key 0: phoenix 1 called (it self-destructs),
/// created again (value 1); phoenix 2 created and destroyed in one transaction (no value),
/// then created again (value 1).
fn phoenix_transactions(key: &SigningKey, chain_id: u64) -> Vec<TxEnvelope> {
    let call = |nonce: u64, to: Address, value: u64, input: Vec<u8>| -> TxEnvelope {
        signed(
            TxEip1559 {
                chain_id,
                nonce,
                gas_limit: 500_000,
                max_fee_per_gas: 10 * GWEI,
                max_priority_fee_per_gas: GWEI,
                to: TxKind::Call(to),
                value: U256::from(value),
                input: input.into(),
                ..Default::default()
            },
            key,
        )
        .into()
    };
    vec![
        call(0, phoenix(1), 0, Vec::new()),
        call(1, FACTORY, 1, salt(1).to_vec()),
        call(2, FACTORY, 0, salt(2).to_vec()),
        call(3, FACTORY, 1, salt(2).to_vec()),
    ]
}

/// An account of the reference state.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Account {
    nonce: u64,
    balance: U256,
    code_hash: B256,
    storage: BTreeMap<U256, U256>,
}

type State = BTreeMap<Address, Account>;

fn genesis_state(alloc: &BTreeMap<Address, GenesisAccount>) -> State {
    alloc
        .iter()
        .map(|(address, a)| {
            let account = Account {
                nonce: a.nonce.to::<u64>(),
                balance: a.balance,
                code_hash: keccak256(&a.code),
                storage: a
                    .storage
                    .iter()
                    .filter(|(_, v)| !v.is_zero())
                    .map(|(k, v)| (*k, *v))
                    .collect(),
            };
            (*address, account)
        })
        .collect()
}

/// `state` with revm's plain-state changes of `bundle` applied; `clear`: an account whose
/// changes say `wipe_storage` loses its storage first (`false` is the state a validator that
/// never clears storage would reach).
fn apply_changes(mut state: State, bundle: &BundleState, clear: bool) -> State {
    let changes = bundle.to_plain_state(OriginalValuesKnown::Yes);
    for (address, info) in changes.accounts {
        match info {
            None => {
                state.remove(&address);
            }
            Some(info) => {
                let account = state.entry(address).or_insert_with(|| Account {
                    nonce: 0,
                    balance: U256::ZERO,
                    code_hash: KECCAK_EMPTY,
                    storage: BTreeMap::new(),
                });
                account.nonce = info.nonce;
                account.balance = info.balance;
                account.code_hash = info.code_hash;
            }
        }
    }
    for change in changes.storage {
        let Some(account) = state.get_mut(&change.address) else {
            continue;
        };
        if change.wipe_storage && clear {
            account.storage.clear();
        }
        for (slot, value) in change.storage {
            if value.is_zero() {
                account.storage.remove(&slot);
            } else {
                account.storage.insert(slot, value);
            }
        }
    }
    state
}

/// The state root of `state`, built from scratch with alloy-trie's `HashBuilder`.
fn reference_root(state: &State) -> B256 {
    alloy_trie::root::state_root_unhashed(state.iter().map(|(address, a)| {
        let storage_root = alloy_trie::root::storage_root_unhashed(
            a.storage.iter().map(|(k, v)| (B256::from(*k), *v)),
        );
        let account = TrieAccount {
            nonce: a.nonce,
            balance: a.balance,
            storage_root,
            code_hash: a.code_hash,
        };
        (*address, account)
    }))
}

/// Executes `block` over `witness` with the validator's executor (alloy-evm and revm) and
/// returns the result and revm's state changes; no state root is computed.
fn execute(
    block: &Block<TxEnvelope>,
    witness: &ExecutionWitness,
    chain: &ChainConfig,
) -> program::execute::Executed {
    let senders = program::body::recover_senders(&block.body.transactions).unwrap();
    let (_, hashes) = program::header::decode_ancestors(&witness.headers).unwrap();
    let store = witness.store();
    let state =
        program::witness::open_pre_state(&store, witness.parent_state_root().unwrap()).unwrap();
    let mut db = program::db::WitnessDb::new(state, &store, hashes);
    program::execute::execute(block, &senders, chain, &mut db).unwrap()
}

/// A genesis and its block's chain, witness and parent.
struct Chain {
    alloc: BTreeMap<Address, GenesisAccount>,
    parent: Header,
    witness: ExecutionWitness,
    chain: ChainConfig,
}

/// The devnet's accounts and [`extra_accounts`] under Shanghai's rules on chain 1 (the
/// standard guest's rules for schema 0x0f01), with a Shanghai genesis header.
fn shanghai_chain() -> Chain {
    let alloc = Devnet::with(extra_accounts(), GAS_LIMIT, DevnetFork::Osaka)
        .unwrap()
        .alloc;
    let (state_root, mut witness) = full_state_witness(&alloc, Vec::new()).unwrap();
    let parent = Header {
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        state_root,
        transactions_root: EMPTY_ROOT_HASH,
        receipts_root: EMPTY_ROOT_HASH,
        gas_limit: GAS_LIMIT,
        timestamp: blockgen::GENESIS_TIMESTAMP,
        extra_data: Bytes::from_static(b"conventions: shanghai"),
        base_fee_per_gas: Some(blockgen::GENESIS_BASE_FEE),
        withdrawals_root: Some(EMPTY_ROOT_HASH),
        ..Default::default()
    };
    witness.headers = vec![alloy_rlp::encode(&parent).into()];
    let chain = program::standard::rules::rules(1, Fork::Shanghai).unwrap();
    Chain {
        alloc,
        parent,
        witness,
        chain,
    }
}

/// Block 1 of `on` (Shanghai) holding `transactions`, sealed with the reference state root;
/// returns it and the reference post-state.
fn seal_with_reference(on: &Chain, transactions: Vec<TxEnvelope>) -> (Block<TxEnvelope>, State) {
    let parent = &on.parent;
    let header = Header {
        parent_hash: parent.hash_slow(),
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        beneficiary: Address::repeat_byte(0xc0),
        transactions_root: proofs::calculate_transaction_root(&transactions),
        number: 1,
        gas_limit: parent.gas_limit,
        timestamp: parent.timestamp + 12,
        extra_data: parent.extra_data.clone(),
        mix_hash: keccak256("conventions prevrandao"),
        base_fee_per_gas: parent.next_block_base_fee(BaseFeeParams::ethereum()),
        withdrawals_root: Some(EMPTY_ROOT_HASH),
        ..Default::default()
    };
    let mut block = Block {
        header,
        body: BlockBody {
            transactions,
            ommers: Vec::new(),
            withdrawals: Some(Vec::new().into()),
        },
    };
    let executed = execute(&block, &on.witness, &on.chain);
    let post = apply_changes(genesis_state(&on.alloc), &executed.bundle, true);
    let result = &executed.result;
    let header = &mut block.header;
    header.state_root = reference_root(&post);
    header.gas_used = result.gas_used;
    header.receipts_root = proofs::calculate_receipt_root(&result.receipts);
    header.logs_bloom = result
        .receipts
        .iter()
        .fold(Bloom::ZERO, |acc, r| acc | r.bloom());
    assert!(
        result.receipts.iter().all(|r| r.status()),
        "every call succeeds"
    );
    (block, post)
}

/// The witness holding only the items validation read (nodes and codes), in that order.
fn items_read(
    block_rlp: &[u8],
    witness: &ExecutionWitness,
    chain: &ChainConfig,
) -> ExecutionWitness {
    let store = witness.store();
    program::validate_block_over(block_rlp, &witness.headers, &store, chain).unwrap();
    let nodes = witness.state.len();
    let mut read = ExecutionWitness {
        state: Vec::new(),
        codes: Vec::new(),
        headers: witness.headers.clone(),
    };
    for at in store.first_uses() {
        let at = at as usize;
        if at < nodes {
            read.state.push(witness.state[at].clone());
        } else {
            read.codes.push(witness.codes[at - nodes].clone());
        }
    }
    read
}

/// `block_rlp` is valid over `witness` with post-state root `root`, by the block guest's
/// validation and by the standard guest's (its input `true` under its schema); returns the
/// standard input bytes.
fn valid_both_ways(
    what: &str,
    block_rlp: &[u8],
    witness: &ExecutionWitness,
    chain: &ChainConfig,
    root: B256,
) -> Vec<u8> {
    let output = program::validate_block(block_rlp, witness, chain)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(output.post_state_root, root, "{what}");
    let input = prover::standard::stateless_input(block_rlp, witness, chain).unwrap();
    let bytes = encode_input(&input);
    let out = validate(&bytes, &Sha2Hasher);
    assert!(
        out.result.successful_validation,
        "{what}: {:?}",
        out.error()
    );
    assert_eq!(
        out.outcome.as_ref().unwrap().post_state_root,
        root,
        "{what}"
    );
    bytes
}

fn slots(pairs: &[(u64, u64)]) -> BTreeMap<U256, U256> {
    pairs
        .iter()
        .map(|&(k, v)| (U256::from(k), U256::from(v)))
        .collect()
}

/// The storage of an incarnation created with a value on empty storage.
fn fresh_incarnation() -> BTreeMap<U256, U256> {
    slots(&[(2, 0xbb), (4, 1), (5, 1)])
}

/// The Shanghai block: phoenix 1, in the genesis with storage, destroyed and created again
/// at its address; phoenix 2 created, destroyed and created again. The validator's post-state
/// root is the reference's, over the full witness and over the items it read (which hold none
/// of phoenix 1's old storage), and a validator that kept the old storage would differ.
fn shanghai_block() -> (Chain, Vec<u8>, State) {
    let on = shanghai_chain();
    let key = blockgen::key(0);
    let (block, post) = seal_with_reference(&on, phoenix_transactions(&key, on.chain.chain_id));
    (on, alloy_rlp::encode(&block), post)
}

#[test]
fn a_destroyed_contracts_storage_is_cleared_under_shanghai() {
    let (on, block_rlp, post) = shanghai_block();
    // The reference builds the genesis root the project's trie built.
    assert_eq!(
        reference_root(&genesis_state(&on.alloc)),
        on.parent.state_root
    );

    let block: Block<TxEnvelope> = program::decode_block(&block_rlp).unwrap();
    let root = block.header.state_root;
    // Both contracts start again from empty storage, and their runtime.
    for n in [1, 2] {
        let account = &post[&phoenix(n)];
        assert_eq!(account.storage, fresh_incarnation(), "phoenix {n}");
        assert_eq!(account.code_hash, keccak256(PHOENIX_RUNTIME), "phoenix {n}");
        assert_eq!(account.balance, U256::from(1), "phoenix {n}");
        assert_eq!(
            post[&FACTORY].storage[&U256::from(n)],
            U256::from_be_slice(phoenix(n).as_slice())
        );
    }
    // Kept, the old storage would give another root: this block tells the two apart.
    let executed = execute(&block, &on.witness, &on.chain);
    let kept = apply_changes(genesis_state(&on.alloc), &executed.bundle, false);
    assert_eq!(
        kept[&phoenix(1)].storage,
        slots(&[
            (1, 0x11),
            (2, 0xbb),
            (3, 0x33),
            (4, 1),
            (5, 1),
            (7, 0x77),
            (9, 0x99)
        ])
    );
    assert_ne!(reference_root(&kept), root);

    valid_both_ways("shanghai", &block_rlp, &on.witness, &on.chain, root);

    // Over only the items validation read: phoenix 1's old storage root is not among them,
    // and the root is still the reference's.
    let read = items_read(&block_rlp, &on.witness, &on.chain);
    let old_root = alloy_trie::root::storage_root_unhashed(
        old_storage().into_iter().map(|(k, v)| (B256::from(k), v)),
    );
    assert_ne!(old_root, EMPTY_ROOT_HASH);
    assert!(on
        .witness
        .state
        .iter()
        .any(|node| keccak256(node) == old_root));
    assert!(
        read.state.iter().all(|node| keccak256(node) != old_root),
        "phoenix 1's old storage was read"
    );
    assert!(read.state.len() < on.witness.state.len());
    println!(
        "shanghai: post-state root {root}; {} of {} witness nodes read",
        read.state.len(),
        on.witness.state.len()
    );
    valid_both_ways("shanghai, items read", &block_rlp, &read, &on.chain, root);
}

/// The Osaka devnet block of the same transactions, by the project's generator: phoenix 1 is
/// not destroyed (EIP-6780: not created in the transaction) and keeps its storage, its
/// re-creation collides; phoenix 2, created and destroyed in one transaction, is created again
/// with empty storage. The generator's root is the reference's, and the validator's.
#[test]
fn a_contract_destroyed_where_it_was_created_starts_again_empty_under_osaka() {
    let devnet = Devnet::with(extra_accounts(), GAS_LIMIT, DevnetFork::Osaka).unwrap();
    let key = &devnet.keys[0];
    let transactions = phoenix_transactions(key, devnet.chain.chain_id);
    let senders = vec![blockgen::address_of(key); transactions.len()];
    let (block, succeeded) = seal_as(&devnet, transactions, Vec::new(), &senders).unwrap();
    assert_eq!(succeeded, [true; 4]);

    let executed = execute(&block, &devnet.witness, &devnet.chain);
    let post = apply_changes(genesis_state(&devnet.alloc), &executed.bundle, true);
    assert_eq!(post[&phoenix(1)].storage, old_storage());
    assert_eq!(post[&phoenix(1)].balance, U256::ZERO);
    assert_eq!(
        post[&FACTORY].storage.get(&U256::from(1)),
        None,
        "the collision"
    );
    assert_eq!(post[&phoenix(2)].storage, fresh_incarnation());
    assert_eq!(post[&phoenix(2)].code_hash, keccak256(PHOENIX_RUNTIME));
    let root = reference_root(&post);
    assert_eq!(block.header.state_root, root, "the generator's root");

    valid_both_ways(
        "osaka",
        &alloy_rlp::encode(&block),
        &devnet.witness,
        &devnet.chain,
        root,
    );
}

// ---------------------------------------------------------------------------------------------
// In the VM.
// ---------------------------------------------------------------------------------------------

/// The standard guest in the VM: bytes with one trailing byte reveal 43 zero bytes, and the
/// Shanghai destroy-and-recreate block reveals `true` (both as the native run, which
/// `run_standard` checks).
#[test]
fn the_conventions_hold_in_the_vm() {
    use prover::guest::{GuestSpec, Keccak, Program};
    let spec = GuestSpec::program(Program::Standard, Keccak::Ours);

    let (data, chain) = devnet();
    let mut trailing = encode_input(&input_of(&data, &chain));
    trailing.push(0);
    let run =
        prover::standard::run_standard(&trailing, Some(spec)).unwrap_or_else(|e| panic!("{e}"));
    let (result, _) = run.vm.expect("the VM ran");
    assert_eq!(result.to_bytes(), [0u8; 43]);
    assert!(matches!(run.native.error(), Some(StandardError::Decode(_))));

    let (on, block_rlp, _) = shanghai_block();
    let block: Block<TxEnvelope> = program::decode_block(&block_rlp).unwrap();
    let bytes = valid_both_ways(
        "shanghai",
        &block_rlp,
        &on.witness,
        &on.chain,
        block.header.state_root,
    );
    let run = prover::standard::run_standard(&bytes, Some(spec)).unwrap_or_else(|e| panic!("{e}"));
    let (result, _) = run.vm.expect("the VM ran");
    assert!(result.successful_validation);
    assert_eq!(result.schema_id, Fork::Shanghai.schema_id());
}
