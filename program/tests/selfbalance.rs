//! `SELFBALANCE` as `BlockEvm` runs it (the balance read from the journal's map, and
//! remembered while the journal does not change: `program::tracked`) against revm's own
//! mainnet EVM (its stock journal and instruction), in whole transactions on the same
//! pre-state. A contract reads its balance twice in a row (the second read is the remembered
//! one) after each way its balance can move, and stores both reads; the results, logs and
//! every changed account and slot must be revm's. Forgetting the remembered read at any change
//! of the journal is what this checks: a stale balance would store a different value.

use alloy_evm::{Evm, EvmEnv};
use alloy_primitives::{address, Address, Bytes, TxKind, B256, U256};
use program::evm::{BlockEvm, StorageProbe};
use revm::context::{BlockEnv, CfgEnv, Context, TxEnv};
use revm::database::InMemoryDB;
use revm::primitives::hardfork::SpecId;
use revm::state::{AccountInfo, Bytecode, EvmState};
use revm::{Database, DatabaseCommit, ExecuteCommitEvm, ExecuteEvm, MainBuilder, MainContext};

/// revm's in-memory database, with no pre-block storage anywhere (EIP-7610's probe).
#[derive(Debug, Clone, Default)]
struct Db(InMemoryDB);

impl Database for Db {
    type Error = <InMemoryDB as Database>::Error;
    fn basic(&mut self, address: Address) -> Result<Option<AccountInfo>, Self::Error> {
        self.0.basic(address)
    }
    fn code_by_hash(&mut self, hash: B256) -> Result<Bytecode, Self::Error> {
        self.0.code_by_hash(hash)
    }
    fn storage(&mut self, address: Address, key: U256) -> Result<U256, Self::Error> {
        self.0.storage(address, key)
    }
    fn block_hash(&mut self, number: u64) -> Result<B256, Self::Error> {
        self.0.block_hash(number)
    }
}

impl DatabaseCommit for Db {
    fn commit(&mut self, changes: EvmState) {
        self.0.commit(changes)
    }
}

impl StorageProbe for Db {
    fn has_storage(&mut self, _: Address) -> bool {
        false
    }
}

const SENDER: Address = address!("0x1000000000000000000000000000000000000001");
/// The contract under test.
const X: Address = address!("0x00000000000000000000000000000000000000aa");
/// An empty account that receives value.
const Y: Address = address!("0x00000000000000000000000000000000000000bb");
/// Reads its balance, then reverts.
const Z: Address = address!("0x00000000000000000000000000000000000000cc");
/// Delegated to: reads, sends 2 to `Y` (from `X`), reads.
const D: Address = address!("0x00000000000000000000000000000000000000dd");
/// Called with `CALLCODE` (so `X` to `X`): reads twice.
const E: Address = address!("0x00000000000000000000000000000000000000ef");
/// Delegated to: `SELFDESTRUCT` to `Y`.
const S: Address = address!("0x00000000000000000000000000000000000000ee");
/// The identity precompile.
const IDENTITY: Address = address!("0x0000000000000000000000000000000000000004");

const SELFBALANCE: u8 = 0x47;
const SSTORE: u8 = 0x55;
const CALL: u8 = 0xf1;
const CALLCODE: u8 = 0xf2;
const DELEGATECALL: u8 = 0xf4;

fn push(value: &[u8]) -> Vec<u8> {
    let mut code = vec![0x5f + value.len() as u8];
    code.extend_from_slice(value);
    code
}

/// `SELFBALANCE PUSH1 slot SSTORE`.
fn store_balance(slot: u8) -> Vec<u8> {
    [vec![SELFBALANCE], push(&[slot]), vec![SSTORE]].concat()
}

/// `op` (`CALL`, `CALLCODE` or `DELEGATECALL`) of `to` with all gas and `value`, its
/// result popped.
fn call(op: u8, to: Address, value: u8) -> Vec<u8> {
    let mut code = [push(&[0]), push(&[0]), push(&[0]), push(&[0])].concat();
    if op != DELEGATECALL {
        code.extend(push(&[value]));
    }
    code.extend(push(to.as_slice()));
    code.extend([0x5a, op, 0x50]); // GAS, the call, POP
    code
}

/// `X`'s code: two stored reads, then each change of its balance followed by two more.
fn contract() -> Vec<u8> {
    let moves = [
        call(CALL, Y, 3),          // value out
        call(CALL, Z, 5),          // value out, reverted by the callee
        call(CALL, Y, 0),          // no value
        call(DELEGATECALL, D, 0),  // value out from a delegated frame
        call(CALLCODE, E, 9),      // value to itself
        call(CALL, IDENTITY, 1),   // value to a precompile
        call(CALL, X, 0),          // reentered (the prologue below)
        create_that_returns_it(4), // a child created with 4 that self-destructs to X
        call(CALL, Z, 1),          // reverted again, after the balance rose
        call(DELEGATECALL, S, 0),  // X self-destructs (balance 0 after)
    ];
    let mut body = [store_balance(0), store_balance(1)].concat();
    for (i, change) in moves.into_iter().enumerate() {
        body.extend(change);
        let slot = 2 * i as u8 + 2;
        body.extend(store_balance(slot));
        body.extend(store_balance(slot + 1));
    }
    reentry_prologue(body)
}

/// `CREATE` with `value` of a child whose initcode stores its balance and self-destructs to
/// its creator (`SELFBALANCE PUSH0 SSTORE CALLER SELFDESTRUCT`).
fn create_that_returns_it(value: u8) -> Vec<u8> {
    let mut code = push(&[SELFBALANCE, 0x5f, SSTORE, 0x33, 0xff]);
    code.extend(push(&[0]));
    code.push(0x52); // MSTORE: the five bytes end memory's first word
    code.extend(push(&[5]));
    code.extend(push(&[27]));
    code.extend(push(&[value]));
    code.extend([0xf0, 0x50]); // CREATE, POP
    code
}

/// `body`, but when `X` calls itself: two stored reads (slots 200, 201) and stop.
fn reentry_prologue(body: Vec<u8>) -> Vec<u8> {
    let mut code = vec![0x33]; // CALLER
    code.extend(push(X.as_slice()));
    code.push(0x14); // EQ
    let patch = code.len() + 1;
    code.extend(push(&[0, 0]));
    code.push(0x57); // JUMPI
    code.extend(body);
    code.push(0x00);
    let dest = code.len() as u16;
    code.push(0x5b);
    code.extend(store_balance(200));
    code.extend(store_balance(201));
    code.push(0x00);
    code[patch..patch + 2].copy_from_slice(&dest.to_be_bytes());
    code
}

fn pre_state() -> Db {
    let mut db = Db::default();
    let mut put = |address: Address, balance: u64, code: Vec<u8>| {
        let code = Bytecode::new_raw(Bytes::from(code));
        db.0.insert_account_info(
            address,
            AccountInfo {
                balance: U256::from(balance),
                code_hash: code.hash_slow(),
                code: Some(code),
                ..Default::default()
            },
        );
    };
    put(SENDER, 10u64.pow(15), Vec::new());
    put(X, 1_000, contract());
    put(Y, 0, Vec::new());
    put(
        Z,
        10,
        [store_balance(0), store_balance(1), vec![0x5f, 0x5f, 0xfd]].concat(),
    );
    put(
        D,
        0,
        [
            store_balance(100),
            call(CALL, Y, 2),
            store_balance(101),
            store_balance(102),
        ]
        .concat(),
    );
    put(E, 0, [store_balance(110), store_balance(111)].concat());
    put(S, 0, [push(Y.as_slice()), vec![0xff]].concat());
    db
}

#[test]
fn selfbalance_reads_what_revm_reads_after_every_change_of_a_balance() {
    for spec in [
        SpecId::CANCUN,
        SpecId::PRAGUE,
        SpecId::OSAKA,
        SpecId::AMSTERDAM,
    ] {
        let cfg = CfgEnv::new_with_spec(spec);
        let block = BlockEnv {
            gas_limit: 30_000_000,
            ..Default::default()
        };
        let mut ours = BlockEvm::new(pre_state(), EvmEnv::new(cfg.clone(), block.clone()));
        let mut theirs = Context::mainnet()
            .with_db(pre_state())
            .with_cfg(cfg)
            .with_block(block)
            .build_mainnet();
        // Value into X, then none, another account, X again (after it self-destructed, or
        // not, by fork), and Z: the reads in each transaction start from the last one's state.
        let txs = [(X, 7u64), (X, 0), (Y, 1), (X, 11), (Z, 0)];
        for (nonce, (to, value)) in txs.into_iter().enumerate() {
            let tx = TxEnv {
                caller: SENDER,
                kind: TxKind::Call(to),
                value: U256::from(value),
                gas_limit: 5_000_000,
                gas_price: 0,
                nonce: nonce as u64,
                ..Default::default()
            };
            let a = ours.transact_raw(tx.clone()).expect("ours");
            let b = theirs.transact(tx).expect("revm's");
            assert_eq!(a.result, b.result, "{spec:?}, transaction {nonce}");
            assert_eq!(a.state, b.state, "{spec:?}, transaction {nonce}");
            if nonce == 0 {
                assert!(a.result.is_success(), "{spec:?}: {:?}", a.result);
                // The reads moved: X's balance after the first change is not its first.
                let slots = &a.state[&X].storage;
                let read = |slot: u64| slots[&U256::from(slot)].present_value;
                assert_eq!(read(0), read(1));
                assert_ne!(read(1), read(2), "{spec:?}: the value sent out is not seen");
            }
            ours.db_mut().commit(a.state);
            theirs.commit(b.state);
        }
    }
}
