//! Chain configuration: which fork rules apply at a block, and each fork's blob schedule.
//!
//! Ethereum mainnet is built in ([`ChainConfig::mainnet`]); other chains (the EEST fixtures'
//! genesis-style configs) are a list of fork activations plus blob parameters. The list form is
//! what the guest reads, so it is kept plain: `(fork, condition)` pairs, RLP-encodable. A proof
//! commits to the config through its canonical form's digest ([`ChainConfig::digest`]).
//! A config whose blob parameters would divide by zero is refused ([`ChainConfig::check`]).
//!
//! A config that schedules a fork whose rules this verifier does not implement
//! ([`UNSUPPORTED_FORKS`]: Bogota) is refused as a whole, whatever the fork's activation and
//! whatever the block ([`ChainConfigError::UnsupportedFork`]), not only for the blocks under
//! that fork. Why: the digest commits to the whole schedule, so a proof under such a config
//! would read as this verifier's word on a chain whose rules it cannot apply; and every reader
//! of the schedule (the header's fork fields, the blob schedule, [`ChainConfig::fork_at`], the
//! standard verifier's schema for a timestamp) would otherwise have to meet a fork it has no
//! rules for and refuse it on its own. Refused once here, where the host parses a config and
//! where the guest decodes one, no later lookup ever sees it. The cost: a chain that schedules
//! Bogota for later cannot be validated here even before Bogota, until its rules are
//! implemented (and the fork leaves [`UNSUPPORTED_FORKS`]).

mod canonical;

use alloc::vec::Vec;
use alloy_eips::eip7840::BlobParams;
use alloy_evm::eth::spec::EthExecutorSpec;
use alloy_hardforks::{EthereumHardfork, EthereumHardforks, ForkCondition};
use alloy_primitives::{Address, U256};

/// Every Ethereum fork, in activation order: the index is a fork's code in the encoding.
pub const FORKS: [EthereumHardfork; 26] = {
    use EthereumHardfork::*;
    [
        Frontier,
        Homestead,
        Dao,
        Tangerine,
        SpuriousDragon,
        Byzantium,
        Constantinople,
        Petersburg,
        Istanbul,
        MuirGlacier,
        Berlin,
        London,
        ArrowGlacier,
        GrayGlacier,
        Paris,
        Shanghai,
        Cancun,
        Prague,
        Osaka,
        Bpo1,
        Bpo2,
        Bpo3,
        Bpo4,
        Bpo5,
        Amsterdam,
        Bogota,
    ]
};

/// Forks whose rules this verifier does not implement: a config that schedules one is refused
/// ([`ChainConfig::check`]), in the host and in the guest.
pub const UNSUPPORTED_FORKS: [EthereumHardfork; 1] = [EthereumHardfork::Bogota];

/// The forks that carry a blob schedule, each with its default parameters (EIP-7840).
pub fn default_blob_params(fork: EthereumHardfork) -> Option<BlobParams> {
    Some(match fork {
        EthereumHardfork::Cancun => BlobParams::cancun(),
        EthereumHardfork::Prague => BlobParams::prague(),
        EthereumHardfork::Osaka => BlobParams::osaka(),
        EthereumHardfork::Bpo1 => BlobParams::bpo1(),
        EthereumHardfork::Bpo2 => BlobParams::bpo2(),
        _ => return None,
    })
}

/// A chain's fork schedule and blob parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainConfig {
    /// EIP-155 chain id.
    pub chain_id: u64,
    /// Fork activations; forks not listed never activate.
    pub forks: Vec<(EthereumHardfork, ForkCondition)>,
    /// Blob parameters by the fork that introduces them.
    pub blob_schedule: Vec<(EthereumHardfork, BlobParams)>,
    /// The EIP-6110 deposit contract, if the chain has one.
    pub deposit_contract: Option<Address>,
}

impl ChainConfig {
    /// Ethereum mainnet: every fork through BPO2 with mainnet's activations.
    pub fn mainnet() -> Self {
        let forks = FORKS
            .iter()
            .filter_map(|&fork| {
                let condition = match fork {
                    EthereumHardfork::Paris => ForkCondition::TTD {
                        activation_block_number: 15_537_394,
                        fork_block: None,
                        total_difficulty: U256::from(58_750_000_000_000_000_000_000u128),
                    },
                    _ => {
                        if let Some(t) = fork
                            .mainnet_activation_timestamp()
                            .filter(|_| fork_code(fork) >= fork_code(EthereumHardfork::Shanghai))
                        {
                            ForkCondition::Timestamp(t)
                        } else {
                            ForkCondition::Block(fork.mainnet_activation_block()?)
                        }
                    }
                };
                Some((fork, condition))
            })
            .collect();
        Self {
            chain_id: 1,
            forks,
            blob_schedule: FORKS
                .iter()
                .filter_map(|&f| Some((f, default_blob_params(f)?)))
                .collect(),
            deposit_contract: Some(alloy_eips::eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS),
        }
    }

    /// The blob parameters in force at `timestamp`: those of the latest active fork that has a
    /// schedule; `None` before Cancun.
    pub fn blob_params_at(&self, timestamp: u64) -> Option<BlobParams> {
        self.blob_schedule
            .iter()
            .filter(|(fork, _)| self.is_ethereum_fork_active_at_timestamp(*fork, timestamp))
            .max_by_key(|(fork, _)| fork_code(*fork))
            .map(|(_, params)| *params)
    }
}

/// A chain config no block can be validated under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ChainConfigError {
    /// A blob schedule entry allows no blobs per block or has a zero update fraction: the
    /// blob-fee arithmetic would divide by zero.
    #[error("blob schedule of {fork}: {field} must be positive")]
    BlobParams {
        /// The fork whose schedule it is.
        fork: EthereumHardfork,
        /// `max_blob_count` or `update_fraction`.
        field: &'static str,
    },
    /// A blob schedule targets more blobs than it allows.
    #[error("blob schedule of {fork}: target {target} exceeds max {max}")]
    BlobTarget {
        /// The fork whose schedule it is.
        fork: EthereumHardfork,
        /// Its target blob count.
        target: u64,
        /// Its maximum.
        max: u64,
    },
    /// The config schedules a fork whose rules this verifier does not implement
    /// ([`UNSUPPORTED_FORKS`]), at any activation.
    #[error("the chain config schedules {0}, whose rules this verifier does not implement")]
    UnsupportedFork(EthereumHardfork),
    /// A fork is listed as never activating: the canonical form leaves it out (an unlisted fork
    /// never activates).
    #[error("fork {0} is listed as never activating: a canonical config leaves it out")]
    NeverListed(EthereumHardfork),
    /// A fork is listed twice or out of activation order.
    #[error("fork {0} is listed twice or out of activation order")]
    ForkOrder(EthereumHardfork),
    /// A merge by total difficulty carries more than its activation block.
    #[error("fork {0}: a canonical TTD condition holds its activation block only")]
    TtdDetails(EthereumHardfork),
    /// A fork's condition is not of the kind the fork activates by.
    #[error("fork {fork} must activate by {expected}")]
    ConditionKind {
        /// The fork.
        fork: EthereumHardfork,
        /// The kind it activates by.
        expected: &'static str,
    },
    /// A fork activates before an earlier fork.
    #[error("fork {fork} activates before {earlier}, an earlier fork")]
    ActivationOrder {
        /// The fork.
        fork: EthereumHardfork,
        /// The earlier fork it precedes.
        earlier: EthereumHardfork,
    },
    /// A fork's blob schedule is listed twice or out of activation order.
    #[error("blob schedule of {0} is listed twice or out of activation order")]
    BlobOrder(EthereumHardfork),
    /// The encoding does not decode.
    #[error("RLP: {0}")]
    Rlp(alloy_rlp::Error),
    /// Bytes follow the encoding.
    #[error("{0} bytes after the encoded chain config")]
    TrailingBytes(usize),
}

impl ChainConfig {
    /// Refuses a schedule of a fork this verifier does not implement, a schedule whose lookups
    /// would disagree with the forks' own rules, and parameters the rules cannot run under
    /// (each would be a division by zero or an underflow in the blob-fee arithmetic).
    ///
    /// A fork of [`UNSUPPORTED_FORKS`] that the lookups find scheduled, by any condition at any
    /// activation, is refused first (the module's doc says why). Each fork's condition must be
    /// of the kind the fork activates by: a block number before the merge, a block or total
    /// difficulty at it, a timestamp from Shanghai on. A timestamp fork listed by block would
    /// escape every check made by timestamp (the header's fork fields, the blob schedule)
    /// while the digest says it is scheduled. Activations must not go backwards: a later fork
    /// never activates before an earlier one.
    pub fn check(&self) -> Result<(), ChainConfigError> {
        if let Some(fork) = UNSUPPORTED_FORKS
            .into_iter()
            .find(|&fork| self.ethereum_fork_activation(fork) != ForkCondition::Never)
        {
            return Err(ChainConfigError::UnsupportedFork(fork));
        }
        // Each fork's condition as every rule lookup selects it.
        let forks = FORKS
            .iter()
            .map(|&fork| (fork, self.ethereum_fork_activation(fork)));
        let (paris, shanghai) = (
            fork_code(EthereumHardfork::Paris),
            fork_code(EthereumHardfork::Shanghai),
        );
        let (mut last_block, mut last_time) = (None::<(EthereumHardfork, u64)>, None);
        for (fork, condition) in forks {
            let code = fork_code(fork);
            let kind_ok = match condition {
                ForkCondition::Block(_) => code <= paris,
                ForkCondition::TTD { .. } => code == paris,
                ForkCondition::Timestamp(_) => code >= shanghai,
                ForkCondition::Never => true,
            };
            if !kind_ok {
                return Err(ChainConfigError::ConditionKind {
                    fork,
                    expected: if code >= shanghai {
                        "a timestamp"
                    } else if code == paris {
                        "a block or total difficulty"
                    } else {
                        "a block"
                    },
                });
            }
            let (at, last) = match condition {
                ForkCondition::Block(n)
                | ForkCondition::TTD {
                    activation_block_number: n,
                    ..
                } => (n, &mut last_block),
                ForkCondition::Timestamp(t) => (t, &mut last_time),
                ForkCondition::Never => continue,
            };
            if let Some((earlier, earlier_at)) = *last {
                if at < earlier_at {
                    return Err(ChainConfigError::ActivationOrder { fork, earlier });
                }
            }
            *last = Some((fork, at));
        }
        for (fork, params) in &self.blob_schedule {
            let fork = *fork;
            if params.max_blob_count == 0 {
                let field = "max_blob_count";
                return Err(ChainConfigError::BlobParams { fork, field });
            }
            if params.update_fraction == 0 {
                let field = "update_fraction";
                return Err(ChainConfigError::BlobParams { fork, field });
            }
            if params.target_blob_count > params.max_blob_count {
                return Err(ChainConfigError::BlobTarget {
                    fork,
                    target: params.target_blob_count,
                    max: params.max_blob_count,
                });
            }
        }
        Ok(())
    }
}

impl EthereumHardforks for ChainConfig {
    fn ethereum_fork_activation(&self, fork: EthereumHardfork) -> ForkCondition {
        self.forks
            .iter()
            .find(|(f, _)| *f == fork)
            .map_or(ForkCondition::Never, |(_, c)| *c)
    }
}

impl EthExecutorSpec for ChainConfig {
    fn deposit_contract_address(&self) -> Option<Address> {
        self.deposit_contract
    }
}

pub(crate) fn fork_code(fork: EthereumHardfork) -> u8 {
    FORKS
        .iter()
        .position(|f| *f == fork)
        .expect("every fork is listed") as u8
}

impl ChainConfig {
    /// The latest fork active at a block (number, timestamp), each fork's activation read as
    /// every other lookup reads it ([`EthereumHardforks::ethereum_fork_activation`]).
    pub fn fork_at(&self, number: u64, timestamp: u64) -> EthereumHardfork {
        FORKS
            .iter()
            .rev()
            .copied()
            .find(|&fork| {
                let condition = self.ethereum_fork_activation(fork);
                condition.active_at_block(number) || condition.active_at_timestamp(timestamp)
            })
            .unwrap_or(EthereumHardfork::Frontier)
    }
}

#[cfg(test)]
mod tests;
