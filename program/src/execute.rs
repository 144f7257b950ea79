//! Execution with revm under the fork's rules, through alloy-evm's Ethereum block executor.
//!
//! alloy-evm (built for the guest without `std`) runs exactly what a node runs: the pre-block
//! system calls (EIP-2935 history, EIP-4788 beacon root), every transaction, the post-block
//! withdrawals, EIP-6110 deposits and the EIP-7002 / EIP-7251 request contracts, on revm with
//! EIP-7610's storage collision added ([`crate::evm`]). revm's `State`
//! records the changes as a bundle, which [`apply_bundle`] writes into the trie.

use alloc::borrow::Cow;
use alloc::string::ToString;
use alloc::vec::Vec;
use alloy_consensus::crypto::secp256k1;
use alloy_consensus::transaction::Recovered;
use alloy_consensus::{Block, ReceiptEnvelope, TxEnvelope};
use alloy_eips::eip4895::Withdrawal;
use alloy_eips::eip7702::constants::SECP256K1N_HALF;
use alloy_eips::eip7702::{RecoveredAuthority, RecoveredAuthorization, SignedAuthorization};
use alloy_evm::block::{
    BlockExecutionError, BlockExecutionResult, BlockExecutor, BlockValidationError,
};
use alloy_evm::eth::{
    receipt_builder::AlloyReceiptBuilder, EthBlockExecutionCtx, EthBlockExecutor,
};
use alloy_evm::Evm;
use alloy_evm::EvmEnv;
use alloy_evm::FromRecoveredTx;
use alloy_hardforks::EthereumHardforks;
use alloy_primitives::Address;
use alloy_trie::{TrieAccount, EMPTY_ROOT_HASH};
use mpt::{StateTrie, TrieError};
use revm::context::either::Either;
use revm::context::TxEnv;
use revm::database::{states::bundle_state::BundleRetention, BundleState, State};
use revm::state::bal::BlockAccessIndex;

use alloy_eips::eip7928::BlockAccessList;

use crate::chain::ChainConfig;
use crate::db::PreState;
use crate::error::ValidationError;
use crate::evm::BlockEvm;

/// revm's transaction environment for `tx`, with its EIP-7702 authorities already recovered.
///
/// Left to revm, authorities would be recovered by alloy-primitives' k256 directly, which no
/// crypto provider reaches; recovered here, they go through alloy's hook (the secp256k1 chips
/// in the guest) under the same rules: y parity 0 or 1, s at most n/2, a recoverable key;
/// otherwise the authority is invalid and revm skips it, as EIP-7702 requires.
pub fn tx_env(tx: &Recovered<&TxEnvelope>) -> TxEnv {
    let mut env = TxEnv::from_recovered_tx(*tx.inner(), tx.signer());
    for auth in &mut env.authorization_list {
        if let Either::Left(signed) = auth {
            let authority = recover_authority(signed);
            *auth = Either::Right(RecoveredAuthorization::new_unchecked(
                signed.inner().clone(),
                authority,
            ));
        }
    }
    env
}

/// An authorization's signer through alloy's crypto hook.
pub fn recover_authority(auth: &SignedAuthorization) -> RecoveredAuthority {
    let Ok(signature) = auth.signature() else {
        return RecoveredAuthority::Invalid;
    };
    if signature.s() > SECP256K1N_HALF {
        return RecoveredAuthority::Invalid;
    }
    secp256k1::recover_signer_unchecked(&signature, auth.signature_hash())
        .map_or(RecoveredAuthority::Invalid, RecoveredAuthority::Valid)
}

/// What executing a block gives.
#[derive(Debug)]
pub struct Executed {
    /// Receipts, requests, gas.
    pub result: BlockExecutionResult<ReceiptEnvelope>,
    /// The state changes.
    pub bundle: BundleState,
    /// From Amsterdam on, the EIP-7928 block access list execution built, in the EIP's order
    /// ([`crate::access_list`]); `None` before.
    pub access_list: Option<BlockAccessList>,
}

/// Runs the block over `db` (the witness, or in the host's fetcher an archive node); returns
/// the execution result, the state changes and, from Amsterdam on, the block access list.
pub fn execute<DB: PreState>(
    block: &Block<TxEnvelope>,
    senders: &[Recovered<&TxEnvelope>],
    chain: &ChainConfig,
    db: &mut DB,
) -> Result<Executed, ValidationError> {
    let header = &block.header;
    let env = EvmEnv::for_eth_block(
        header,
        chain,
        chain.chain_id,
        chain.blob_params_at(header.timestamp),
    );
    let amsterdam = chain.is_amsterdam_active_at_timestamp(header.timestamp);
    // EIP-7928: revm's state records every account and slot each phase touches, by index.
    let mut state = State::builder()
        .with_database(&mut *db)
        .with_bundle_update()
        .with_bal_builder_if(amsterdam)
        .build();
    // Room for the accounts a block touches (mainnet: 2.5 to 3.6 per transaction) up front:
    // each time revm's account maps outgrow their table they copy it to a new one twice the
    // size, and the prover pays for the copy and the pages of every table left behind. An
    // underestimate grows as before; this one stays below the last table's size.
    let accounts = 3 * senders.len() + 16;
    state.cache.accounts.reserve(accounts);
    if let Some(transitions) = state.transition_state.as_mut() {
        transitions.transitions.reserve(accounts);
    }
    let evm = BlockEvm::new(&mut state, env);
    let ctx = EthBlockExecutionCtx {
        parent_hash: header.parent_hash,
        parent_beacon_block_root: header.parent_beacon_block_root,
        ommers: &[],
        withdrawals: block
            .body
            .withdrawals
            .as_ref()
            .map(|w| Cow::Borrowed(w.as_slice())),
        extra_data: header.extra_data.clone(),
        tx_count_hint: Some(senders.len()),
        slot_number: header.slot_number,
    };
    let mut executor = EthBlockExecutor::new(evm, ctx, chain, AlloyReceiptBuilder::default());
    let prague = chain.is_prague_active_at_timestamp(header.timestamp);
    let result = (|| -> Result<_, Failure> {
        // EIP-7928's indices: the pre-execution system calls at 0, transaction i at i + 1,
        // the post-execution changes (withdrawals, requests) after the last.
        executor
            .evm_mut()
            .db_mut()
            .set_bal_index(BlockAccessIndex::new(0));
        executor.apply_pre_execution_changes()?;
        for (index, tx) in senders.iter().enumerate() {
            let at = BlockAccessIndex::new(index as u64 + 1);
            executor.evm_mut().db_mut().set_bal_index(at);
            executor
                .execute_transaction((tx_env(tx), *tx))
                .map_err(|e| match e {
                    BlockExecutionError::Validation(
                        BlockValidationError::TransactionGasLimitMoreThanAvailableBlockGas {
                            transaction_gas_limit,
                            block_available_gas,
                        },
                    ) => Failure::BlockGas {
                        index,
                        gas_limit: transaction_gas_limit,
                        available: block_available_gas,
                    },
                    e => Failure::Executor(e),
                })?;
        }
        let after = BlockAccessIndex::new(senders.len() as u64 + 1);
        executor.evm_mut().db_mut().set_bal_index(after);
        if prague {
            crate::deposits::check_layouts(
                chain
                    .deposit_contract
                    .unwrap_or(alloy_eips::eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS),
                executor.receipts(),
            )
            .map_err(|(tx, log, reason)| Failure::Deposit { tx, log, reason })?;
            check_request_contracts(executor.evm_mut().db_mut(), amsterdam)?;
        }
        if let Some(withdrawals) = credited_withdrawals(block, chain) {
            load_in_order(executor.evm_mut().db_mut(), withdrawals)?;
        }
        Ok(executor.apply_post_execution_changes()?)
    })();
    state.merge_transitions(BundleRetention::PlainState);
    let bundle = state.take_bundle();
    let access_list = state.take_built_alloy_bal();
    drop(state);
    // A witness gap that execution survived (the EIP-7610 probe) is still a gap.
    if result.is_ok() {
        if let Some(missing) = db.first_error().take() {
            return Err(ValidationError::MissingWitnessData(missing));
        }
    }
    match result {
        Ok(result) => Ok(Executed {
            result,
            bundle,
            access_list,
        }),
        // A witness gap surfaces as its typed error, not the executor's string.
        Err(e) => Err(match db.first_error().take() {
            Some(missing) => ValidationError::MissingWitnessData(missing),
            None => match e {
                Failure::Contract(address) => ValidationError::SystemContractEmpty(address),
                Failure::Deposit { tx, log, reason } => {
                    ValidationError::DepositLayout { tx, log, reason }
                }
                Failure::BlockGas {
                    index,
                    gas_limit,
                    available,
                } => ValidationError::BlockGasExceeded {
                    index,
                    gas_limit,
                    available,
                },
                Failure::Executor(e) => ValidationError::Execution(e.to_string()),
            },
        }),
    }
}

/// Why execution stopped.
enum Failure {
    /// A request contract has no code.
    Contract(Address),
    /// A deposit event breaks the deposit contract's layout.
    Deposit {
        tx: usize,
        log: usize,
        reason: crate::deposits::DepositLayoutError,
    },
    /// A transaction's gas limit is more than the block has left.
    BlockGas {
        index: usize,
        gas_limit: u64,
        available: u64,
    },
    /// The block executor failed (an invalid transaction, a failed system call, a witness gap).
    Executor(BlockExecutionError),
}

impl From<BlockExecutionError> for Failure {
    fn from(e: BlockExecutionError) -> Self {
        Self::Executor(e)
    }
}

/// From Prague on, the block is invalid when a request contract (EIP-7002 withdrawals, EIP-7251
/// consolidations, and from Amsterdam EIP-8282's builder deposits and exits) has no code at the
/// end of the block, where its system call runs: the execution specs'
/// `process_checked_system_transaction`. alloy-evm calls an empty account and gets an empty,
/// successful result, so the check is made here. (The EIP-2935 and EIP-4788 calls are
/// unchecked: with no code there they do nothing, and the block stays valid.)
fn check_request_contracts<DB: revm::Database>(db: &mut DB, amsterdam: bool) -> Result<(), Failure>
where
    DB::Error: core::error::Error + Send + Sync + 'static,
{
    let prague = [
        alloy_eips::eip7002::WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS,
        alloy_eips::eip7251::CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS,
    ];
    let builders = [
        alloy_eips::eip8282::BUILDER_DEPOSIT_CONTRACT_ADDRESS,
        alloy_eips::eip8282::BUILDER_EXIT_CONTRACT_ADDRESS,
    ];
    let count = if amsterdam { 4 } else { 2 };
    for address in prague.into_iter().chain(builders).take(count) {
        // A read that fails is a witness gap: the caller reports the database's own error.
        let info = db.basic(address).map_err(BlockExecutionError::other)?;
        if info.is_none_or(|info| info.is_empty_code_hash()) {
            return Err(Failure::Contract(address));
        }
    }
    Ok(())
}

/// The block's withdrawals, when the executor credits them (Shanghai on).
fn credited_withdrawals<'b>(
    block: &'b Block<TxEnvelope>,
    chain: &ChainConfig,
) -> Option<&'b [Withdrawal]> {
    let withdrawals = block.body.withdrawals.as_deref()?;
    chain
        .is_shanghai_active_at_timestamp(block.header.timestamp)
        .then_some(withdrawals)
}

/// Loads the withdrawals' accounts in the block's order. The executor credits them from a map,
/// in its hasher's order, which on the host is drawn per process: loaded first in a fixed
/// order, the host's native run asks for their witness nodes in one order on every run, so the
/// guest's input (written in that order) and every count metered on it repeat. The executor
/// loads exactly these accounts (a zero amount included), so no other node is asked for.
fn load_in_order<DB: revm::Database>(db: &mut DB, withdrawals: &[Withdrawal]) -> Result<(), Failure>
where
    DB::Error: core::error::Error + Send + Sync + 'static,
{
    for withdrawal in withdrawals {
        db.basic(withdrawal.address)
            .map_err(|e| Failure::Executor(BlockExecutionError::other(e)))?;
    }
    Ok(())
}

/// Writes revm's bundle into the trie. Writes go before deletions, so a branch that loses
/// children and gains others is never collapsed in between: that would need sibling nodes a
/// witness does not carry.
pub fn apply_bundle(state: &mut StateTrie<'_>, bundle: &BundleState) -> Result<(), TrieError> {
    let mut deleted_slots = Vec::new();
    let mut deleted_accounts = Vec::new();
    for (address, account) in &bundle.state {
        if account.was_destroyed() {
            state.wipe_storage(*address);
        }
        for (slot, value) in &account.storage {
            if !value.is_changed() && !account.was_destroyed() {
                continue;
            }
            if value.present_value.is_zero() {
                deleted_slots.push((*address, *slot));
            } else {
                state.set_storage(*address, *slot, value.present_value)?;
            }
        }
        match &account.info {
            Some(info) => {
                // The storage root is the trie's; `StateTrie::root` refreshes it if storage changed.
                let storage_root = if account.was_destroyed() {
                    EMPTY_ROOT_HASH
                } else {
                    state
                        .account(*address)?
                        .map_or(EMPTY_ROOT_HASH, |a| a.storage_root)
                };
                let leaf = TrieAccount {
                    nonce: info.nonce,
                    balance: info.balance,
                    storage_root,
                    code_hash: info.code_hash,
                };
                state.set_account(*address, Some(&leaf))?;
            }
            None => deleted_accounts.push(*address),
        }
    }
    // A deletion may collapse a branch and so ask for a sibling's node: in a fixed order
    // (not the bundle's map order, which on the host follows a per-process seed), the host's
    // native run asks for those nodes in the order the guest does, on every run.
    deleted_slots.sort_unstable();
    deleted_accounts.sort_unstable();
    for (address, slot) in deleted_slots {
        state.set_storage(address, slot, alloy_primitives::U256::ZERO)?;
    }
    for address in deleted_accounts {
        state.wipe_storage(address);
        state.set_account(address, None)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_eips::eip7002::WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS as WITHDRAWALS;
    use alloy_eips::eip7251::CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS as CONSOLIDATIONS;
    use revm::database::InMemoryDB;
    use revm::state::{AccountInfo, Bytecode};

    fn with_code(addresses: &[Address]) -> InMemoryDB {
        let mut db = InMemoryDB::default();
        for &address in addresses {
            let code = Bytecode::new_raw(alloy_primitives::Bytes::from_static(&[0x60, 0x00]));
            db.insert_account_info(
                address,
                AccountInfo {
                    code_hash: code.hash_slow(),
                    code: Some(code),
                    ..Default::default()
                },
            );
        }
        db
    }

    /// Both request contracts are checked, each named when it has no code: absent, or present
    /// with a balance but no code.
    #[test]
    fn each_request_contract_without_code_is_named() {
        assert!(
            check_request_contracts(&mut with_code(&[WITHDRAWALS, CONSOLIDATIONS]), false).is_ok()
        );
        for (present, missing) in [(WITHDRAWALS, CONSOLIDATIONS), (CONSOLIDATIONS, WITHDRAWALS)] {
            let mut db = with_code(&[present]);
            match check_request_contracts(&mut db, false) {
                Err(Failure::Contract(address)) => assert_eq!(address, missing),
                _ => panic!("{missing} has no code, and passed"),
            }
            db.insert_account_info(
                missing,
                AccountInfo {
                    balance: alloy_primitives::U256::from(1),
                    ..Default::default()
                },
            );
            match check_request_contracts(&mut db, false) {
                Err(Failure::Contract(address)) => assert_eq!(address, missing),
                _ => panic!("{missing} has a balance and no code, and passed"),
            }
        }
    }
}
