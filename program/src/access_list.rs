//! EIP-7928 (Amsterdam): the block access list execution builds, checked against the header.
//!
//! revm's state records, per phase of the block, every account and slot it touched and the
//! value each write left ([`crate::execute`] sets the phase: the pre-execution system calls at
//! index 0, transaction `i` at `i + 1`, withdrawals and requests after the last) and gives the
//! list in the EIP's canonical order (accounts by address, slots by key, changes by index).
//! What is ours is the rule the header makes of it: `block_access_list_hash` is keccak256 of
//! the list's RLP (streamed into the sponge, [`mpt::keccak::keccak256_rlp`]), and the list may
//! hold at most one item (an account, or one of its slots) per `ITEM_COST` gas of the block's
//! gas limit.
//!
//! The list a block is built with never travels in the block: the header commits to it by its
//! hash alone. A given list (a payload's, a fixture's) is compared with the built one by
//! [`first_difference`], which names the first account and field where they part.

use alloy_consensus::Header;
use alloy_eips::eip7928::{total_bal_items, AccountChanges, ITEM_COST};
use alloy_primitives::{Address, B256};

use crate::error::ValidationError;

/// The most items the list of a block with `gas_limit` may hold.
pub fn item_limit(gas_limit: u64) -> u64 {
    gas_limit / ITEM_COST as u64
}

/// keccak256 of the list's RLP.
pub fn hash(list: &[AccountChanges]) -> B256 {
    mpt::keccak::keccak256_rlp(&AsList(list))
}

/// A slice of entries as the RLP list of them (alloy-rlp encodes `Vec`s so, not slices).
struct AsList<'a>(&'a [AccountChanges]);

impl alloy_rlp::Encodable for AsList<'_> {
    fn encode(&self, out: &mut dyn alloy_rlp::BufMut) {
        alloy_rlp::encode_list(self.0, out)
    }

    fn length(&self) -> usize {
        alloy_rlp::list_length(self.0)
    }
}

/// Checks the list execution built against `header`: within the item limit, and hashing to
/// `block_access_list_hash`. A header without the field (before Amsterdam) has no list.
pub fn check(header: &Header, built: Option<&[AccountChanges]>) -> Result<(), ValidationError> {
    let (expected, built) = match (header.block_access_list_hash, built) {
        (None, None) => return Ok(()),
        (Some(expected), Some(built)) => (expected, built),
        // The header's fields follow the fork ([`crate::header`]) as execution does: one
        // without the other is a fork schedule the two read differently.
        (expected, _) => {
            return Err(ValidationError::ForkField {
                field: "block_access_list_hash",
                required: expected.is_none(),
            })
        }
    };
    let items = total_bal_items(built);
    let limit = item_limit(header.gas_limit);
    if items > limit {
        return Err(ValidationError::BlockAccessListItems { items, limit });
    }
    let got = hash(built);
    if got != expected {
        return Err(ValidationError::BlockAccessListHash { expected, got });
    }
    Ok(())
}

/// Where a given list first parts from the built one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The account (the first in address order whose entries differ, or that one list lacks).
    pub account: Address,
    /// The field: `account` (present in one list only), `storage_changes`, `storage_reads`,
    /// `balance_changes`, `nonce_changes` or `code_changes`.
    pub field: &'static str,
}

impl core::fmt::Display for Difference {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "account {} field {}", self.account, self.field)
    }
}

/// The first account and field where `given` and `built` differ, in the built list's order;
/// `None` when they are equal. A list out of the canonical order differs at the first place its
/// order breaks.
pub fn first_difference(given: &[AccountChanges], built: &[AccountChanges]) -> Option<Difference> {
    let mut given_iter = given.iter();
    let mut built_iter = built.iter();
    loop {
        match (given_iter.next(), built_iter.next()) {
            (None, None) => return None,
            (Some(a), None) | (None, Some(a)) => {
                return Some(Difference {
                    account: a.address,
                    field: "account",
                })
            }
            (Some(g), Some(b)) => {
                if g.address != b.address {
                    return Some(Difference {
                        account: g.address.min(b.address),
                        field: "account",
                    });
                }
                let field = if g.storage_changes() != b.storage_changes() {
                    "storage_changes"
                } else if g.storage_reads() != b.storage_reads() {
                    "storage_reads"
                } else if g.balance_changes() != b.balance_changes() {
                    "balance_changes"
                } else if g.nonce_changes() != b.nonce_changes() {
                    "nonce_changes"
                } else if g.code_changes() != b.code_changes() {
                    "code_changes"
                } else {
                    continue;
                };
                return Some(Difference {
                    account: b.address,
                    field,
                });
            }
        }
    }
}
