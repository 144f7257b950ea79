//! revm's journal with EIP-7610's storage collision, the one rule [`crate::evm::BlockEvm`]
//! adds to revm's mainnet EVM.
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
//! delegated unchanged, every change through [`TrackedJournal::get_mut`] (so that a warm read
//! remembered for `SELFBALANCE`, [`crate::tracked`], is forgotten at any change).

use alloc::vec::Vec;
use alloy_primitives::{Address, Bytes, B256, U256};
use alloy_trie::EMPTY_ROOT_HASH;
use revm::context::journal::Journal;
use revm::context_interface::context::{SStoreResult, SelfDestructResult, StateLoad};
use revm::context_interface::journaled_state::account::JournaledAccount;
use revm::context_interface::journaled_state::entry::JournalEntry;
use revm::context_interface::journaled_state::{
    AccountInfoLoad, AccountLoad, JournalCheckpoint, JournalLoadError, JournalTr, TransferError,
};
use revm::database::State;
use revm::primitives::hardfork::SpecId;
use revm::primitives::{AddressMap, AddressSet, HashSet, Log, StorageKey, StorageValue};
use revm::state::{Account, Bytecode, EvmState};
use revm::Database;

use crate::db::PreState;
use crate::tracked::TrackedJournal;

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
    pub(crate) inner: TrackedJournal<DB>,
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
            inner: TrackedJournal::new(Journal::new(database)),
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
            .get_mut()
            .create_account_checkpoint(caller, address, balance, spec_id)?;
        if self.inner.get_mut().database.has_storage(address) {
            self.inner.get_mut().checkpoint_revert(checkpoint);
            return Err(TransferError::CreateCollision);
        }
        Ok(checkpoint)
    }

    // ---- Everything else is revm's journal. ----

    fn db_and_state(&self) -> (&DB, &EvmState) {
        self.inner.get().db_and_state()
    }
    fn db_and_state_mut(&mut self) -> (&mut DB, &mut EvmState) {
        self.inner.get_mut().db_and_state_mut()
    }
    fn sload(
        &mut self,
        address: Address,
        key: StorageKey,
    ) -> Result<StateLoad<StorageValue>, DB::Error> {
        self.inner.get_mut().sload(address, key)
    }
    fn sload_skip_cold_load(
        &mut self,
        address: Address,
        key: StorageKey,
        skip_cold_load: bool,
    ) -> Result<StateLoad<StorageValue>, JournalLoadError<DB::Error>> {
        self.inner
            .get_mut()
            .sload_skip_cold_load(address, key, skip_cold_load)
    }
    fn sstore(
        &mut self,
        address: Address,
        key: StorageKey,
        value: StorageValue,
    ) -> Result<StateLoad<SStoreResult>, DB::Error> {
        self.inner.get_mut().sstore(address, key, value)
    }
    fn sstore_skip_cold_load(
        &mut self,
        address: Address,
        key: StorageKey,
        value: StorageValue,
        skip_cold_load: bool,
    ) -> Result<StateLoad<SStoreResult>, JournalLoadError<DB::Error>> {
        self.inner
            .get_mut()
            .sstore_skip_cold_load(address, key, value, skip_cold_load)
    }
    fn tload(&mut self, address: Address, key: StorageKey) -> StorageValue {
        self.inner.get_mut().tload(address, key)
    }
    fn tstore(&mut self, address: Address, key: StorageKey, value: StorageValue) {
        self.inner.get_mut().tstore(address, key, value)
    }
    fn log(&mut self, log: Log) {
        self.inner.get_mut().log(log)
    }
    fn take_logs(&mut self) -> Vec<Log> {
        self.inner.get_mut().take_logs()
    }
    fn logs(&self) -> &[Log] {
        self.inner.get().logs()
    }
    fn selfdestruct(
        &mut self,
        address: Address,
        target: Address,
        skip_cold_load: bool,
    ) -> Result<StateLoad<SelfDestructResult>, JournalLoadError<DB::Error>> {
        self.inner
            .get_mut()
            .selfdestruct(address, target, skip_cold_load)
    }
    fn warm_access_list(&mut self, access_list: AddressMap<HashSet<StorageKey>>) {
        self.inner.get_mut().warm_access_list(access_list)
    }
    fn warm_coinbase_account(&mut self, address: Address) {
        self.inner.get_mut().warm_coinbase_account(address)
    }
    fn warm_precompiles(&mut self, addresses: &AddressSet) {
        self.inner.get_mut().warm_precompiles(addresses)
    }
    fn precompile_addresses(&self) -> &AddressSet {
        self.inner.get().precompile_addresses()
    }
    fn set_spec_id(&mut self, spec_id: SpecId) {
        self.inner.get_mut().set_spec_id(spec_id)
    }
    fn set_eip7708_config(&mut self, disabled: bool, eip8246_delayed_clear_disabled: bool) {
        self.inner
            .get_mut()
            .set_eip7708_config(disabled, eip8246_delayed_clear_disabled)
    }
    fn touch_account(&mut self, address: Address) {
        self.inner.get_mut().touch_account(address)
    }
    fn transfer(
        &mut self,
        from: Address,
        to: Address,
        balance: U256,
    ) -> Result<Option<TransferError>, DB::Error> {
        self.inner.get_mut().transfer(from, to, balance)
    }
    fn transfer_loaded(
        &mut self,
        from: Address,
        to: Address,
        balance: U256,
    ) -> Option<TransferError> {
        self.inner.get_mut().transfer_loaded(from, to, balance)
    }
    #[allow(deprecated)]
    fn caller_accounting_journal_entry(
        &mut self,
        address: Address,
        old_balance: U256,
        bump_nonce: bool,
    ) {
        self.inner
            .get_mut()
            .caller_accounting_journal_entry(address, old_balance, bump_nonce)
    }
    fn balance_incr(&mut self, address: Address, balance: U256) -> Result<(), DB::Error> {
        self.inner.get_mut().balance_incr(address, balance)
    }
    #[allow(deprecated)]
    fn nonce_bump_journal_entry(&mut self, address: Address) {
        self.inner.get_mut().nonce_bump_journal_entry(address)
    }
    fn load_account(&mut self, address: Address) -> Result<StateLoad<&Account>, DB::Error> {
        self.inner.get_mut().load_account(address)
    }
    fn load_account_with_code(
        &mut self,
        address: Address,
    ) -> Result<StateLoad<&Account>, DB::Error> {
        self.inner.get_mut().load_account_with_code(address)
    }
    fn load_account_delegated(
        &mut self,
        address: Address,
    ) -> Result<StateLoad<AccountLoad>, DB::Error> {
        self.inner.get_mut().load_account_delegated(address)
    }
    fn load_account_mut(
        &mut self,
        address: Address,
    ) -> Result<StateLoad<Self::JournaledAccount<'_>>, DB::Error> {
        self.inner.get_mut().load_account_mut(address)
    }
    fn load_account_mut_skip_cold_load(
        &mut self,
        address: Address,
        skip_cold_load: bool,
    ) -> Result<StateLoad<Self::JournaledAccount<'_>>, JournalLoadError<DB::Error>> {
        self.inner
            .get_mut()
            .load_account_mut_skip_cold_load(address, skip_cold_load)
    }
    fn load_account_with_code_mut(
        &mut self,
        address: Address,
    ) -> Result<StateLoad<Self::JournaledAccount<'_>>, DB::Error> {
        self.inner.get_mut().load_account_with_code_mut(address)
    }
    fn load_account_mut_optional_code(
        &mut self,
        address: Address,
        load_code: bool,
    ) -> Result<StateLoad<Self::JournaledAccount<'_>>, DB::Error> {
        self.inner
            .get_mut()
            .load_account_mut_optional_code(address, load_code)
    }
    fn set_code_with_hash(&mut self, address: Address, code: Bytecode, hash: B256) {
        self.inner.get_mut().set_code_with_hash(address, code, hash)
    }
    fn set_code(&mut self, address: Address, code: Bytecode) {
        self.inner.get_mut().set_code(address, code)
    }
    fn code(&mut self, address: Address) -> Result<StateLoad<Bytes>, DB::Error> {
        self.inner.get_mut().code(address)
    }
    fn code_hash(&mut self, address: Address) -> Result<StateLoad<B256>, DB::Error> {
        self.inner.get_mut().code_hash(address)
    }
    fn clear(&mut self) {
        self.inner.get_mut().clear()
    }
    fn checkpoint(&mut self) -> JournalCheckpoint {
        self.inner.get_mut().checkpoint()
    }
    fn checkpoint_commit(&mut self) {
        self.inner.get_mut().checkpoint_commit()
    }
    fn checkpoint_revert(&mut self, checkpoint: JournalCheckpoint) {
        self.inner.get_mut().checkpoint_revert(checkpoint)
    }
    fn depth(&self) -> usize {
        self.inner.get().depth()
    }
    fn commit_tx(&mut self) {
        self.inner.get_mut().commit_tx()
    }
    fn discard_tx(&mut self) {
        self.inner.get_mut().discard_tx()
    }
    fn finalize(&mut self) -> EvmState {
        self.inner.get_mut().finalize()
    }
    fn load_account_info_skip_cold_load(
        &mut self,
        address: Address,
        load_code: bool,
        skip_cold_load: bool,
    ) -> Result<AccountInfoLoad<'_>, JournalLoadError<DB::Error>> {
        self.inner
            .get_mut()
            .load_account_info_skip_cold_load(address, load_code, skip_cold_load)
    }
}

/// The context of [`crate::evm::BlockEvm`]: revm's mainnet context with [`Eip7610Journal`],
/// and the codes whose jump destinations were found ([`crate::jumps::JumpDests`]) as its
/// chain-specific part. (Here, not in `evm`, so that the instructions `evm` installs can name
/// it without a circle of modules.)
pub type BlockContext<DB> = revm::context::Context<
    revm::context::BlockEnv,
    revm::context::TxEnv,
    revm::context::CfgEnv,
    DB,
    Eip7610Journal<DB>,
    crate::jumps::JumpDests,
>;
