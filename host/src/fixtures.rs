//! Ethereum execution-spec-tests blockchain fixtures, run statelessly.
//!
//! A blockchain test gives the full pre-state (`pre`) rather than a witness. [`full_state_witness`]
//! builds the whole state trie from it and takes every node as the witness, so the fixture runs
//! through the same stateless validator as a real block. Each block is validated against the
//! genesis pre-state: a stateless validator does not produce the full post-state, so a fixture
//! with several blocks is refused ([`FixtureError::MultipleBlocks`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use alloy_primitives::{Address, Bytes, B256, U256};
use alloy_trie::{TrieAccount, EMPTY_ROOT_HASH};
use mpt::{NodeStore, StateTrie, TrieError};
use program::{ChainConfig, ExecutionWitness};
use serde::Deserialize;

use crate::chain::{self, ChainError};

/// A fixture file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// Unreadable file.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Not a blockchain-test JSON.
    #[error("{path} is not a blockchain test: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// serde_json's error.
        source: serde_json::Error,
    },
    /// Its network / config is not usable.
    #[error("test {test}: {source}")]
    Chain {
        /// The test's name.
        test: String,
        /// Why.
        source: ChainError,
    },
    /// The genesis RLP is not a block.
    #[error("test {test}: genesis RLP is malformed: {source}")]
    Genesis {
        /// The test's name.
        test: String,
        /// The RLP error.
        source: alloy_rlp::Error,
    },
    /// More than one block: the second needs the first's full post-state.
    #[error("test {test} has {count} blocks; stateless runs take one block after genesis")]
    MultipleBlocks {
        /// The test's name.
        test: String,
        /// Its number of blocks.
        count: usize,
    },
    /// Building the state trie failed.
    #[error("test {test}: building the pre-state: {source}")]
    State {
        /// The test's name.
        test: String,
        /// The trie error.
        source: TrieError,
    },
}

/// One account of a full state.
#[derive(Debug, Clone, Default, Deserialize)]
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
    let empty = NodeStore::default();
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TestJson {
    network: String,
    #[serde(default)]
    config: serde_json::Value,
    pre: BTreeMap<Address, GenesisAccount>,
    #[serde(rename = "genesisRLP")]
    genesis_rlp: Bytes,
    blocks: Vec<BlockJson>,
    lastblockhash: B256,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BlockJson {
    rlp: Bytes,
    expect_exception: Option<String>,
}

/// A blockchain test ready to run statelessly.
#[derive(Debug, Clone)]
pub struct BlockchainTest {
    /// The test's name (its key in the file).
    pub name: String,
    /// The chain config of its network.
    pub chain: ChainConfig,
    /// The block's RLP.
    pub block: Bytes,
    /// The exception the fixture expects, `None` for a valid block.
    pub expect_exception: Option<String>,
    /// The witness (full pre-state, genesis header as parent).
    pub witness: ExecutionWitness,
    /// The pre-state root computed from `pre` (must equal the genesis header's).
    pub pre_state_root: B256,
    /// The fixture's last block hash (the block's hash when it is valid).
    pub last_block_hash: B256,
}

/// Loads every test of a blockchain-test file.
pub fn load_blockchain_tests(path: &Path) -> Result<Vec<BlockchainTest>, FixtureError> {
    let text = std::fs::read(path).map_err(|source| FixtureError::Io {
        path: path.to_owned(),
        source,
    })?;
    let tests: BTreeMap<String, TestJson> =
        serde_json::from_slice(&text).map_err(|source| FixtureError::Json {
            path: path.to_owned(),
            source,
        })?;
    tests
        .into_iter()
        .map(|(name, t)| {
            let chain_id = chain::u64_field(&t.config, "chainid")
                .ok()
                .flatten()
                .unwrap_or(1);
            let schedule = t.config.get("blobSchedule").cloned().unwrap_or_default();
            let chain = chain::from_network(&t.network, chain_id, &schedule).map_err(|source| {
                FixtureError::Chain {
                    test: name.clone(),
                    source,
                }
            })?;
            let header = crate::blocks::first_item(&t.genesis_rlp).map_err(|source| {
                FixtureError::Genesis {
                    test: name.clone(),
                    source,
                }
            })?;
            let genesis_header = Bytes::copy_from_slice(&t.genesis_rlp[header]);
            let (pre_state_root, witness) = full_state_witness(&t.pre, vec![genesis_header])
                .map_err(|source| FixtureError::State {
                    test: name.clone(),
                    source,
                })?;
            let [block] = <[BlockJson; 1]>::try_from(t.blocks).map_err(|blocks| {
                FixtureError::MultipleBlocks {
                    test: name.clone(),
                    count: blocks.len(),
                }
            })?;
            Ok(BlockchainTest {
                name,
                chain,
                block: block.rlp,
                expect_exception: block.expect_exception,
                witness,
                pre_state_root,
                last_block_hash: t.lastblockhash,
            })
        })
        .collect()
}
