//! Which of our rules a fixture's `expectException` names.
//!
//! The verdict is what a case must get right; the rule is reported beside it so a rejection
//! for the wrong reason shows. [`rule`] names the rule an error breaks; [`matches`] says whether
//! it is one the fixture's exception (`BlockException.X`, `TransactionException.Y`, or several
//! joined by `|`) names, or `None` where no mapping is clear.

use program::ValidationError;

/// A short name for the rule `error` reports (`header.gas_limit`, `body.transactions_root`,
/// `transaction`, ...).
pub fn rule(error: &ValidationError) -> &'static str {
    use ValidationError::*;
    match error {
        BlockRlp(_) => "rlp",
        BlobSidecarInBlock { .. } => "body.blob_sidecar",
        Chain(_) => "chain_config",
        Witness(_) | MissingWitnessData(_) | StateUpdate(_) => "witness",
        AncestorRlp { .. } | AncestorNumber { .. } | AncestorLink { .. } | TooManyAncestors(_) => {
            "witness.ancestors"
        }
        ParentHash { .. } => "header.parent_hash",
        PreMerge(_) => "pre_merge",
        UnsupportedFork { .. } => "unsupported_fork",
        UnscheduledFork { .. } => "unscheduled_fork",
        SystemContractEmpty(_) => "system_contract",
        DepositLayout { .. } => "requests.deposit_layout",
        HeaderField { field, .. } => match *field {
            "number" => "header.number",
            "timestamp" => "header.timestamp",
            "gas_limit" => "header.gas_limit_max",
            "gas_used" => "header.gas_used",
            "extra_data length" => "header.extra_data",
            "difficulty" => "header.difficulty",
            "nonce" => "header.nonce",
            "ommers_hash" => "header.ommers_hash",
            "base_fee_per_gas" => "header.base_fee",
            "blob_gas_used" => "header.blob_gas_used",
            "excess_blob_gas" => "header.excess_blob_gas",
            _ => "header",
        },
        GasLimit { .. } => "header.gas_limit",
        ForkField { .. } => "header.fork_field",
        BlockTooLarge { .. } => "block.size",
        BodyRoot { field, .. } => match *field {
            "transactions_root" => "body.transactions_root",
            "withdrawals_root" => "body.withdrawals_root",
            _ => "body.ommers",
        },
        Withdrawals(_) => "body.withdrawals",
        SenderRecovery { .. }
        | PublicKeyCount { .. }
        | PublicKey { .. }
        | PublicKeyPrefix { .. }
        | Execution(_) => "transaction",
        BlockGasExceeded { .. } => "transaction.block_gas",
        GasUsed { .. } => "gas_used",
        BlobGasUsed { .. } => "blob_gas_used",
        ReceiptsRoot { .. } => "receipts_root",
        LogsBloom { .. } => "logs_bloom",
        RequestsHash { .. } => "requests_hash",
        BlockAccessListItems { .. } => "block_access_list.items",
        BlockAccessListHash { .. } => "block_access_list.hash",
        StateRoot { .. } => "state_root",
    }
}

/// The rules that can report the fixture exception `name` (one alternative, without `|`);
/// empty where no mapping is clear.
fn rules_for(name: &str) -> &'static [&'static str] {
    let (class, kind) = name.split_once('.').unwrap_or(("", name));
    if class == "TransactionException" {
        return match kind {
            "TYPE_3_TX_WITH_FULL_BLOBS" => &["body.blob_sidecar", "rlp"],
            k if k.starts_with("RLP_") => &["rlp", "transaction"],
            // A blob transaction's blob count or blob gas over the block's allowance is
            // caught by the header's blob gas check before execution.
            "TYPE_3_TX_MAX_BLOB_GAS_ALLOWANCE_EXCEEDED" | "TYPE_3_TX_BLOB_COUNT_EXCEEDED" => {
                &["transaction", "header.blob_gas_used", "blob_gas_used"]
            }
            "TYPE_3_TX_CONTRACT_CREATION" | "TYPE_NOT_SUPPORTED" => &["transaction", "rlp"],
            "GAS_ALLOWANCE_EXCEEDED" => &["transaction.block_gas"],
            _ => &["transaction"],
        };
    }
    match kind {
        k if k.starts_with("RLP_") => &["rlp"],
        "INCORRECT_BLOCK_FORMAT" => &["rlp", "block_access_list.hash"],
        "INCORRECT_EXCESS_BLOB_GAS" => &["header.excess_blob_gas"],
        "INCORRECT_BLOB_GAS_USED" | "BLOB_GAS_USED_ABOVE_LIMIT" => {
            &["header.blob_gas_used", "blob_gas_used"]
        }
        "INVALID_GASLIMIT" => &["header.gas_limit"],
        "GASLIMIT_TOO_BIG" => &["header.gas_limit_max"],
        "EXTRA_DATA_TOO_BIG" => &["header.extra_data"],
        "INVALID_BLOCK_TIMESTAMP_OLDER_THAN_PARENT" => &["header.timestamp"],
        "INVALID_BLOCK_NUMBER" => &["header.number"],
        "INVALID_BASEFEE_PER_GAS" => &["header.base_fee"],
        "INVALID_GAS_USED" => &["gas_used", "header.gas_used"],
        // The execution specs raise it where a transaction's gas limit is over what the block
        // has left (`GasUsedExceedsLimitError`), and for a header over its limit.
        "GAS_USED_OVERFLOW" => &["transaction.block_gas", "gas_used", "header.gas_used"],
        "INVALID_STATE_ROOT" => &["state_root"],
        "INVALID_RECEIPTS_ROOT" => &["receipts_root"],
        "INVALID_LOG_BLOOM" => &["logs_bloom"],
        "INVALID_TRANSACTIONS_ROOT" => &["body.transactions_root"],
        "INVALID_WITHDRAWALS_ROOT" => &["body.withdrawals_root"],
        "SYSTEM_CONTRACT_EMPTY" => &["system_contract"],
        "SYSTEM_CONTRACT_CALL_FAILED" => &["transaction"],
        "INVALID_REQUESTS" => &["requests_hash"],
        // EIP-7928: a block carries its access list by the header's hash alone, so a list with
        // an extra or a missing account, or out of order, is a hash the built list does not give.
        "INVALID_BLOCK_ACCESS_LIST"
        | "INVALID_BAL_HASH"
        | "INVALID_BAL_EXTRA_ACCOUNT"
        | "INVALID_BAL_MISSING_ACCOUNT" => &["block_access_list.hash"],
        "BLOCK_ACCESS_LIST_GAS_LIMIT_EXCEEDED" => &["block_access_list.items"],
        "INVALID_DEPOSIT_EVENT_LAYOUT" => &["requests.deposit_layout"],
        // The runner has no header with that hash: the witness gets no parent.
        "UNKNOWN_PARENT" | "UNKNOWN_PARENT_ZERO" => &["header.parent_hash", "witness"],
        "INVALID_DIFFICULTY" | "IMPORT_IMPOSSIBLE_DIFFICULTY_OVER_PARIS" => &["header.difficulty"],
        "IMPORT_IMPOSSIBLE_UNCLES_OVER_PARIS" | "UNCLE_PARENT_INCORRECT" => {
            &["header.ommers_hash", "body.ommers"]
        }
        "IMPORT_IMPOSSIBLE_SHANGHAI" | "IMPORT_IMPOSSIBLE_PARIS_OVER_SHANGHAI" => {
            &["header.fork_field", "body.withdrawals", "rlp"]
        }
        _ => &[],
    }
}

/// Whether `error` is a rejection for a reason `expected` names; `None` when no alternative of
/// `expected` has a clear mapping.
pub fn matches(expected: &str, error: &ValidationError) -> Option<bool> {
    let ours = rule(error);
    let mut known = false;
    for alternative in expected.split('|') {
        let rules = rules_for(alternative.trim());
        if rules.contains(&ours) {
            return Some(true);
        }
        known |= !rules.is_empty();
    }
    known.then_some(false)
}
