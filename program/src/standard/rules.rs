//! The rules a standard input is validated under: its schema's fork, on a chain this guest
//! knows by id.
//!
//! The execution specs validate a stateless input with the implementation of the fork its
//! schema id names, and do not check the payload's timestamp against a fork schedule: the
//! consumer of the result checks `schema_id` against the fork of the slot it proves. So the
//! rules here are that fork's, active from genesis, with the chain's own parameters (its EIP-155
//! id, its deposit contract, the fork's blob schedule). Both inputs of that choice, `chain_id`
//! and `schema_id`, are in the result the proof commits to. An unknown chain id has no rules:
//! its result is `false`.

use alloy_hardforks::{EthereumHardfork, ForkCondition};
use alloy_primitives::{address, Address, U256};
use stateless_ssz::Fork;

use crate::chain::{default_blob_params, ChainConfig, FORKS};

/// The chains compiled in: `(chain id, name, deposit contract)`.
pub const KNOWN_CHAINS: [(u64, &str, Address); 4] = [
    (
        1,
        "mainnet",
        address!("0x00000000219ab540356cBB839Cbe05303d7705Fa"),
    ),
    (
        11_155_111,
        "sepolia",
        address!("0x7f02C3E3c98b133055B8B348B2Ac625669Ed295D"),
    ),
    (
        560_048,
        "hoodi",
        address!("0x00000000219ab540356cBB839Cbe05303d7705Fa"),
    ),
    (
        7_011_893,
        "devnet",
        address!("0x00000000219ab540356cBB839Cbe05303d7705Fa"),
    ),
];

/// The hardfork a schema's fork is.
pub fn hardfork(fork: Fork) -> EthereumHardfork {
    match fork {
        Fork::Paris => EthereumHardfork::Paris,
        Fork::Shanghai => EthereumHardfork::Shanghai,
        Fork::Cancun => EthereumHardfork::Cancun,
        Fork::Prague => EthereumHardfork::Prague,
        Fork::Osaka => EthereumHardfork::Osaka,
        Fork::Bpo1 => EthereumHardfork::Bpo1,
        Fork::Bpo2 => EthereumHardfork::Bpo2,
        Fork::Amsterdam => EthereumHardfork::Amsterdam,
    }
}

/// The rules of `fork` on chain `chain_id`: every fork up to it active from genesis (the merge
/// at block 0; the DAO fork, an irregular state change of mainnet's block 1,920,000, not
/// listed, as in the test chains' configs), none after; `None` for a chain this guest does not
/// know.
pub fn rules(chain_id: u64, fork: Fork) -> Option<ChainConfig> {
    let (_, _, deposit_contract) = KNOWN_CHAINS.iter().find(|(id, ..)| *id == chain_id)?;
    let last = hardfork(fork);
    let upto = FORKS.iter().position(|f| *f == last)?;
    let merge = FORKS.iter().position(|f| *f == EthereumHardfork::Paris)?;
    let forks = FORKS[..=upto]
        .iter()
        .enumerate()
        .filter(|(_, f)| **f != EthereumHardfork::Dao)
        .map(|(at, &f)| {
            let condition = if at < merge {
                ForkCondition::Block(0)
            } else if at == merge {
                ForkCondition::TTD {
                    activation_block_number: 0,
                    fork_block: None,
                    total_difficulty: U256::ZERO,
                }
            } else {
                ForkCondition::Timestamp(0)
            };
            (f, condition)
        })
        .collect();
    Some(ChainConfig {
        chain_id,
        forks,
        blob_schedule: FORKS[..=upto]
            .iter()
            .filter_map(|&f| Some((f, default_blob_params(f)?)))
            .collect(),
        deposit_contract: Some(*deposit_contract),
    })
}
