//! `host gen --worst`: devnet blocks that spend all their gas on one thing, as fast per gas as
//! the pricing allows, so the prover's worst pace can be measured (`host worst`).
//!
//! Each category is a contract at [`TARGET`] (a loop over one body, [`contracts::Looped`]) or a
//! plain transaction shape (calldata), and the accounts it needs in genesis (storage slots,
//! accounts, maximum-size codes). The block's gas is split into transactions of at most
//! [`TX_GAS_CAP`] (EIP-7825, Osaka) from one funded EOA; each transaction runs the loop until
//! its gas is nearly spent. The block is sealed by the same executor the validator uses and
//! validated before it is returned ([`super::block::seal`]); every transaction must succeed,
//! except in the categories that end out of gas by design (memory expansion).
//!
//! Precompile inputs are valid ones ([`inputs`]), priced by revm's own precompile under the
//! chosen fork, so the contract passes each call exactly its cost.

mod builders;
mod categories;
mod category;
mod code;
mod contracts;
pub mod inputs;
mod precompiles;
pub mod pricing;

use std::collections::BTreeMap;

use alloy_primitives::{address, Address, U256};

use super::{block, Devnet, Fork, GenError, Generated};
use chaindata::fixtures::GenesisAccount;

pub use category::Category;

/// The block gas a worst-case block spends by default: mainnet's limit.
pub const DEFAULT_GAS: u64 = 60_000_000;
/// EIP-7825's transaction gas cap (Osaka); the generator keeps to it under Prague too.
pub const TX_GAS_CAP: u64 = 1 << 24;
/// The contract the transactions call.
pub const TARGET: Address = address!("5eed00000000000000000000000000000000f00d");
/// The first of the many accounts the state categories touch (`ACCOUNTS + i`).
pub const ACCOUNTS: u64 = 0x5eed_0000_0000;
/// Below this much gas a transaction is not worth sending.
const MIN_TX_GAS: u64 = 60_000;

/// Every category: the precompiles', then the others.
pub static CATEGORIES: [Category; precompiles::PRECOMPILES.len() + categories::OTHERS.len()] =
    concat(precompiles::PRECOMPILES, categories::OTHERS);

/// `a` then `b` (evaluated at compile time; `N` is their lengths' sum).
const fn concat<const N: usize>(a: &[Category], b: &[Category]) -> [Category; N] {
    let mut out = [a[0]; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// Why a worst-case block cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum WorstError {
    /// No such category.
    #[error("no worst-case category {0:?} (`host gen --worst list` lists them)")]
    Unknown(String),
    /// The precompile does not exist under the fork.
    #[error("precompile {number:#x} does not exist under {fork:?}")]
    NoPrecompile {
        /// Its address.
        number: u16,
        /// The fork.
        fork: Fork,
    },
    /// The category's workload does not exist under the fork (a code size it does not allow).
    #[error("{category} needs {needs}, which {fork:?} does not have")]
    NotUnderFork {
        /// The category.
        category: &'static str,
        /// The fork.
        fork: Fork,
        /// What it needs.
        needs: &'static str,
    },
    /// revm's precompile refused the generator's input (a bug in [`inputs`]).
    #[error("precompile {number:#x} refuses the generated input: {why}")]
    Refused {
        /// Its address.
        number: u16,
        /// What it said.
        why: String,
    },
    /// The gas is too little for one transaction doing one body.
    #[error("{gas} gas is too little for {category}: it needs at least {needs}")]
    TooLittleGas {
        /// The category.
        category: &'static str,
        /// The gas asked for.
        gas: u64,
        /// What one transaction needs.
        needs: u64,
    },
    /// A transaction failed that should not have.
    #[error(
        "{category}: transaction {index} failed (a body's call failed or the loop ran out of gas)"
    )]
    Failed {
        /// The category.
        category: &'static str,
        /// The transaction's index.
        index: usize,
    },
    /// Building or validating the block failed.
    #[error(transparent)]
    Gen(#[from] GenError),
}

impl WorstError {
    /// Whether the category has no block under the fork at all (a precompile or a code size the
    /// fork does not have), as opposed to one that could not be made: `all` skips these.
    pub fn not_under_fork(&self) -> bool {
        matches!(
            self,
            WorstError::NoPrecompile { .. } | WorstError::NotUnderFork { .. }
        )
    }
}

/// One transaction of a workload.
#[derive(Debug, Clone)]
pub struct Tx {
    /// Its recipient.
    pub to: Address,
    /// Its calldata.
    pub input: Vec<u8>,
    /// Its gas limit.
    pub gas: u64,
}

/// What a category puts in genesis and in the block.
#[derive(Debug, Default)]
pub struct Workload {
    /// Accounts genesis holds for it.
    pub accounts: BTreeMap<Address, GenesisAccount>,
    /// Its transactions.
    pub txs: Vec<Tx>,
    /// Whether its transactions end out of gas by design.
    pub out_of_gas: bool,
}

/// The block's gas in transactions of at most [`TX_GAS_CAP`] (a remainder under
/// [`MIN_TX_GAS`] is left unspent).
pub fn split(gas: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut left = gas;
    while left >= MIN_TX_GAS {
        let take = left.min(TX_GAS_CAP);
        out.push(take);
        left -= take;
    }
    out
}

/// A generated worst-case block and the chain it runs on.
pub struct WorstBlock {
    /// The block (id `worst-<category>`).
    pub block: Generated,
    /// The chain config, as JSON.
    pub chain_json: serde_json::Value,
}

/// The category named `name`.
pub fn category(name: &str) -> Result<&'static Category, WorstError> {
    CATEGORIES
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| WorstError::Unknown(name.to_owned()))
}

/// Builds and validates category `category`'s block spending about `gas` under `fork`.
pub fn generate(
    category: &'static Category,
    gas: u64,
    fork: Fork,
) -> Result<WorstBlock, WorstError> {
    let workload = (category.build)(fork, gas)?;
    if workload.txs.is_empty() {
        return Err(WorstError::TooLittleGas {
            category: category.name,
            gas,
            needs: MIN_TX_GAS,
        });
    }
    let gas_limit = gas.max(super::GAS_LIMIT);
    let devnet = Devnet::with(workload.accounts, gas_limit, fork)?;
    let txs = workload
        .txs
        .iter()
        .enumerate()
        .map(|(nonce, tx)| block::call(&devnet, 0, nonce as u64, tx.to, tx.gas, tx.input.clone()))
        .collect();
    let id = format!("worst-{}", category.name);
    let block = block::seal(&devnet, &id, category.about, txs, Vec::new())?;
    if !workload.out_of_gas {
        if let Some(index) = block.succeeded.iter().position(|ok| !ok) {
            return Err(WorstError::Failed {
                category: category.name,
                index,
            });
        }
    }
    Ok(WorstBlock {
        block,
        chain_json: devnet.chain_json,
    })
}

/// A genesis account with `balance` wei and `code`.
pub(crate) fn account(balance: u64, code: alloy_primitives::Bytes) -> GenesisAccount {
    GenesisAccount {
        balance: U256::from(balance),
        code,
        ..Default::default()
    }
}
