//! The EVM the block executor runs: revm's mainnet EVM with one rule added, EIP-7610, and
//! system calls given the EIPs' gas ([`SYSTEM_CALL_GAS`]).
//!
//! EIP-7610 (retroactive to every fork) makes a contract creation collide when its address
//! already has **non-empty storage**, as well as a nonce or code. revm checks only nonce and
//! code (a full node would need the storage root, which revm's database interface does not
//! expose), so a creation into an account that holds storage but no nonce or code would
//! succeed in revm and fail on Ethereum: the EF tests' `InitCollision*` cases. A stateless
//! verifier does know the storage root: it is in the account's leaf, which the witness proves.
//!
//! The rule lives in the one place revm decides collisions, the journal's
//! `create_account_checkpoint`: [`Eip7610Journal`] wraps revm's [`Journal`], lets it decide
//! first, and when revm would create the account but its pre-block storage is non-empty (and
//! the account was not destroyed earlier in the block), reverts revm's checkpoint and reports
//! the collision, exactly as revm does for a nonce or code collision. Everything else is
//! delegated unchanged. alloy-evm's `EthEvm` fixes revm's default journal in its context type,
//! so [`BlockEvm`] is the same thin `alloy_evm::Evm` over revm with this journal, and revm's
//! `EthPrecompiles` (the precompile set alloy-evm wraps, through the same crypto hooks).

use alloc::vec::Vec;
use alloy_evm::{Evm, EvmEnv};
use alloy_primitives::{Address, Bytes, B256, U256};
use alloy_trie::EMPTY_ROOT_HASH;
use revm::context::journal::Journal;
use revm::context::result::{EVMError, HaltReason, ResultAndState};
use revm::context::{BlockEnv, CfgEnv, Context, TxEnv};
use revm::context_interface::context::{SStoreResult, SelfDestructResult, StateLoad};
use revm::context_interface::journaled_state::account::JournaledAccount;
use revm::context_interface::journaled_state::entry::JournalEntry;
use revm::context_interface::journaled_state::{
    AccountInfoLoad, AccountLoad, JournalCheckpoint, JournalLoadError, JournalTr, TransferError,
};
use revm::database::State;
use revm::handler::{EthFrame, EthPrecompiles, Handler, MainBuilder, MainnetHandler, SystemCallTx};
use revm::interpreter::interpreter::EthInterpreter;
use revm::primitives::hardfork::SpecId;
use revm::primitives::{AddressMap, AddressSet, HashSet, Log, StorageKey, StorageValue};
use revm::state::{Account, Bytecode, EvmState};
use revm::{Database, ExecuteEvm};

use crate::db::PreState;
use crate::jumps::{self, JumpDests};
use revm::bytecode::opcode::{JUMP, JUMPI};
use revm::interpreter::{Instruction, InstructionContext, InstructionExecResult};

/// Whether an account's storage, as the block found it, is non-empty.
pub trait StorageProbe {
    /// `true` when `address` holds storage that a creation at it would collide with.
    fn has_storage(&mut self, address: Address) -> bool;
}

impl<DB: PreState> StorageProbe for &mut State<&mut DB> {
    fn has_storage(&mut self, address: Address) -> bool {
        // Destroyed earlier in the block: its storage is gone.
        if self
            .cache
            .accounts
            .get(&address)
            .is_some_and(|a| a.status.was_destroyed())
        {
            return false;
        }
        let db = &mut *self.database;
        match db.storage_root(address) {
            Ok(root) => root.is_some_and(|root| root != EMPTY_ROOT_HASH),
            // Unreachable in practice (revm loaded this account just before); kept as the
            // witness gap it is, which the validator reports.
            Err(e) => {
                db.first_error().get_or_insert(e);
                false
            }
        }
    }
}

/// revm's journal, with EIP-7610's storage collision.
#[derive(Debug)]
pub struct Eip7610Journal<DB: Database> {
    inner: Journal<DB>,
}

impl<DB: Database + StorageProbe> JournalTr for Eip7610Journal<DB> {
    type Database = DB;
    type State = EvmState;
    type JournaledAccount<'a>
        = JournaledAccount<'a, DB, JournalEntry>
    where
        DB: 'a;

    fn new(database: DB) -> Self {
        Self {
            inner: Journal::new(database),
        }
    }

    fn create_account_checkpoint(
        &mut self,
        caller: Address,
        address: Address,
        balance: U256,
        spec_id: SpecId,
    ) -> Result<JournalCheckpoint, TransferError> {
        let checkpoint = self
            .inner
            .create_account_checkpoint(caller, address, balance, spec_id)?;
        if self.inner.database.has_storage(address) {
            self.inner.checkpoint_revert(checkpoint);
            return Err(TransferError::CreateCollision);
        }
        Ok(checkpoint)
    }

    // ---- Everything else is revm's journal. ----

    fn db_and_state(&self) -> (&DB, &EvmState) {
        self.inner.db_and_state()
    }
    fn db_and_state_mut(&mut self) -> (&mut DB, &mut EvmState) {
        self.inner.db_and_state_mut()
    }
    fn sload(
        &mut self,
        address: Address,
        key: StorageKey,
    ) -> Result<StateLoad<StorageValue>, DB::Error> {
        self.inner.sload(address, key)
    }
    fn sload_skip_cold_load(
        &mut self,
        address: Address,
        key: StorageKey,
        skip_cold_load: bool,
    ) -> Result<StateLoad<StorageValue>, JournalLoadError<DB::Error>> {
        self.inner
            .sload_skip_cold_load(address, key, skip_cold_load)
    }
    fn sstore(
        &mut self,
        address: Address,
        key: StorageKey,
        value: StorageValue,
    ) -> Result<StateLoad<SStoreResult>, DB::Error> {
        self.inner.sstore(address, key, value)
    }
    fn sstore_skip_cold_load(
        &mut self,
        address: Address,
        key: StorageKey,
        value: StorageValue,
        skip_cold_load: bool,
    ) -> Result<StateLoad<SStoreResult>, JournalLoadError<DB::Error>> {
        self.inner
            .sstore_skip_cold_load(address, key, value, skip_cold_load)
    }
    fn tload(&mut self, address: Address, key: StorageKey) -> StorageValue {
        self.inner.tload(address, key)
    }
    fn tstore(&mut self, address: Address, key: StorageKey, value: StorageValue) {
        self.inner.tstore(address, key, value)
    }
    fn log(&mut self, log: Log) {
        self.inner.log(log)
    }
    fn take_logs(&mut self) -> Vec<Log> {
        self.inner.take_logs()
    }
    fn logs(&self) -> &[Log] {
        self.inner.logs()
    }
    fn selfdestruct(
        &mut self,
        address: Address,
        target: Address,
        skip_cold_load: bool,
    ) -> Result<StateLoad<SelfDestructResult>, JournalLoadError<DB::Error>> {
        self.inner.selfdestruct(address, target, skip_cold_load)
    }
    fn warm_access_list(&mut self, access_list: AddressMap<HashSet<StorageKey>>) {
        self.inner.warm_access_list(access_list)
    }
    fn warm_coinbase_account(&mut self, address: Address) {
        self.inner.warm_coinbase_account(address)
    }
    fn warm_precompiles(&mut self, addresses: &AddressSet) {
        self.inner.warm_precompiles(addresses)
    }
    fn precompile_addresses(&self) -> &AddressSet {
        self.inner.precompile_addresses()
    }
    fn set_spec_id(&mut self, spec_id: SpecId) {
        self.inner.set_spec_id(spec_id)
    }
    fn set_eip7708_config(&mut self, disabled: bool, eip8246_delayed_clear_disabled: bool) {
        self.inner
            .set_eip7708_config(disabled, eip8246_delayed_clear_disabled)
    }
    fn touch_account(&mut self, address: Address) {
        self.inner.touch_account(address)
    }
    fn transfer(
        &mut self,
        from: Address,
        to: Address,
        balance: U256,
    ) -> Result<Option<TransferError>, DB::Error> {
        self.inner.transfer(from, to, balance)
    }
    fn transfer_loaded(
        &mut self,
        from: Address,
        to: Address,
        balance: U256,
    ) -> Option<TransferError> {
        self.inner.transfer_loaded(from, to, balance)
    }
    #[allow(deprecated)]
    fn caller_accounting_journal_entry(
        &mut self,
        address: Address,
        old_balance: U256,
        bump_nonce: bool,
    ) {
        self.inner
            .caller_accounting_journal_entry(address, old_balance, bump_nonce)
    }
    fn balance_incr(&mut self, address: Address, balance: U256) -> Result<(), DB::Error> {
        self.inner.balance_incr(address, balance)
    }
    #[allow(deprecated)]
    fn nonce_bump_journal_entry(&mut self, address: Address) {
        self.inner.nonce_bump_journal_entry(address)
    }
    fn load_account(&mut self, address: Address) -> Result<StateLoad<&Account>, DB::Error> {
        self.inner.load_account(address)
    }
    fn load_account_with_code(
        &mut self,
        address: Address,
    ) -> Result<StateLoad<&Account>, DB::Error> {
        self.inner.load_account_with_code(address)
    }
    fn load_account_delegated(
        &mut self,
        address: Address,
    ) -> Result<StateLoad<AccountLoad>, DB::Error> {
        self.inner.load_account_delegated(address)
    }
    fn load_account_mut(
        &mut self,
        address: Address,
    ) -> Result<StateLoad<Self::JournaledAccount<'_>>, DB::Error> {
        self.inner.load_account_mut(address)
    }
    fn load_account_mut_skip_cold_load(
        &mut self,
        address: Address,
        skip_cold_load: bool,
    ) -> Result<StateLoad<Self::JournaledAccount<'_>>, JournalLoadError<DB::Error>> {
        self.inner
            .load_account_mut_skip_cold_load(address, skip_cold_load)
    }
    fn load_account_with_code_mut(
        &mut self,
        address: Address,
    ) -> Result<StateLoad<Self::JournaledAccount<'_>>, DB::Error> {
        self.inner.load_account_with_code_mut(address)
    }
    fn load_account_mut_optional_code(
        &mut self,
        address: Address,
        load_code: bool,
    ) -> Result<StateLoad<Self::JournaledAccount<'_>>, DB::Error> {
        self.inner
            .load_account_mut_optional_code(address, load_code)
    }
    fn set_code_with_hash(&mut self, address: Address, code: Bytecode, hash: B256) {
        self.inner.set_code_with_hash(address, code, hash)
    }
    fn set_code(&mut self, address: Address, code: Bytecode) {
        self.inner.set_code(address, code)
    }
    fn code(&mut self, address: Address) -> Result<StateLoad<Bytes>, DB::Error> {
        self.inner.code(address)
    }
    fn code_hash(&mut self, address: Address) -> Result<StateLoad<B256>, DB::Error> {
        self.inner.code_hash(address)
    }
    fn clear(&mut self) {
        self.inner.clear()
    }
    fn checkpoint(&mut self) -> JournalCheckpoint {
        self.inner.checkpoint()
    }
    fn checkpoint_commit(&mut self) {
        self.inner.checkpoint_commit()
    }
    fn checkpoint_revert(&mut self, checkpoint: JournalCheckpoint) {
        self.inner.checkpoint_revert(checkpoint)
    }
    fn depth(&self) -> usize {
        self.inner.depth()
    }
    fn commit_tx(&mut self) {
        self.inner.commit_tx()
    }
    fn discard_tx(&mut self) {
        self.inner.discard_tx()
    }
    fn finalize(&mut self) -> EvmState {
        self.inner.finalize()
    }
    fn load_account_info_skip_cold_load(
        &mut self,
        address: Address,
        load_code: bool,
        skip_cold_load: bool,
    ) -> Result<AccountInfoLoad<'_>, JournalLoadError<DB::Error>> {
        self.inner
            .load_account_info_skip_cold_load(address, load_code, skip_cold_load)
    }
}

/// The gas of a system call (EIP-2935, EIP-4788, EIP-7002, EIP-7251) before Amsterdam:
/// 30,000,000. revm 43's `SYSTEM_CALL_GAS_LIMIT` adds EIP-8037's state-gas reservoir to it in
/// every fork, so a request contract that runs out of gas at 30 M would succeed there and the
/// block be judged on the wrong rule; from Amsterdam on the reservoir is the rule
/// ([`system_call_gas`]).
pub const SYSTEM_CALL_GAS: u64 = 30_000_000;

/// A system call's gas under `spec`: from Amsterdam, EIP-8037 gives the call a state-gas
/// reservoir for 16 storage writes above [`SYSTEM_CALL_GAS`] (revm's `SYSTEM_CALL_GAS_LIMIT`).
pub fn system_call_gas(spec: SpecId) -> u64 {
    if spec.is_enabled_in(SpecId::AMSTERDAM) {
        revm::handler::system_call::SYSTEM_CALL_GAS_LIMIT
    } else {
        SYSTEM_CALL_GAS
    }
}

/// The context of [`BlockEvm`]: revm's mainnet context with [`Eip7610Journal`], and the codes
/// whose jump destinations were found ([`JumpDests`]) as its chain-specific part.
pub type BlockContext<DB> = Context<BlockEnv, TxEnv, CfgEnv, DB, Eip7610Journal<DB>, JumpDests>;

type Inner<DB> = revm::handler::MainnetEvm<BlockContext<DB>>;

/// revm's mainnet EVM over [`BlockContext`], as alloy-evm's block executor drives it.
pub struct BlockEvm<DB: Database + StorageProbe> {
    inner: Inner<DB>,
}

impl<DB: Database + StorageProbe> core::fmt::Debug for BlockEvm<DB> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlockEvm").finish_non_exhaustive()
    }
}

impl<DB: Database + StorageProbe> BlockEvm<DB> {
    /// The EVM over `db` in `env` (block and config).
    pub fn new(db: DB, env: EvmEnv) -> Self {
        let ctx = BlockContext::<DB>::new(db, env.cfg_env.spec)
            .with_block(env.block_env)
            .with_cfg(env.cfg_env);
        let mut inner = ctx.build_mainnet();
        // `JUMP` and `JUMPI` that analyse a witness code on its first jump ([`crate::jumps`]),
        // at revm's gas.
        let gas = *inner.instruction.gas_table();
        inner.instruction.insert_instruction(
            JUMP,
            Instruction::new(jump::<DB>),
            gas[JUMP as usize],
        );
        inner.instruction.insert_instruction(
            JUMPI,
            Instruction::new(jumpi::<DB>),
            gas[JUMPI as usize],
        );
        Self { inner }
    }
}

fn jump<DB: Database + StorageProbe>(
    ctx: InstructionContext<'_, BlockContext<DB>, EthInterpreter>,
) -> InstructionExecResult {
    jumps::jump(ctx.interpreter, &mut ctx.host.chain)
}

fn jumpi<DB: Database + StorageProbe>(
    ctx: InstructionContext<'_, BlockContext<DB>, EthInterpreter>,
) -> InstructionExecResult {
    jumps::jumpi(ctx.interpreter, &mut ctx.host.chain)
}

impl<DB: alloy_evm::Database + StorageProbe> Evm for BlockEvm<DB> {
    type DB = DB;
    type Tx = TxEnv;
    type Error = EVMError<DB::Error>;
    type HaltReason = HaltReason;
    type Spec = SpecId;
    type BlockEnv = BlockEnv;
    type Precompiles = EthPrecompiles;
    type Inspector = ();

    fn block(&self) -> &BlockEnv {
        &self.inner.ctx.block
    }

    fn cfg_env(&self) -> &CfgEnv<SpecId> {
        &self.inner.ctx.cfg
    }

    fn chain_id(&self) -> u64 {
        self.inner.ctx.cfg.chain_id
    }

    fn transact_raw(&mut self, tx: TxEnv) -> Result<ResultAndState<HaltReason>, Self::Error> {
        self.inner.transact(tx)
    }

    fn transact_system_call(
        &mut self,
        caller: Address,
        contract: Address,
        data: Bytes,
    ) -> Result<ResultAndState<HaltReason>, Self::Error> {
        // revm's `system_call_with_caller`, but with the gas the EIPs give the call.
        let mut tx = TxEnv::new_system_tx_with_caller(caller, contract, data);
        tx.gas_limit = system_call_gas(self.inner.ctx.cfg.spec);
        self.inner.ctx.tx = tx;
        let mut handler =
            MainnetHandler::<Inner<DB>, EVMError<DB::Error>, EthFrame<EthInterpreter>>::default();
        let result = handler.run_system_call(&mut self.inner)?;
        let state = self.inner.finalize();
        Ok(ResultAndState::new(result, state))
    }

    fn finish(self) -> (DB, EvmEnv<SpecId>) {
        let Context {
            block: block_env,
            cfg: cfg_env,
            journaled_state,
            ..
        } = self.inner.ctx;
        (
            journaled_state.inner.database,
            EvmEnv { block_env, cfg_env },
        )
    }

    /// No inspector: validation never traces.
    fn set_inspector_enabled(&mut self, _enabled: bool) {}

    fn components(&self) -> (&DB, &(), &EthPrecompiles) {
        (
            &self.inner.ctx.journaled_state.inner.database,
            &self.inner.inspector,
            &self.inner.precompiles,
        )
    }

    fn components_mut(&mut self) -> (&mut DB, &mut (), &mut EthPrecompiles) {
        (
            &mut self.inner.ctx.journaled_state.inner.database,
            &mut self.inner.inspector,
            &mut self.inner.precompiles,
        )
    }
}
