//! Ethereum's state: the account trie, and one storage trie per account, opened lazily.
//!
//! Keys are hashed through the sponge (and the guest's memo of short hashes, `keccak::memo`):
//! `keccak256(address)` (20 bytes) for accounts,
//! `keccak256(slot)` (32 bytes) for storage. An account leaf is
//! `rlp([nonce, balance, storage_root, code_hash])`; a storage leaf is `rlp(value)`, and a zero
//! value is no leaf at all.

use alloc::boxed::Box;
use alloc::vec::Vec;
use alloy_primitives::{map::B256Map, Address, B256, U256};
use alloy_rlp::{Decodable, Encodable};
use alloy_trie::{TrieAccount, EMPTY_ROOT_HASH};

use super::{Trie, WitnessStore};
use crate::error::TrieError;
use crate::keccak::keccak256_memo;

/// Nodes a storage trie has room for before its arena grows. Growing copies the arena, and a
/// busy contract's trie decodes hundreds of nodes; room never used is never touched (the
/// guest's bump allocator hands out address space), so it costs nothing. 512: measured on
/// 24171384 and 21882667, where 32 left the growth copies at 4-6% of the pages touched.
const STORAGE_CAPACITY: usize = 512;

/// The account trie and the storage tries reached through it.
#[derive(Debug, Clone)]
pub struct StateTrie<'s> {
    store: &'s WitnessStore,
    accounts: Trie<'s>,
    /// Storage tries opened so far, by hashed address, with whether they changed.
    storage: B256Map<(Trie<'s>, bool)>,
    /// The last address hashed, and its hash: storage reads and writes come in runs of one
    /// account's slots, and each would otherwise hash the address again (a keccak-f each).
    last_address: Option<(Address, B256)>,
}

impl<'s> StateTrie<'s> {
    /// Opens the state at `root`; the root node must be in `store`.
    pub fn open(store: &'s WitnessStore, root: B256) -> Result<Self, TrieError> {
        Ok(Self {
            store,
            // Every decoded node is a witness node, plus the few a write adds.
            accounts: Trie::open_with_capacity(
                store,
                root,
                store.len().min(super::store::MAX_RESERVED_ITEMS) + 64,
            )?,
            storage: B256Map::default(),
            last_address: None,
        })
    }

    /// `keccak256(address)`, remembered for the next call.
    fn hash_address(&mut self, address: Address) -> B256 {
        match self.last_address {
            Some((last, hash)) if last == address => hash,
            _ => {
                let hash = keccak256_memo(address.as_slice());
                self.last_address = Some((address, hash));
                hash
            }
        }
    }

    /// The account at `address`, or `None` when the witness proves it absent.
    pub fn account(&mut self, address: Address) -> Result<Option<TrieAccount>, TrieError> {
        let hashed_address = self.hash_address(address);
        self.account_by_hash(hashed_address)
    }

    /// The account whose hashed address is `hashed_address`.
    pub fn account_by_hash(
        &mut self,
        hashed_address: B256,
    ) -> Result<Option<TrieAccount>, TrieError> {
        let Some(mut leaf) = self.accounts.get(hashed_address.as_slice())? else {
            return Ok(None);
        };
        TrieAccount::decode(&mut leaf)
            .map(Some)
            .map_err(|source| TrieError::MalformedAccount {
                hashed_address,
                source,
            })
    }

    /// Storage `slot` of the account at `address` (zero when absent).
    pub fn storage(&mut self, address: Address, slot: U256) -> Result<U256, TrieError> {
        let hashed_address = self.hash_address(address);
        self.storage_by_hash(hashed_address, hash_slot(slot))
    }

    /// Storage value by hashed address and hashed slot.
    pub fn storage_by_hash(
        &mut self,
        hashed_address: B256,
        hashed_slot: B256,
    ) -> Result<U256, TrieError> {
        let (trie, _) = self.storage_trie(hashed_address)?;
        let leaf = trie
            .get(hashed_slot.as_slice())
            .map_err(|e| in_storage(hashed_address, e))?;
        let Some(mut leaf) = leaf else {
            return Ok(U256::ZERO);
        };
        U256::decode(&mut leaf).map_err(|source| TrieError::MalformedStorage {
            hashed_address,
            hashed_slot,
            source,
        })
    }

    /// Writes (`Some`) or deletes (`None`) the account at `address`. Its `storage_root` is
    /// replaced by the storage trie's root at [`StateTrie::root`] if that storage changed.
    pub fn set_account(
        &mut self,
        address: Address,
        account: Option<&TrieAccount>,
    ) -> Result<(), TrieError> {
        let key = self.hash_address(address);
        match account {
            Some(account) => {
                let mut leaf = Vec::with_capacity(account.length());
                account.encode(&mut leaf);
                self.accounts.insert(key.as_slice(), leaf)
            }
            None => self.accounts.delete(key.as_slice()).map(drop),
        }
    }

    /// Writes storage `slot` of `address`; zero deletes it.
    pub fn set_storage(
        &mut self,
        address: Address,
        slot: U256,
        value: U256,
    ) -> Result<(), TrieError> {
        let hashed_address = self.hash_address(address);
        let key = hash_slot(slot);
        let (trie, dirty) = self.storage_trie(hashed_address)?;
        *dirty = true;
        let result = if value.is_zero() {
            trie.delete(key.as_slice()).map(drop)
        } else {
            let mut leaf = Vec::with_capacity(value.length());
            value.encode(&mut leaf);
            trie.insert(key.as_slice(), leaf)
        };
        result.map_err(|e| in_storage(hashed_address, e))
    }

    /// Replaces the storage of `address` with an empty trie (self-destruct, re-creation).
    pub fn wipe_storage(&mut self, address: Address) {
        let hashed_address = self.hash_address(address);
        self.storage.insert(hashed_address, (Trie::empty(), true));
    }

    /// The state root: changed storage roots are written into their accounts first.
    pub fn root(&mut self) -> Result<B256, TrieError> {
        for (hashed_address, (trie, dirty)) in &mut self.storage {
            if !core::mem::take(dirty) {
                continue;
            }
            let storage_root = trie.root();
            let leaf = self.accounts.get(hashed_address.as_slice())?;
            let Some(mut leaf) = leaf else {
                if storage_root == EMPTY_ROOT_HASH {
                    continue;
                }
                return Err(TrieError::StorageWithoutAccount(*hashed_address));
            };
            let mut account =
                TrieAccount::decode(&mut leaf).map_err(|source| TrieError::MalformedAccount {
                    hashed_address: *hashed_address,
                    source,
                })?;
            if account.storage_root != storage_root {
                account.storage_root = storage_root;
                let mut leaf = Vec::with_capacity(account.length());
                account.encode(&mut leaf);
                self.accounts.insert(hashed_address.as_slice(), leaf)?;
            }
        }
        Ok(self.accounts.root())
    }

    /// Computes the root and compares it with `expected`.
    pub fn check_root(&mut self, expected: B256) -> Result<(), TrieError> {
        let got = self.root()?;
        if got == expected {
            Ok(())
        } else {
            Err(TrieError::RootMismatch { expected, got })
        }
    }

    /// The RLP of every node of the account trie, then of the storage tries opened so far in
    /// hashed-address order (the same list on every run), after computing the root: with the
    /// codes, the witness of this state for every key read or written. A state built from
    /// scratch (every account and slot written) yields the witness of the whole state.
    pub fn encoded_nodes(&mut self) -> Result<Vec<Vec<u8>>, TrieError> {
        self.root()?;
        let mut nodes = self.accounts.encoded_nodes();
        let mut tries: Vec<_> = self.storage.iter_mut().collect();
        tries.sort_unstable_by_key(|(hashed, _)| **hashed);
        nodes.extend(tries.into_iter().flat_map(|(_, t)| t.0.encoded_nodes()));
        Ok(nodes)
    }

    /// The proof of `address` in the account trie as the state is now (changed storage roots
    /// written first): `eth_getProof`'s `accountProof`.
    pub fn account_proof(&mut self, address: Address) -> Result<Vec<Vec<u8>>, TrieError> {
        self.root()?;
        let key = self.hash_address(address);
        self.accounts.proof(key.as_slice())
    }

    /// The proof of storage `slot` of `address` as the state is now: one of `eth_getProof`'s
    /// `storageProof`s (empty when the account has no storage).
    pub fn storage_proof(
        &mut self,
        address: Address,
        slot: U256,
    ) -> Result<Vec<Vec<u8>>, TrieError> {
        self.root()?;
        let hashed_address = self.hash_address(address);
        let key = hash_slot(slot);
        let (trie, _) = self.storage_trie(hashed_address)?;
        trie.proof(key.as_slice())
            .map_err(|e| in_storage(hashed_address, e))
    }

    /// Collapse children derived from the witness so far, in all tries
    /// ([`Trie::derived_nodes`]).
    pub fn derived_nodes(&self) -> usize {
        self.accounts.derived_nodes()
            + self
                .storage
                .values()
                .map(|(trie, _)| trie.derived_nodes())
                .sum::<usize>()
    }

    /// The account trie itself.
    pub fn accounts(&mut self) -> &mut Trie<'s> {
        &mut self.accounts
    }

    /// The storage trie of an account, opened at the account's `storage_root` on first use.
    fn storage_trie(&mut self, hashed_address: B256) -> Result<&mut (Trie<'s>, bool), TrieError> {
        if !self.storage.contains_key(&hashed_address) {
            let root = self
                .account_by_hash(hashed_address)?
                .map_or(EMPTY_ROOT_HASH, |a| a.storage_root);
            let trie = Trie::open_with_capacity(self.store, root, STORAGE_CAPACITY)
                .map_err(|e| in_storage(hashed_address, e))?;
            self.storage.insert(hashed_address, (trie, false));
        }
        Ok(self
            .storage
            .get_mut(&hashed_address)
            .expect("inserted above"))
    }
}

fn in_storage(hashed_address: B256, source: TrieError) -> TrieError {
    TrieError::Storage {
        hashed_address,
        source: Box::new(source),
    }
}

/// `keccak256(slot)`, the storage trie's key: through the memo, as the same slots are read and
/// then written.
#[inline]
fn hash_slot(slot: U256) -> B256 {
    keccak256_memo(&slot.to_be_bytes::<32>())
}
