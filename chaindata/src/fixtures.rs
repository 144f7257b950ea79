//! Full states as witnesses.
//!
//! A blockchain test (and the devnet genesis) gives the full pre-state rather than a witness.
//! [`full_state_witness`] builds the whole state trie from it and takes every node as the
//! witness, so the state runs through the same stateless validator as a real block
//! (the host's EF-test runner, crate `blockgen`'s devnet).

use std::collections::BTreeMap;

use alloy_primitives::{Address, Bytes, B256, U256};
use alloy_trie::{TrieAccount, EMPTY_ROOT_HASH};
use mpt::{StateTrie, TrieError, WitnessStore};
use program::ExecutionWitness;
use serde::Deserialize;

/// One account of a full state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct GenesisAccount {
    /// Nonce.
    pub nonce: U256,
    /// Balance.
    pub balance: U256,
    /// Bytecode.
    #[serde(default)]
    pub code: Bytes,
    /// Storage.
    #[serde(default)]
    pub storage: BTreeMap<U256, U256>,
}

/// Builds the complete state trie of `accounts` and returns its root and the witness holding
/// every node and code, with `headers` as ancestors.
pub fn full_state_witness(
    accounts: &BTreeMap<Address, GenesisAccount>,
    headers: Vec<Bytes>,
) -> Result<(B256, ExecutionWitness), TrieError> {
    let empty = WitnessStore::default();
    let mut state = StateTrie::open(&empty, EMPTY_ROOT_HASH)?;
    let mut codes = Vec::new();
    for (address, account) in accounts {
        for (slot, value) in &account.storage {
            state.set_storage(*address, *slot, *value)?;
        }
        let code_hash = mpt::keccak256(&account.code);
        if !account.code.is_empty() {
            codes.push(account.code.clone());
        }
        let nonce = u64::try_from(account.nonce).unwrap_or(u64::MAX);
        let leaf = TrieAccount {
            nonce,
            balance: account.balance,
            storage_root: EMPTY_ROOT_HASH,
            code_hash,
        };
        state.set_account(*address, Some(&leaf))?;
    }
    let root = state.root()?;
    let nodes = state
        .encoded_nodes()?
        .into_iter()
        .map(Bytes::from)
        .collect();
    Ok((
        root,
        ExecutionWitness {
            state: nodes,
            codes,
            headers,
        },
    ))
}
