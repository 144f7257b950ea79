//! Witnesses shaped like `eth_getProof` answers, made from a complete witness: what a fetcher
//! that speaks only standard JSON-RPC gets (as rsp's and zeth's do). For every account and
//! slot the block reads, its proof in the parent's state; for every account and slot it
//! deletes, its proof in the block's post-state; the same codes and headers. None of the
//! siblings that a deletion's collapse folds into, unless a proven key passes through them.

use std::collections::BTreeSet;

use alloy_primitives::Bytes;
use mpt::StateTrie;
use program::{ChainConfig, ExecutionWitness};

/// A proof-shaped witness, and what went into it.
#[derive(Debug)]
pub struct ProofWitness {
    /// The witness.
    pub witness: ExecutionWitness,
    /// Accounts proven in the parent's state.
    pub accounts: usize,
    /// Their addresses.
    pub addresses: Vec<alloy_primitives::Address>,
    /// Storage slots proven in the parent's state.
    pub slots: usize,
    /// Accounts and slots deleted, proven in the post-state.
    pub deleted: usize,
    /// Of which accounts.
    pub deleted_accounts: usize,
    /// How many post-state proof nodes (of the deleted keys) went in.
    pub post_nodes: usize,
}

/// The proof-shaped witness of `block_rlp`, built from its complete `witness` (which must
/// validate under `chain`).
pub fn proof_witness(
    block_rlp: &[u8],
    witness: &ExecutionWitness,
    chain: &ChainConfig,
) -> ProofWitness {
    let store = witness.store();
    let valid = program::validate_block_over(block_rlp, &witness.headers, &store, chain)
        .unwrap_or_else(|e| panic!("the complete witness must validate: {e}"));
    let mut pre = StateTrie::open(&store, valid.output.pre_state_root).expect("pre-state root");
    // The root node is needed even by a block that reads no account (a fetcher asks for the
    // fee recipient's proof then).
    let beneficiary = program::validate::decode_block(block_rlp)
        .expect("valid block")
        .header
        .beneficiary;
    let mut nodes: Vec<Vec<u8>> = pre.account_proof(beneficiary).expect("complete witness");
    let mut slots = 0;
    for (address, read) in &valid.accessed {
        nodes.extend(pre.account_proof(*address).expect("complete witness"));
        for slot in read {
            nodes.extend(
                pre.storage_proof(*address, *slot)
                    .expect("complete witness"),
            );
            slots += 1;
        }
    }
    let mut post = valid.post_state;
    let (mut deleted, mut deleted_accounts, mut post_nodes) = (0, 0, 0);
    for (address, account) in &valid.bundle.state {
        let mut proofs = Vec::new();
        if account.info.is_none() {
            proofs.push(post.account_proof(*address).expect("post-state"));
            deleted_accounts += 1;
        } else if !account.was_destroyed() {
            for (slot, value) in &account.storage {
                if value.is_changed() && value.present_value.is_zero() {
                    proofs.push(post.storage_proof(*address, *slot).expect("post-state"));
                }
            }
        }
        deleted += proofs.len();
        for proof in proofs {
            post_nodes += proof.len();
            nodes.extend(proof);
        }
    }
    // Once each, in first-proven order.
    let mut seen = BTreeSet::new();
    nodes.retain(|n| seen.insert(n.clone()));
    ProofWitness {
        witness: ExecutionWitness {
            state: nodes.into_iter().map(Bytes::from).collect(),
            codes: witness.codes.clone(),
            headers: witness.headers.clone(),
        },
        accounts: valid.accessed.len(),
        addresses: valid.accessed.keys().copied().collect(),
        slots,
        deleted,
        deleted_accounts,
        post_nodes,
    }
}
