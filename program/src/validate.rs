//! The whole check: a block is valid when every step below passes.
//!
//! 1. the block decodes; ancestors chain up to its parent ([`decode_ancestors`]);
//! 2. the header obeys the fork's rules against its parent ([`validate_header`]);
//! 3. the body matches the header's roots and every sender recovers;
//! 4. the witness holds the parent's state root;
//! 5. execution (system calls, transactions, withdrawals, requests) succeeds;
//! 6. gas used, blob gas used, receipts root, logs bloom, requests hash and (Amsterdam) the
//!    block access list's hash match the header;
//! 7. the state changes, applied to the trie, give the header's state root.

use alloy_consensus::transaction::Recovered;
use alloy_consensus::{proofs, Block, Header, TxEip4844Variant, TxEnvelope, TxReceipt};
use alloy_hardforks::EthereumHardforks;
use alloy_primitives::{map::HashMap, Bloom, Bytes, B256};
use alloy_rlp::Decodable;
use mpt::{StateTrie, WitnessStore};
use revm::database::BundleState;

use crate::body::{recover_senders, validate_body, verify_senders};
use crate::chain::ChainConfig;
use crate::db::{BlockHashes, WitnessDb};
use crate::error::ValidationError;
use crate::execute::{apply_bundle, execute, Executed};
use crate::header::{decode_ancestors, validate_header, MAX_RLP_BLOCK_SIZE};
use crate::witness::{open_pre_state, ExecutionWitness, WitnessError};

/// What a valid block commits to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockOutput {
    /// keccak256 of the header.
    pub block_hash: B256,
    /// The parent's hash.
    pub parent_hash: B256,
    /// The parent's state root.
    pub pre_state_root: B256,
    /// The block's state root, as recomputed.
    pub post_state_root: B256,
    /// Gas used.
    pub gas_used: u64,
    /// Transactions.
    pub tx_count: usize,
}

/// keccak256 of a header's RLP, streamed into the sponge.
pub fn header_hash(header: &Header) -> B256 {
    mpt::keccak::keccak256_rlp(header)
}

fn check<T: PartialEq>(
    expected: T,
    got: T,
    error: impl FnOnce(T, T) -> ValidationError,
) -> Result<(), ValidationError> {
    if expected == got {
        Ok(())
    } else {
        Err(error(expected, got))
    }
}

/// Decodes a block as the chain hashes it: exactly one `rlp([header, transactions, ommers,
/// withdrawals])`, no trailing bytes, and no blob transaction in the network form with its
/// sidecar (alloy's envelope decodes both forms; only the bare transaction is in a block).
pub fn decode_block(block_rlp: &[u8]) -> Result<Block<TxEnvelope>, ValidationError> {
    let mut buf = block_rlp;
    let block = Block::<TxEnvelope>::decode(&mut buf).map_err(ValidationError::BlockRlp)?;
    if !buf.is_empty() {
        return Err(ValidationError::BlockRlp(
            alloy_rlp::Error::UnexpectedLength,
        ));
    }
    check_no_sidecars(&block)?;
    Ok(block)
}

/// Refuses a blob transaction in the network form, with its sidecar: a block holds the bare
/// transaction only, though alloy's envelope decodes both (from RLP and from EIP-2718 bytes).
pub(crate) fn check_no_sidecars(block: &Block<TxEnvelope>) -> Result<(), ValidationError> {
    for (index, tx) in block.body.transactions.iter().enumerate() {
        if let TxEnvelope::Eip4844(signed) = tx {
            if matches!(signed.tx(), TxEip4844Variant::TxEip4844WithSidecar(_)) {
                return Err(ValidationError::BlobSidecarInBlock { index });
            }
        }
    }
    Ok(())
}

/// Validates the block `block_rlp` against `witness` under `chain`.
pub fn validate_block(
    block_rlp: &[u8],
    witness: &ExecutionWitness,
    chain: &ChainConfig,
) -> Result<BlockOutput, ValidationError> {
    let store = witness.store();
    validate_block_over(block_rlp, &witness.headers, &store, chain).map(|valid| valid.output)
}

/// A valid block, with what a caller needs to validate a child on top of it.
#[derive(Debug)]
pub struct ValidBlock<'s> {
    /// What the block commits to.
    pub output: BlockOutput,
    /// The post-state trie (its root is the block's `state_root`); its
    /// [`StateTrie::encoded_nodes`] with the witness's nodes hold the post-state.
    pub post_state: StateTrie<'s>,
    /// revm's state changes; `contracts` holds the bytecodes the block deployed.
    pub bundle: BundleState,
    /// The EIP-7685 requests the block produced (Prague on; empty before).
    pub requests: alloy_eips::eip7685::Requests,
    /// The EIP-7928 block access list execution built (Amsterdam on; `None` before), which
    /// hashes to the header's.
    pub access_list: Option<alloy_eips::eip7928::BlockAccessList>,
    /// Every account and slot execution read (feature `record`).
    #[cfg(feature = "record")]
    pub accessed: crate::db::Accessed,
}

/// [`validate_block`] over the witness's ancestor `headers` and `store`, its nodes and codes
/// ([`ExecutionWitness::store`], or read from the guest's input as needed), keeping the
/// post-state.
pub fn validate_block_over<'s>(
    block_rlp: &[u8],
    headers: &[Bytes],
    store: &'s WitnessStore,
    chain: &ChainConfig,
) -> Result<ValidBlock<'s>, ValidationError> {
    validate_block_signed(block_rlp, headers, store, chain, Signers::Recover)
}

/// Where the senders come from.
#[derive(Debug, Clone, Copy)]
pub enum Signers<'a> {
    /// Recovered from the signatures.
    Recover,
    /// Given as public keys, one per transaction, each verified against its signature
    /// ([`crate::body::verify_senders`]).
    PublicKeys(&'a [[u8; 65]]),
}

/// [`validate_block_over`] with the senders from `signers`.
pub fn validate_block_signed<'s>(
    block_rlp: &[u8],
    headers: &[Bytes],
    store: &'s WitnessStore,
    chain: &ChainConfig,
    signers: Signers<'_>,
) -> Result<ValidBlock<'s>, ValidationError> {
    // The config's checks first, as the verdict on a bad block under a bad config has always
    // named the config.
    chain.check().map_err(ValidationError::Chain)?;
    let block = decode_block(block_rlp)?;
    validate_checked(block, block_rlp.len(), headers, store, chain, signers)
}

/// [`validate_block_signed`] of a block decoded already (as the standard entry builds one
/// from its payload, [`crate::standard::payload`]), whose RLP is `rlp_len` bytes long: no
/// encoding of the block only to decode it again.
pub fn validate_decoded<'s>(
    block: Block<TxEnvelope>,
    rlp_len: usize,
    headers: &[Bytes],
    store: &'s WitnessStore,
    chain: &ChainConfig,
    signers: Signers<'_>,
) -> Result<ValidBlock<'s>, ValidationError> {
    chain.check().map_err(ValidationError::Chain)?;
    // Built from a payload, the block has not been through [`decode_block`]'s check.
    check_no_sidecars(&block)?;
    validate_checked(block, rlp_len, headers, store, chain, signers)
}

/// [`validate_decoded`] once `chain` has passed its checks and `block` holds no sidecar: each
/// entry checks both once, its own way.
pub(crate) fn validate_checked<'s>(
    block: Block<TxEnvelope>,
    rlp_len: usize,
    headers: &[Bytes],
    store: &'s WitnessStore,
    chain: &ChainConfig,
    signers: Signers<'_>,
) -> Result<ValidBlock<'s>, ValidationError> {
    check_size(&block.header, rlp_len, chain)?;
    let parent = check_parent(&block.header, headers, chain)?;
    validate_body(&block, chain)?;
    let senders = match signers {
        Signers::Recover => recover_senders(&block.body.transactions)?,
        Signers::PublicKeys(keys) => verify_senders(&block.body.transactions, keys)?,
    };
    let valid = execute_over(
        &block,
        &senders,
        store,
        parent.state_root,
        parent.block_hashes,
        chain,
    )?;
    crate::discard(senders);
    crate::discard(block);
    Ok(valid)
}

/// EIP-7934 (Osaka on): a block's RLP is at most [`MAX_RLP_BLOCK_SIZE`] bytes.
pub(crate) fn check_size(
    header: &Header,
    rlp_len: usize,
    chain: &ChainConfig,
) -> Result<(), ValidationError> {
    if chain.is_osaka_active_at_timestamp(header.timestamp) && rlp_len > MAX_RLP_BLOCK_SIZE {
        return Err(ValidationError::BlockTooLarge {
            size: rlp_len,
            limit: MAX_RLP_BLOCK_SIZE,
        });
    }
    Ok(())
}

/// What the block's parent gives its validation, once checked.
#[derive(Debug)]
pub(crate) struct Parent {
    /// The parent's state root: the pre-state's.
    pub state_root: B256,
    /// Every ancestor's hash by number.
    pub block_hashes: HashMap<u64, B256>,
}

/// The ancestors chain up to the block's parent ([`decode_ancestors`]), whose hash is the
/// header's `parent_hash`, and the header obeys the fork's rules against that parent.
pub(crate) fn check_parent(
    header: &Header,
    headers: &[Bytes],
    chain: &ChainConfig,
) -> Result<Parent, ValidationError> {
    let (ancestors, block_hashes) = decode_ancestors(headers)?;
    let parent = ancestors.last().ok_or(WitnessError::NoParentHeader)?;
    let parent_hash = block_hashes[&parent.number];
    check(parent_hash, header.parent_hash, |expected, got| {
        ValidationError::ParentHash { expected, got }
    })?;
    validate_header(header, parent, chain)?;
    let state_root = parent.state_root;
    crate::discard(ancestors);
    Ok(Parent {
        state_root,
        block_hashes,
    })
}

/// Steps 4 to 7: `block` executed by `senders` over the state at `root` in `store`, with
/// BLOCKHASH answered by `block_hashes`, and its results checked against its header.
pub(crate) fn execute_over<'s>(
    block: &Block<TxEnvelope>,
    senders: &[Recovered<&TxEnvelope>],
    store: &'s WitnessStore,
    root: B256,
    block_hashes: impl BlockHashes + 's,
    chain: &ChainConfig,
) -> Result<ValidBlock<'s>, ValidationError> {
    let header = &block.header;
    let state = open_pre_state(store, root)?;
    let mut db = WitnessDb::new(state, store, block_hashes);
    let Executed {
        mut result,
        bundle,
        access_list,
    } = execute(block, senders, chain, &mut db)?;

    check(header.gas_used, result.gas_used, |expected, got| {
        ValidationError::GasUsed { expected, got }
    })?;
    if let Some(expected) = header.blob_gas_used {
        check(expected, result.blob_gas_used, |expected, got| {
            ValidationError::BlobGasUsed { expected, got }
        })?;
    }
    let receipts_root = proofs::calculate_receipt_root(&result.receipts);
    check(header.receipts_root, receipts_root, |expected, got| {
        ValidationError::ReceiptsRoot { expected, got }
    })?;
    let bloom = result
        .receipts
        .iter()
        .fold(Bloom::ZERO, |acc, r| acc | r.bloom());
    check(header.logs_bloom, bloom, |expected, got| {
        ValidationError::LogsBloom {
            expected: expected.into(),
            got: got.into(),
        }
    })?;
    if let Some(expected) = header.requests_hash {
        let got = result.requests.requests_hash();
        check(expected, got, |expected, got| {
            ValidationError::RequestsHash { expected, got }
        })?;
    }

    crate::access_list::check(header, access_list.as_deref())?;

    #[cfg(feature = "record")]
    let accessed = core::mem::take(&mut db.accessed);
    let mut state = db.state;
    apply_bundle(&mut state, &bundle).map_err(ValidationError::StateUpdate)?;
    let post_state_root = state.root().map_err(ValidationError::StateUpdate)?;
    check(header.state_root, post_state_root, |expected, got| {
        ValidationError::StateRoot { expected, got }
    })?;

    let output = BlockOutput {
        block_hash: header_hash(header),
        parent_hash: header.parent_hash,
        pre_state_root: root,
        post_state_root,
        gas_used: result.gas_used,
        tx_count: block.body.transactions.len(),
    };
    let requests = core::mem::take(&mut result.requests);
    crate::discard(result);
    Ok(ValidBlock {
        output,
        post_state: state,
        bundle,
        requests,
        access_list,
        #[cfg(feature = "record")]
        accessed,
    })
}
