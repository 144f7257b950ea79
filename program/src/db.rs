//! revm's view of the pre-state: accounts and storage read through the witness trie, bytecodes
//! by hash, and block hashes of the proven ancestors.
//!
//! Whatever execution asks for and the witness cannot prove is an error, never a default: a
//! missing trie node, a code hash with no code, a block hash with no header. The first such
//! error is also kept in [`WitnessDb::error`], because the block executor flattens database
//! errors into strings and the validator reports the typed one.

use alloy_primitives::{map::HashMap, Address, B256, U256};
use alloy_trie::KECCAK_EMPTY;
use mpt::{StateTrie, WitnessStore};
use revm::bytecode::Bytecode;
use revm::state::AccountInfo;

use crate::error::DbError;

/// The proven ancestors' hashes, by number: what BLOCKHASH reads.
pub trait BlockHashes: core::fmt::Debug {
    /// The hash of ancestor `number`, if proven.
    fn block_hash(&mut self, number: u64) -> Option<B256>;
}

impl BlockHashes for HashMap<u64, B256> {
    fn block_hash(&mut self, number: u64) -> Option<B256> {
        self.get(&number).copied()
    }
}

/// The witness as a revm database.
#[derive(Debug)]
pub struct WitnessDb<'s> {
    /// The pre-state trie (read only here; changes go through revm's `State`).
    pub state: StateTrie<'s>,
    codes: &'s WitnessStore,
    block_hashes: alloc::boxed::Box<dyn BlockHashes + 's>,
    /// The first database error execution hit.
    pub error: Option<DbError>,
    /// Every account and storage slot execution read (feature `record`, host only): the keys
    /// a witness of proofs must prove.
    #[cfg(feature = "record")]
    pub accessed: Accessed,
}

/// Accounts read, each with the storage slots read.
#[cfg(feature = "record")]
pub type Accessed = alloc::collections::BTreeMap<Address, alloc::collections::BTreeSet<U256>>;

impl<'s> WitnessDb<'s> {
    /// A database over `state`, the witness's `codes` and the ancestors' hashes (a map, or
    /// the standard input's headers, read when BLOCKHASH first needs them).
    pub fn new(
        state: StateTrie<'s>,
        codes: &'s WitnessStore,
        block_hashes: impl BlockHashes + 's,
    ) -> Self {
        Self {
            state,
            codes,
            block_hashes: alloc::boxed::Box::new(block_hashes),
            error: None,
            #[cfg(feature = "record")]
            accessed: Accessed::new(),
        }
    }

    fn fail<T>(&mut self, error: DbError) -> Result<T, DbError> {
        self.error.get_or_insert_with(|| error.clone());
        Err(error)
    }
}

/// The pre-state execution reads, as revm's database: the witness in the validator
/// ([`WitnessDb`]), an archive node in the host's fetcher.
pub trait PreState: revm::Database<Error = DbError> + core::fmt::Debug {
    /// The storage root of `address` in the pre-state (`None`: no such account), for
    /// EIP-7610's collision check.
    fn storage_root(&mut self, address: Address) -> Result<Option<B256>, DbError>;
    /// The first error a read hit (the block executor flattens database errors into strings;
    /// this keeps the typed one).
    fn first_error(&mut self) -> &mut Option<DbError>;
}

impl PreState for WitnessDb<'_> {
    fn storage_root(&mut self, address: Address) -> Result<Option<B256>, DbError> {
        Ok(self.state.account(address)?.map(|a| a.storage_root))
    }

    fn first_error(&mut self) -> &mut Option<DbError> {
        &mut self.error
    }
}

impl revm::Database for WitnessDb<'_> {
    type Error = DbError;

    fn basic(&mut self, address: Address) -> Result<Option<AccountInfo>, DbError> {
        #[cfg(feature = "record")]
        self.accessed.entry(address).or_default();
        match self.state.account(address) {
            Ok(account) => Ok(account.map(|a| AccountInfo {
                balance: a.balance,
                nonce: a.nonce,
                code_hash: a.code_hash,
                code: (a.code_hash == KECCAK_EMPTY).then(Bytecode::default),
                ..Default::default()
            })),
            Err(e) => self.fail(e.into()),
        }
    }

    fn code_by_hash(&mut self, code_hash: B256) -> Result<Bytecode, DbError> {
        if code_hash == KECCAK_EMPTY {
            return Ok(Bytecode::default());
        }
        match self.codes.padded(&code_hash) {
            Some(code) => match crate::code::bytecode(code) {
                Ok(code) => Ok(code),
                Err(_) => self.fail(DbError::MalformedCode(code_hash)),
            },
            None => self.fail(DbError::MissingCode(code_hash)),
        }
    }

    fn storage(&mut self, address: Address, index: U256) -> Result<U256, DbError> {
        #[cfg(feature = "record")]
        self.accessed.entry(address).or_default().insert(index);
        match self.state.storage(address, index) {
            Ok(value) => Ok(value),
            Err(e) => self.fail(e.into()),
        }
    }

    fn block_hash(&mut self, number: u64) -> Result<B256, DbError> {
        match self.block_hashes.block_hash(number) {
            Some(hash) => Ok(hash),
            None => self.fail(DbError::MissingBlockHash(number)),
        }
    }
}
