//! `host gen`: the project's own devnet blocks, so the verifier runs with no network and no
//! outside data.
//!
//! Everything is derived from fixed seeds, so the output is byte-for-byte reproducible (a test
//! regenerates it and compares with the files committed under `blocks/`). The devnet runs
//! every fork through Osaka from genesis. Its genesis holds funded EOAs, the Prague system
//! contracts (EIP-4788, EIP-2935, EIP-7002, EIP-7251; the code alloy-eips ships) and three
//! contracts of [`asm`]: a token, a CREATE2 factory and a hash chain. Block 1 is built by
//! executing signed transactions with the same executor the validator uses, then sealing the
//! header with the results; the witness is the full pre-state ([`full_state_witness`]).
//!
//! Two blocks share the genesis:
//! - `devnet`: ten transactions (legacy, EIP-2930 and EIP-1559; transfers, token moves into
//!   new mapping slots, CREATE2 and CREATE deployments, a 64-step keccak chain, a reverting
//!   call) and two withdrawals: the default block of `host run`;
//! - `devnet-small`: withdrawals only, small enough to prove in one segment on a CPU (each
//!   transaction's signature recovery alone costs ~11.6 M guest instructions).

pub mod asm;
mod block;
pub mod worst;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use alloy_consensus::{Header, EMPTY_OMMER_ROOT_HASH};
use alloy_eips::eip7685::EMPTY_REQUESTS_HASH;
use alloy_primitives::{address, keccak256, Address, Bytes, B256, B64, U256};
use alloy_trie::EMPTY_ROOT_HASH;
use k256::ecdsa::SigningKey;
use program::{BlockOutput, ChainConfig, ExecutionWitness, ValidationError};
use serde_json::{json, Value};

use chaindata::chain::devnet::chain_json;
use chaindata::fixtures::{full_state_witness, GenesisAccount};

pub use block::{default_block, seal_as, seal_as_listed, signed, small_block, SealedAs};
pub use chaindata::chain::devnet::{genesis_chain_json, Fork, CHAIN_ID};
/// Genesis time: 2026-01-01T00:00:00Z.
pub const GENESIS_TIMESTAMP: u64 = 1_767_225_600;
/// Block gas limit.
pub const GAS_LIMIT: u64 = 36_000_000;
/// Genesis base fee: 1 gwei.
pub const GENESIS_BASE_FEE: u64 = 1_000_000_000;
/// Funded externally owned accounts.
pub const EOAS: usize = 8;

/// The token contract.
pub const TOKEN: Address = address!("70ce000000000000000000000000000000000001");
/// The CREATE2 factory.
pub const FACTORY: Address = address!("fac7000000000000000000000000000000000002");
/// The hash chain.
pub const HASHER: Address = address!("4a5e000000000000000000000000000000000003");
/// The fee recipient (not in genesis: fees create it).
pub const COINBASE: Address = address!("c0ffee0000000000000000000000000000000004");

/// A generation step that failed: the generator's own block must validate.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// Building the genesis state failed.
    #[error("genesis state: {0}")]
    State(#[from] mpt::TrieError),
    /// Executing or validating the generated block failed.
    #[error("generated block {id} is invalid: {source}")]
    Invalid {
        /// Which block.
        id: String,
        /// Why.
        source: Box<ValidationError>,
    },
    /// Writing a file failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// The devnet's genesis: accounts, header, chain config, and the full-state witness of block 1.
pub struct Devnet {
    /// The accounts.
    pub alloc: BTreeMap<Address, GenesisAccount>,
    /// The genesis header.
    pub header: Header,
    /// The chain config, as JSON (what `<id>.chain.json` holds).
    pub chain_json: Value,
    /// The chain config.
    pub chain: ChainConfig,
    /// The whole genesis state, with the genesis header as the only ancestor.
    pub witness: ExecutionWitness,
    /// The EOAs' keys.
    pub keys: Vec<SigningKey>,
    /// The last fork it activates (all from genesis).
    pub fork: Fork,
}

/// EOA `i`'s key: keccak256 of a fixed phrase.
pub fn key(i: usize) -> SigningKey {
    let seed = keccak256(format!("stateless-verifier devnet account {i}"));
    SigningKey::from_slice(seed.as_slice()).expect("a keccak digest is a valid secp256k1 key")
}

/// The address of `key`.
pub fn address_of(key: &SigningKey) -> Address {
    Address::from_public_key(key.verifying_key())
}

/// The storage slot of `holder`'s token balance: `keccak256(holder ‖ 0)`.
pub fn balance_slot(holder: Address) -> U256 {
    let mut preimage = [0u8; 64];
    preimage[12..32].copy_from_slice(holder.as_slice());
    keccak256(preimage).into()
}

fn ether(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(18))
}

impl Devnet {
    /// Builds the genesis.
    pub fn new() -> Result<Self, GenError> {
        Self::of(Fork::Osaka)
    }

    /// Builds the genesis of the devnet under `fork`.
    pub fn of(fork: Fork) -> Result<Self, GenError> {
        Self::with(BTreeMap::new(), GAS_LIMIT, fork)
    }

    /// Builds a genesis holding `extra` accounts besides the devnet's own, with block gas
    /// limit `gas_limit`, every fork through `fork` active.
    pub fn with(
        extra: BTreeMap<Address, GenesisAccount>,
        gas_limit: u64,
        fork: Fork,
    ) -> Result<Self, GenError> {
        let keys: Vec<SigningKey> = (0..EOAS).map(key).collect();
        let mut alloc = extra;
        let mut token = GenesisAccount {
            code: asm::token(),
            ..Default::default()
        };
        for key in &keys {
            let eoa = address_of(key);
            alloc.insert(
                eoa,
                GenesisAccount {
                    balance: ether(1000),
                    ..Default::default()
                },
            );
            token.storage.insert(balance_slot(eoa), ether(1_000_000));
        }
        alloc.insert(TOKEN, token);
        for (address, code) in [(FACTORY, asm::factory()), (HASHER, asm::hasher())] {
            alloc.insert(
                address,
                GenesisAccount {
                    code,
                    ..Default::default()
                },
            );
        }
        use alloy_eips::{eip2935, eip4788, eip7002, eip7251};
        for (address, code) in [
            (eip4788::BEACON_ROOTS_ADDRESS, &eip4788::BEACON_ROOTS_CODE),
            (
                eip2935::HISTORY_STORAGE_ADDRESS,
                &eip2935::HISTORY_STORAGE_CODE,
            ),
            (
                eip7002::WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS,
                &eip7002::WITHDRAWAL_REQUEST_PREDEPLOY_CODE,
            ),
            (
                eip7251::CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS,
                &eip7251::CONSOLIDATION_REQUEST_PREDEPLOY_CODE,
            ),
        ]
        .into_iter()
        .chain(
            (fork == Fork::Amsterdam)
                .then_some([
                    (
                        alloy_eips::eip8282::BUILDER_DEPOSIT_CONTRACT_ADDRESS,
                        &alloy_eips::eip8282::BUILDER_DEPOSIT_CONTRACT_CODE,
                    ),
                    (
                        alloy_eips::eip8282::BUILDER_EXIT_CONTRACT_ADDRESS,
                        &alloy_eips::eip8282::BUILDER_EXIT_CONTRACT_CODE,
                    ),
                ])
                .into_iter()
                .flatten(),
        ) {
            let account = GenesisAccount {
                nonce: U256::from(1),
                code: code.clone(),
                ..Default::default()
            };
            alloc.insert(address, account);
        }

        let (state_root, mut witness) = full_state_witness(&alloc, Vec::new())?;
        let header = Header {
            ommers_hash: EMPTY_OMMER_ROOT_HASH,
            state_root,
            transactions_root: EMPTY_ROOT_HASH,
            receipts_root: EMPTY_ROOT_HASH,
            gas_limit,
            timestamp: GENESIS_TIMESTAMP,
            extra_data: Bytes::from_static(b"stateless-verifier devnet"),
            nonce: B64::ZERO,
            base_fee_per_gas: Some(GENESIS_BASE_FEE),
            withdrawals_root: Some(EMPTY_ROOT_HASH),
            blob_gas_used: Some(0),
            excess_blob_gas: Some(0),
            parent_beacon_block_root: Some(B256::ZERO),
            requests_hash: Some(EMPTY_REQUESTS_HASH),
            // Amsterdam's fields: the genesis has an empty access list, slot 0.
            block_access_list_hash: (fork == Fork::Amsterdam)
                .then_some(alloy_eips::eip7928::EMPTY_BLOCK_ACCESS_LIST_HASH),
            slot_number: (fork == Fork::Amsterdam).then_some(0),
            ..Default::default()
        };
        witness.headers = vec![alloy_rlp::encode(&header).into()];
        let chain_json = chain_json(fork);
        let chain = chaindata::chain::from_genesis_config(&chain_json)
            .expect("the generator's own chain config parses");
        Ok(Self {
            alloc,
            header,
            chain_json,
            chain,
            witness,
            keys,
            fork,
        })
    }

    /// A geth-style genesis file: config, header fields and the allocation.
    pub fn genesis_json(&self) -> Value {
        let alloc: serde_json::Map<String, Value> = self
            .alloc
            .iter()
            .map(|(address, account)| {
                let mut entry = json!({ "balance": account.balance, "nonce": account.nonce });
                if !account.code.is_empty() {
                    entry["code"] = json!(account.code);
                }
                if !account.storage.is_empty() {
                    let storage: BTreeMap<B256, B256> = account
                        .storage
                        .iter()
                        .map(|(k, v)| (B256::from(*k), B256::from(*v)))
                        .collect();
                    entry["storage"] = json!(storage);
                }
                (address.to_string(), entry)
            })
            .collect();
        json!({
            "config": self.chain_json,
            "timestamp": format!("{:#x}", self.header.timestamp),
            "gasLimit": format!("{:#x}", self.header.gas_limit),
            "baseFeePerGas": format!("{:#x}", GENESIS_BASE_FEE),
            "extraData": self.header.extra_data,
            "alloc": alloc,
            "hash": self.header.hash_slow(),
            "stateRoot": self.header.state_root,
        })
    }
}

/// A generated block.
pub struct Generated {
    /// Its id (file stem).
    pub id: String,
    /// What it holds.
    pub description: String,
    /// The block's RLP.
    pub block_rlp: Vec<u8>,
    /// Its witness.
    pub witness: ExecutionWitness,
    /// The validator's verdict on it.
    pub output: BlockOutput,
    /// Withdrawals.
    pub withdrawals: usize,
    /// Per transaction, whether it succeeded (its receipt's status).
    pub succeeded: Vec<bool>,
}

impl Generated {
    /// Writes `<id>.block.rlp`, `<id>.witness.json` and `<id>.chain.json` (`chain_json`) into
    /// `dir`; returns the block file's path.
    pub fn write(&self, dir: &Path, chain_json: &Value) -> Result<PathBuf, GenError> {
        std::fs::create_dir_all(dir).map_err(|source| GenError::Write {
            path: dir.to_owned(),
            source,
        })?;
        let (block_path, witness_path) = chaindata::blocks::block_paths(dir, &self.id);
        write(&block_path, &self.block_rlp)?;
        let witness = json!({
            "state": self.witness.state,
            "codes": self.witness.codes,
            "keys": [],
            "headers": self.witness.headers,
        });
        write(&witness_path, &pretty(&witness))?;
        write(
            &dir.join(format!("{}.chain.json", self.id)),
            &pretty(chain_json),
        )?;
        Ok(block_path)
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), GenError> {
    std::fs::write(path, bytes).map_err(|source| GenError::Write {
        path: path.to_owned(),
        source,
    })
}

fn pretty(value: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(value).expect("JSON values serialize");
    out.push(b'\n');
    out
}

/// Generates both blocks into `dir`: per block `<id>.block.rlp`, `<id>.witness.json`,
/// `<id>.chain.json`; plus `devnet.genesis.json` and `manifest.json`. Returns one line per
/// block for the user.
pub fn write_all(dir: &Path) -> Result<Vec<String>, GenError> {
    write_fork(dir, Fork::Osaka)
}

/// [`write_all`] under `fork`: the blocks `<id>` and `<id>-small` ([`Fork::devnet_id`]), with
/// `<id>.genesis.json`, and the manifest `manifest.json` for the default fork,
/// `<id>.manifest.json` for another.
pub fn write_fork(dir: &Path, fork: Fork) -> Result<Vec<String>, GenError> {
    let devnet = Devnet::of(fork)?;
    let blocks = [default_block(&devnet)?, small_block(&devnet)?];
    std::fs::create_dir_all(dir).map_err(|source| GenError::Write {
        path: dir.to_owned(),
        source,
    })?;
    let mut lines = Vec::new();
    let mut manifest = Vec::new();
    for block in &blocks {
        let block_path = block.write(dir, &devnet.chain_json)?;
        let o = &block.output;
        manifest.push(json!({
            "id": block.id,
            "description": block.description,
            "number": 1,
            "hash": o.block_hash,
            "parent_hash": o.parent_hash,
            "pre_state_root": o.pre_state_root,
            "post_state_root": o.post_state_root,
            "transactions": o.tx_count,
            "withdrawals": block.withdrawals,
            "gas_used": o.gas_used,
            "block_bytes": block.block_rlp.len(),
            "witness_nodes": block.witness.state.len(),
        }));
        lines.push(format!(
            "{}: block 1 {} ({} transactions, {} gas) -> {}",
            block.id,
            o.block_hash,
            o.tx_count,
            o.gas_used,
            block_path.display()
        ));
    }
    let id = fork.devnet_id();
    let genesis_file = format!("{id}.genesis.json");
    write(&dir.join(&genesis_file), &pretty(&devnet.genesis_json()))?;
    let manifest = json!({
        "generated_by": "host gen",
        "chain_id": CHAIN_ID,
        "genesis": {
            "file": genesis_file,
            "hash": devnet.header.hash_slow(),
            "state_root": devnet.header.state_root,
        },
        "blocks": manifest,
        "fetched": "fetched blocks go to cache/ (ignored by git)",
    });
    let manifest_file = match fork {
        Fork::Osaka => "manifest.json".to_owned(),
        _ => format!("{id}.manifest.json"),
    };
    write(&dir.join(manifest_file), &pretty(&manifest))?;
    Ok(lines)
}
