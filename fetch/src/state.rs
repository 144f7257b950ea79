//! The parent block's state read over standard JSON-RPC, as revm's database, recording what
//! execution touches: the first pass of `host fetch --source proofs`.
//!
//! Each account is read with `eth_getProof` (no slots) at the parent block, which gives its
//! nonce, balance, code hash and storage root together with its account proof; its code with
//! `eth_getCode`, checked against the code hash; each slot with `eth_getStorageAt`; BLOCKHASH
//! with `eth_getBlockByNumber`, the header checked against its hash. Execution is sequential,
//! so these requests are too (each blocks on the runtime); the storage proofs of the slots read
//! are fetched afterwards, per account and concurrently ([`super::proofs`]). Nothing read here
//! is trusted: the witness built from it is validated against the block's header before it is
//! written.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::IntoFuture;

use alloy_primitives::{keccak256, Address, Bytes, B256, U256};
use alloy_provider::Provider;
use alloy_rpc_types_eth::EIP1186AccountProofResponse;
use alloy_trie::proof::{verify_proof, ProofVerificationError};
use alloy_trie::{Nibbles, TrieAccount, EMPTY_ROOT_HASH, KECCAK_EMPTY};
use program::db::PreState;
use program::DbError;
use revm::bytecode::Bytecode;
use revm::state::AccountInfo;

use super::node::Node;
use super::FetchError;

/// The parent's state over RPC, and everything execution read from it.
pub(super) struct RpcState<'a> {
    node: &'a Node,
    runtime: &'a tokio::runtime::Runtime,
    /// The parent block, whose state this is.
    parent: u64,
    /// The parent's state root, which every proof is checked against.
    state_root: B256,
    /// `eth_getProof` answers by address, and whether the account exists.
    pub(super) accounts: BTreeMap<Address, (EIP1186AccountProofResponse, bool)>,
    /// Slots read, by account.
    pub(super) slots: BTreeMap<Address, BTreeSet<U256>>,
    /// The value execution was given for each slot read (by `eth_getStorageAt`, or zero under an
    /// empty storage root), held to the slot's proof later.
    pub(super) slot_values: BTreeMap<(Address, U256), U256>,
    /// Codes read, by hash.
    pub(super) codes: HashMap<B256, Bytes>,
    /// Headers BLOCKHASH read, by number (RLP).
    pub(super) headers: BTreeMap<u64, Bytes>,
    /// The first failure, typed (revm gets a [`DbError`] that only says the source failed).
    pub(super) failure: Option<FetchError>,

    error: Option<DbError>,
}

impl std::fmt::Debug for RpcState<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcState")
            .field("url", &self.node.url)
            .field("parent", &self.parent)
            .field("accounts", &self.accounts.len())
            .finish_non_exhaustive()
    }
}

impl<'a> RpcState<'a> {
    pub(super) fn new(
        node: &'a Node,
        runtime: &'a tokio::runtime::Runtime,
        parent: u64,
        state_root: B256,
    ) -> Self {
        Self {
            node,
            runtime,
            parent,
            state_root,
            accounts: BTreeMap::new(),
            slots: BTreeMap::new(),
            slot_values: BTreeMap::new(),
            codes: HashMap::new(),
            headers: BTreeMap::new(),
            failure: None,
            error: None,
        }
    }

    /// Keeps the first failure, which names what was being read; revm gets a
    /// [`DbError::Unavailable`].
    fn fail<T>(&mut self, failure: FetchError) -> Result<T, DbError> {
        self.failure.get_or_insert(failure);
        self.error.get_or_insert(DbError::Unavailable);
        Err(DbError::Unavailable)
    }

    fn account(
        &mut self,
        address: Address,
    ) -> Result<Option<&EIP1186AccountProofResponse>, DbError> {
        if !self.accounts.contains_key(&address) {
            let (node, parent) = (self.node, self.parent);
            let answer = self.runtime.block_on(node.call("eth_getProof", parent, || {
                node.provider
                    .get_proof(address, Vec::new())
                    .number(parent)
                    .into_future()
            }));
            match answer {
                Ok(mut answer) => {
                    if let Err(e) = verify_answer(&mut answer, parent, self.state_root) {
                        return self.fail(e);
                    }
                    let exists = account_exists(&answer);
                    self.accounts.insert(address, (answer, exists));
                }
                Err(e) => return self.fail(e),
            }
        }
        let (answer, exists) = &self.accounts[&address];
        Ok(exists.then_some(answer))
    }
}

impl PreState for RpcState<'_> {
    fn storage_root(&mut self, address: Address) -> Result<Option<B256>, DbError> {
        Ok(self.account(address)?.map(|a| a.storage_hash))
    }

    fn first_error(&mut self) -> &mut Option<DbError> {
        &mut self.error
    }
}

impl revm::Database for RpcState<'_> {
    type Error = DbError;

    fn basic(&mut self, address: Address) -> Result<Option<AccountInfo>, DbError> {
        let Some(account) = self.account(address)? else {
            return Ok(None);
        };
        let (nonce, balance, code_hash) = (account.nonce, account.balance, account.code_hash);
        let code = if code_hash == KECCAK_EMPTY || code_hash == B256::ZERO {
            Bytecode::default()
        } else {
            let code = match self.codes.get(&code_hash) {
                Some(code) => code.clone(),
                None => {
                    let (node, parent) = (self.node, self.parent);
                    let answer = self.runtime.block_on(node.call("eth_getCode", parent, || {
                        node.provider
                            .get_code_at(address)
                            .number(parent)
                            .into_future()
                    }));
                    let code = match answer {
                        Ok(code) => code,
                        Err(e) => return self.fail(e),
                    };
                    if keccak256(&code) != code_hash {
                        let reason = format!(
                            "the code of {address} hashes to {}, its account says {code_hash}",
                            keccak256(&code)
                        );
                        let e = FetchError::BadResponse {
                            method: "eth_getCode",
                            reason,
                        };
                        return self.fail(e);
                    }
                    self.codes.insert(code_hash, code.clone());
                    code
                }
            };
            match Bytecode::new_raw_checked(code) {
                Ok(code) => code,
                Err(_) => {
                    self.error.get_or_insert(DbError::MalformedCode(code_hash));
                    return Err(DbError::MalformedCode(code_hash));
                }
            }
        };
        Ok(Some(AccountInfo {
            balance,
            nonce,
            code_hash: if code.is_empty() {
                KECCAK_EMPTY
            } else {
                code_hash
            },
            code: Some(code),
            ..Default::default()
        }))
    }

    fn code_by_hash(&mut self, code_hash: B256) -> Result<Bytecode, DbError> {
        match self.codes.get(&code_hash) {
            Some(code) => Bytecode::new_raw_checked(code.clone())
                .map_err(|_| DbError::MalformedCode(code_hash)),
            None if code_hash == KECCAK_EMPTY => Ok(Bytecode::default()),
            None => Err(DbError::MissingCode(code_hash)),
        }
    }

    fn storage(&mut self, address: Address, slot: U256) -> Result<U256, DbError> {
        self.slots.entry(address).or_default().insert(slot);
        if self
            .account(address)?
            .is_none_or(|a| a.storage_hash == EMPTY_ROOT_HASH)
        {
            self.slot_values.insert((address, slot), U256::ZERO);
            return Ok(U256::ZERO);
        }
        let (node, parent) = (self.node, self.parent);
        let answer = self
            .runtime
            .block_on(node.call("eth_getStorageAt", parent, || {
                node.provider
                    .get_storage_at(address, slot)
                    .number(parent)
                    .into_future()
            }));
        match answer {
            Ok(value) => {
                self.slot_values.insert((address, slot), value);
                Ok(value)
            }
            Err(e) => self.fail(e),
        }
    }

    fn block_hash(&mut self, number: u64) -> Result<B256, DbError> {
        let answer = self.runtime.block_on(self.node.header(number));
        match answer {
            Ok((hash, rlp)) => {
                self.headers.insert(number, rlp);
                Ok(hash)
            }
            Err(e) => self.fail(e),
        }
    }
}

/// Drops the empty elements of a proof, wherever they are: real archive nodes end some
/// exclusion proofs (of an account or slot that does not exist) with `0x`, and some put one
/// between two nodes (`[branch, 0x, leaf]`, where the leaf hashes to the branch's child: seen in
/// 2 of 556 storage proofs of one mainnet block). An empty element proves nothing; what a proof
/// proves is decided by the hash links of the nodes that remain, which the verification walks.
fn drop_empty_elements(proof: &mut Vec<Bytes>) {
    proof.retain(|element| !element.is_empty());
}

/// Checks an `eth_getProof` answer made at `block` against that block's `state_root`: the
/// account proof (its leaf must hold the nonce, balance, code hash and storage root answered,
/// or prove the account absent) and each storage proof against the answered storage root.
/// alloy-trie's verifier: an implementation independent of the validator's trie. First drops
/// the empty elements real nodes' proofs hold ([`drop_empty_elements`]), so the answer holds
/// only nodes.
pub(super) fn verify_answer(
    answer: &mut EIP1186AccountProofResponse,
    block: u64,
    state_root: B256,
) -> Result<(), FetchError> {
    drop_empty_elements(&mut answer.account_proof);
    for slot in &mut answer.storage_proof {
        drop_empty_elements(&mut slot.proof);
    }
    let answer = &*answer;
    let address = answer.address;
    let exists = account_exists(answer);
    let leaf = exists.then(|| {
        alloy_rlp::encode(TrieAccount {
            nonce: answer.nonce,
            balance: answer.balance,
            storage_root: answer.storage_hash,
            code_hash: answer.code_hash,
        })
    });
    let bad = |what: String, root: B256, e: ProofVerificationError| FetchError::BadProof {
        block,
        what,
        root,
        reason: e.to_string(),
    };
    verify_proof(
        state_root,
        Nibbles::unpack(keccak256(address)),
        leaf,
        &answer.account_proof,
    )
    .map_err(|e| bad(format!("account {address}"), state_root, e))?;
    let storage_root = if exists {
        answer.storage_hash
    } else {
        EMPTY_ROOT_HASH
    };
    for slot in &answer.storage_proof {
        let key = slot.key.as_b256();
        let value = (!slot.value.is_zero()).then(|| alloy_rlp::encode(slot.value));
        verify_proof(
            storage_root,
            Nibbles::unpack(keccak256(key)),
            value,
            &slot.proof,
        )
        .map_err(|e| bad(format!("slot {key} of account {address}"), storage_root, e))?;
    }
    Ok(())
}

/// Whether an `eth_getProof` answer is of an existing account (nodes answer an absent one with
/// zeros, and an empty code hash and storage root or zero hashes).
fn account_exists(answer: &EIP1186AccountProofResponse) -> bool {
    !(answer.nonce == 0
        && answer.balance.is_zero()
        && matches!(answer.code_hash, KECCAK_EMPTY | B256::ZERO)
        && matches!(answer.storage_hash, EMPTY_ROOT_HASH | B256::ZERO))
}
