//! Execution with revm under the fork's rules, through alloy-evm's Ethereum block executor.
//!
//! alloy-evm (built for the guest without `std`) runs exactly what a node runs: the pre-block
//! system calls (EIP-2935 history, EIP-4788 beacon root), every transaction, the post-block
//! withdrawals, EIP-6110 deposits and the EIP-7002 / EIP-7251 request contracts. revm's `State`
//! records the changes as a bundle, which [`apply_bundle`] writes into the trie.

use alloc::borrow::Cow;
use alloc::string::ToString;
use alloc::vec::Vec;
use alloy_consensus::transaction::Recovered;
use alloy_consensus::{Block, ReceiptEnvelope, TxEnvelope};
use alloy_evm::block::{BlockExecutionResult, BlockExecutor};
use alloy_evm::eth::{
    receipt_builder::AlloyReceiptBuilder, EthBlockExecutionCtx, EthBlockExecutor,
};
use alloy_evm::{EthEvmFactory, EvmEnv, EvmFactory};
use alloy_trie::{TrieAccount, EMPTY_ROOT_HASH};
use mpt::{StateTrie, TrieError};
use revm::database::{states::bundle_state::BundleRetention, BundleState, State};

use crate::chain::ChainConfig;
use crate::db::WitnessDb;
use crate::error::ValidationError;

/// Runs the block over `db`; returns the execution result and the state changes.
pub fn execute(
    block: &Block<TxEnvelope>,
    senders: &[Recovered<&TxEnvelope>],
    chain: &ChainConfig,
    db: &mut WitnessDb<'_>,
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
    let evm = EthEvmFactory::default().create_evm(&mut state, env);
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
    let executor = EthBlockExecutor::new(evm, ctx, chain, AlloyReceiptBuilder::default());
    let result = executor.execute_block(senders.iter().copied());
    state.merge_transitions(BundleRetention::PlainState);
    let bundle = state.take_bundle();
    drop(state);
    match result {
        Ok(result) => Ok((result, bundle)),
        // A witness gap surfaces as its typed error, not the executor's string.
        Err(e) => Err(match db.error.take() {
            Some(missing) => ValidationError::MissingWitnessData(missing),
            None => ValidationError::Execution(e.to_string()),
        }),
    }
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
