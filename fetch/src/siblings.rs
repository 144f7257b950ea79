//! Trie nodes the proofs of the keys a block touches do not hold: the witness is validated, and
//! for each node it lacks at a path, the parent's proof of some key through that path is asked
//! for, until it validates.
//!
//! The one such node in practice is a sibling a deletion folds its branch into when that sibling
//! is itself a branch: the post-state proof of the deleted key shows an extension pointing at
//! it, which does not prove what it is (trusting it would let a block that claims a wrong root
//! pass), so the trie cannot derive it the way it derives a leaf or extension
//! (`mpt::trie::orphan`). Keys are hashed, so a key through the path is searched for: storage
//! slots counting up from 0, or addresses, until one's keccak starts with the path's nibbles:
//! 16^n tries on average for an n-nibble path, so paths of up to [`MAX_NIBBLES`] nibbles (a
//! storage trie's deepest branches are at 5 to 7 nibbles on mainnet's largest contracts, e.g.
//! a 7-nibble sibling in 21882667; the account trie's at 8 to 9, out of reach here, and
//! collapses there need an account deleted). Beyond that the node stays missing, and the
//! verdict says the witness is insufficient, naming it.

use std::future::IntoFuture;

use alloy_primitives::{keccak256, Address, Bytes, B256, U256};
use alloy_provider::Provider;
use alloy_trie::Nibbles;
use mpt::TrieError;
use program::{ChainConfig, ExecutionWitness, ValidationError};

use super::node::Node;
use super::state::verify_answer;
use super::FetchError;

/// The longest path a key is searched for (16^7 ≈ 2.7 × 10^8 hashes on average: about a
/// minute on one core).
pub const MAX_NIBBLES: usize = 7;

/// Rounds of validation, one node found per round.
const MAX_ROUNDS: usize = 64;

/// Where the parent's state is, and what the block touched.
pub(super) struct Parent<'a> {
    pub(super) node: &'a Node,
    pub(super) runtime: &'a tokio::runtime::Runtime,
    pub(super) number: u64,
    pub(super) state_root: B256,
    /// The accounts execution read (a storage trie is named by its hashed address).
    pub(super) accounts: Vec<Address>,
}

/// Adds to `witness` the nodes its validation finds missing, by the parent's proofs of keys
/// through their paths; returns the requests made. Stops at the first other outcome (valid, or
/// an error the caller's own validation reports).
pub(super) fn resolve_missing(
    parent: &Parent<'_>,
    block_rlp: &[u8],
    chain: &ChainConfig,
    witness: &mut ExecutionWitness,
) -> Result<usize, FetchError> {
    let mut requests = 0;
    for _ in 0..MAX_ROUNDS {
        let Err(ValidationError::StateUpdate(error)) =
            program::validate_block(block_rlp, witness, chain)
        else {
            break;
        };
        let Some((account, path)) = missing_at(&error) else {
            break;
        };
        if path.len() > 4 {
            eprintln!(
                "  a node is missing at path {} of {}: searching a key through it (~16^{} hashes)",
                mpt::NibblePath(path),
                account.map_or("the account trie".to_owned(), |a| format!("storage {a}")),
                path.len()
            );
        }
        let (address, slots) = match account {
            Some(hashed) => {
                let Some(address) = parent.accounts.iter().find(|a| keccak256(a) == hashed) else {
                    break;
                };
                let Some(slot) = key_through(&path, |i| U256::from(i).to_be_bytes::<32>().to_vec())
                else {
                    break;
                };
                (*address, vec![B256::from_slice(&slot)])
            }
            None => {
                let Some(address) = key_through(&path, |i| {
                    Address::left_padding_from(&i.to_be_bytes()).to_vec()
                }) else {
                    break;
                };
                (Address::from_slice(&address), Vec::new())
            }
        };
        let (node, number) = (parent.node, parent.number);
        let mut answer = parent
            .runtime
            .block_on(node.call("eth_getProof", number, || {
                node.provider
                    .get_proof(address, slots.clone())
                    .number(number)
                    .into_future()
            }))?;
        requests += 1;
        verify_answer(&mut answer, number, parent.state_root)?;
        let before = witness.state.len();
        let new: Vec<Bytes> = answer
            .account_proof
            .into_iter()
            .chain(answer.storage_proof.into_iter().flat_map(|p| p.proof))
            .filter(|n| !witness.state.contains(n))
            .collect();
        witness.state.extend(new);
        if witness.state.len() == before {
            break;
        }
    }
    Ok(requests)
}

/// [`resolve_missing`] against the node at `url`: completes `witness` (of `block_rlp`, whose
/// parent is block `parent` with state root `state_root`, reading `accounts`) with the
/// parent's proofs of keys through the paths where validation finds nodes missing; returns the
/// requests made.
#[allow(clippy::too_many_arguments)]
pub fn complete_witness(
    url: &str,
    options: super::FetchOptions,
    parent: u64,
    state_root: B256,
    accounts: Vec<Address>,
    block_rlp: &[u8],
    chain: &ChainConfig,
    witness: &mut ExecutionWitness,
) -> Result<usize, FetchError> {
    let (node, runtime) = Node::with_runtime(url, options)?;
    let parent = Parent {
        node: &node,
        runtime: &runtime,
        number: parent,
        state_root,
        accounts,
    };
    resolve_missing(&parent, block_rlp, chain, witness)
}

/// The storage trie (by hashed address; `None`: the account trie) and path of a missing node.
fn missing_at(error: &TrieError) -> Option<(Option<B256>, Nibbles)> {
    match error {
        TrieError::MissingNode { path, .. } => Some((None, path.0)),
        TrieError::Storage {
            hashed_address,
            source,
        } => match source.as_ref() {
            TrieError::MissingNode { path, .. } => Some((Some(*hashed_address), path.0)),
            _ => None,
        },
        _ => None,
    }
}

/// The first key `make(0)`, `make(1)`, … whose keccak starts with `path`'s nibbles; `None` for
/// a path longer than [`MAX_NIBBLES`] or after 16 × 16^n tries (found by then but for a chance
/// of e^-16).
pub fn key_through(path: &Nibbles, make: impl Fn(u64) -> Vec<u8>) -> Option<Vec<u8>> {
    if path.len() > MAX_NIBBLES {
        return None;
    }
    let budget = 16u64 << (4 * path.len());
    (0..budget).map(make).find(|key| {
        let hash = Nibbles::unpack(keccak256(key));
        hash.starts_with(path)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_slots_and_addresses_whose_keccak_starts_with_a_path() {
        for nibbles in [vec![], vec![0xa], vec![3, 0xc, 7], vec![0xf, 0, 0xe, 1]] {
            let path = Nibbles::from_nibbles(&nibbles);
            let slot = key_through(&path, |i| U256::from(i).to_be_bytes::<32>().to_vec()).unwrap();
            assert!(Nibbles::unpack(keccak256(&slot)).starts_with(&path));
            let address = key_through(&path, |i| {
                Address::left_padding_from(&i.to_be_bytes()).to_vec()
            })
            .unwrap();
            assert_eq!(address.len(), 20);
            assert!(Nibbles::unpack(keccak256(&address)).starts_with(&path));
        }
        let deep = Nibbles::from_nibbles([1; MAX_NIBBLES + 1]);
        assert_eq!(key_through(&deep, |i| i.to_be_bytes().to_vec()), None);
    }
}
