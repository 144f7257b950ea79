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
use alloy_eips::eip7702::constants::SECP256K1N_HALF;
use alloy_eips::eip7702::{RecoveredAuthority, RecoveredAuthorization, SignedAuthorization};
use alloy_evm::block::{BlockExecutionError, BlockExecutionResult, BlockExecutor};
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

/// Runs the block over `db` (the witness, or in the host's fetcher an archive node); returns
/// the execution result and the state changes.
pub fn execute<DB: PreState>(
    block: &Block<TxEnvelope>,
    senders: &[Recovered<&TxEnvelope>],
    chain: &ChainConfig,
    db: &mut DB,
) -> Result<(BlockExecutionResult<ReceiptEnvelope>, BundleState), ValidationError> {
    let header = &block.header;
    let env = EvmEnv::for_eth_block(
        header,
        chain,
        chain.chain_id,
        chain.blob_params_at(header.timestamp),
    );
    let mut state = State::builder()
        .with_database(&mut *db)
        .with_bundle_update()
        .build();
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
        slot_number: None,
    };
    let mut executor = EthBlockExecutor::new(evm, ctx, chain, AlloyReceiptBuilder::default());
    let prague = chain.is_prague_active_at_timestamp(header.timestamp);
    let result = (|| -> Result<_, Failure> {
        executor.apply_pre_execution_changes()?;
        for tx in senders {
            executor.execute_transaction((tx_env(tx), *tx))?;
        }
        if prague {
            crate::deposits::check_layouts(
                chain
                    .deposit_contract
                    .unwrap_or(alloy_eips::eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS),
                executor.receipts(),
            )
            .map_err(|(tx, log, reason)| Failure::Deposit { tx, log, reason })?;
            check_request_contracts(executor.evm_mut().db_mut())?;
        }
        Ok(executor.apply_post_execution_changes()?)
    })();
    state.merge_transitions(BundleRetention::PlainState);
    let bundle = state.take_bundle();
    drop(state);
    // A witness gap that execution survived (the EIP-7610 probe) is still a gap.
    if result.is_ok() {
        if let Some(missing) = db.first_error().take() {
            return Err(ValidationError::MissingWitnessData(missing));
        }
    }
    match result {
        Ok(result) => Ok((result, bundle)),
        // A witness gap surfaces as its typed error, not the executor's string.
        Err(e) => Err(match db.first_error().take() {
            Some(missing) => ValidationError::MissingWitnessData(missing),
            None => match e {
                Failure::Contract(address) => ValidationError::SystemContractEmpty(address),
                Failure::Deposit { tx, log, reason } => {
                    ValidationError::DepositLayout { tx, log, reason }
                }
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
    /// The block executor failed (an invalid transaction, a failed system call, a witness gap).
    Executor(BlockExecutionError),
}

impl From<BlockExecutionError> for Failure {
    fn from(e: BlockExecutionError) -> Self {
        Self::Executor(e)
    }
}

/// From Prague on, the block is invalid when a request contract (EIP-7002 withdrawals, EIP-7251
/// consolidations) has no code at the end of the block, where its system call runs: the
/// execution specs' `process_checked_system_transaction`. alloy-evm calls an empty account and
/// gets an empty, successful result, so the check is made here. (The EIP-2935 and EIP-4788
/// calls are unchecked: with no code there they do nothing, and the block stays valid.)
fn check_request_contracts<DB: revm::Database>(db: &mut DB) -> Result<(), Failure>
where
    DB::Error: core::error::Error + Send + Sync + 'static,
{
    for address in [
        alloy_eips::eip7002::WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS,
        alloy_eips::eip7251::CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS,
    ] {
        // A read that fails is a witness gap: the caller reports the database's own error.
        let info = db.basic(address).map_err(BlockExecutionError::other)?;
        if info.is_none_or(|info| info.is_empty_code_hash()) {
            return Err(Failure::Contract(address));
        }
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
        assert!(check_request_contracts(&mut with_code(&[WITHDRAWALS, CONSOLIDATIONS])).is_ok());
        for (present, missing) in [(WITHDRAWALS, CONSOLIDATIONS), (CONSOLIDATIONS, WITHDRAWALS)] {
            let mut db = with_code(&[present]);
            match check_request_contracts(&mut db) {
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
            match check_request_contracts(&mut db) {
                Err(Failure::Contract(address)) => assert_eq!(address, missing),
                _ => panic!("{missing} has a balance and no code, and passed"),
            }
        }
    }
}
