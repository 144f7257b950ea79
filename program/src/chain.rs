//! Chain configuration: which fork rules apply at a block, and each fork's blob schedule.
//!
//! Ethereum mainnet is built in ([`ChainConfig::mainnet`]); other chains (the EEST fixtures'
//! genesis-style configs) are a list of fork activations plus blob parameters. The list form is
//! what the guest reads, so it is kept plain: `(fork, condition)` pairs, RLP-encodable.
//!
//! A proof commits to the config through [`ChainConfig::digest`]: keccak256 of the RLP of its
//! canonical form ([`ChainConfig::canonical`]: forks and blob schedules in activation order, one
//! entry per fork, never-activating forks dropped), so two configs that select the same rules
//! have the same digest whatever JSON or order they came from. A config whose blob parameters
//! would divide by zero is refused ([`ChainConfig::check`]), on decoding too.

use alloc::vec::Vec;
use alloy_eips::eip7840::BlobParams;
use alloy_evm::eth::spec::EthExecutorSpec;
use alloy_hardforks::{EthereumHardfork, EthereumHardforks, ForkCondition};
use alloy_primitives::{Address, U256};
use alloy_rlp::{Decodable, Encodable, RlpDecodable, RlpEncodable};

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
}

impl ChainConfig {
    /// Refuses parameters the rules cannot run under (each would be a division by zero or an
    /// underflow in the blob-fee arithmetic).
    pub fn check(&self) -> Result<(), ChainConfigError> {
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

    /// The same rules in one canonical form: forks and blob schedules sorted by activation
    /// order, the first entry of a fork listed twice kept (the one lookups find), forks that
    /// never activate dropped (an unlisted fork never activates either), and a merge by total
    /// difficulty kept as its activation block alone (all that selects rules, and all the
    /// encoding holds).
    pub fn canonical(&self) -> Self {
        let mut forks: Vec<(EthereumHardfork, ForkCondition)> = Vec::new();
        for &(fork, condition) in &self.forks {
            if condition != ForkCondition::Never && !forks.iter().any(|(f, _)| *f == fork) {
                let condition = match condition {
                    ForkCondition::TTD {
                        activation_block_number,
                        ..
                    } => ForkCondition::TTD {
                        activation_block_number,
                        fork_block: None,
                        total_difficulty: U256::ZERO,
                    },
                    other => other,
                };
                forks.push((fork, condition));
            }
        }
        forks.sort_by_key(|(fork, _)| fork_code(*fork));
        let mut blob_schedule: Vec<(EthereumHardfork, BlobParams)> = Vec::new();
        for &(fork, params) in &self.blob_schedule {
            if !blob_schedule.iter().any(|(f, _)| *f == fork) {
                blob_schedule.push((fork, params));
            }
        }
        blob_schedule.sort_by_key(|(fork, _)| fork_code(*fork));
        Self {
            chain_id: self.chain_id,
            forks,
            blob_schedule,
            deposit_contract: self.deposit_contract,
        }
    }

    /// keccak256 of the canonical form's RLP: what a proof commits to.
    pub fn digest(&self) -> alloy_primitives::B256 {
        mpt::keccak::keccak256_rlp(&self.canonical())
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

// ---- The guest encoding: plain integers. ----

#[derive(RlpEncodable, RlpDecodable)]
struct ForkRlp {
    fork: u8,
    /// 0 block, 1 timestamp, 2 TTD (by activation block), 3 never.
    kind: u8,
    value: u64,
}

#[derive(RlpEncodable, RlpDecodable)]
struct BlobRlp {
    fork: u8,
    target_blob_count: u64,
    max_blob_count: u64,
    update_fraction: u128,
    min_blob_fee: u128,
    max_blobs_per_tx: u64,
    blob_base_cost: u64,
}

#[derive(RlpEncodable, RlpDecodable)]
struct ChainRlp {
    chain_id: u64,
    forks: Vec<ForkRlp>,
    blobs: Vec<BlobRlp>,
    deposit_contract: Vec<Address>,
}

fn fork_code(fork: EthereumHardfork) -> u8 {
    FORKS
        .iter()
        .position(|f| *f == fork)
        .expect("every fork is listed") as u8
}

fn fork_of(code: u8) -> alloy_rlp::Result<EthereumHardfork> {
    FORKS
        .get(code as usize)
        .copied()
        .ok_or(alloy_rlp::Error::Custom("unknown fork code"))
}

impl ChainConfig {
    fn to_rlp(&self) -> ChainRlp {
        ChainRlp {
            chain_id: self.chain_id,
            forks: self
                .forks
                .iter()
                .map(|(fork, c)| {
                    let (kind, value) = match *c {
                        ForkCondition::Block(b) => (0, b),
                        ForkCondition::Timestamp(t) => (1, t),
                        ForkCondition::TTD {
                            activation_block_number,
                            ..
                        } => (2, activation_block_number),
                        ForkCondition::Never => (3, 0),
                    };
                    ForkRlp {
                        fork: fork_code(*fork),
                        kind,
                        value,
                    }
                })
                .collect(),
            blobs: self
                .blob_schedule
                .iter()
                .map(|(fork, p)| BlobRlp {
                    fork: fork_code(*fork),
                    target_blob_count: p.target_blob_count,
                    max_blob_count: p.max_blob_count,
                    update_fraction: p.update_fraction,
                    min_blob_fee: p.min_blob_fee,
                    max_blobs_per_tx: p.max_blobs_per_tx,
                    blob_base_cost: p.blob_base_cost,
                })
                .collect(),
            deposit_contract: self.deposit_contract.into_iter().collect(),
        }
    }
}

impl Encodable for ChainConfig {
    fn encode(&self, out: &mut dyn alloy_rlp::BufMut) {
        self.to_rlp().encode(out)
    }
    fn length(&self) -> usize {
        self.to_rlp().length()
    }
}

impl Decodable for ChainConfig {
    /// Decodes the list form. A TTD condition keeps only its activation block, which is all
    /// fork selection uses.
    fn decode(buf: &mut &[u8]) -> alloy_rlp::Result<Self> {
        let raw = ChainRlp::decode(buf)?;
        let forks = raw
            .forks
            .into_iter()
            .map(|f| {
                let condition = match f.kind {
                    0 => ForkCondition::Block(f.value),
                    1 => ForkCondition::Timestamp(f.value),
                    2 => ForkCondition::TTD {
                        activation_block_number: f.value,
                        fork_block: None,
                        total_difficulty: U256::ZERO,
                    },
                    3 => ForkCondition::Never,
                    _ => return Err(alloy_rlp::Error::Custom("unknown fork condition")),
                };
                Ok((fork_of(f.fork)?, condition))
            })
            .collect::<alloy_rlp::Result<_>>()?;
        let blob_schedule = raw
            .blobs
            .into_iter()
            .map(|b| {
                Ok((
                    fork_of(b.fork)?,
                    BlobParams {
                        target_blob_count: b.target_blob_count,
                        max_blob_count: b.max_blob_count,
                        update_fraction: b.update_fraction,
                        min_blob_fee: b.min_blob_fee,
                        max_blobs_per_tx: b.max_blobs_per_tx,
                        blob_base_cost: b.blob_base_cost,
                    },
                ))
            })
            .collect::<alloy_rlp::Result<_>>()?;
        if raw.deposit_contract.len() > 1 {
            return Err(alloy_rlp::Error::Custom("more than one deposit contract"));
        }
        let config = Self {
            chain_id: raw.chain_id,
            forks,
            blob_schedule,
            deposit_contract: raw.deposit_contract.first().copied(),
        };
        config.check().map_err(|_| {
            alloy_rlp::Error::Custom("blob schedule with a zero maximum or fraction")
        })?;
        Ok(config)
    }
}

impl ChainConfig {
    /// The latest fork active at a block (number, timestamp).
    pub fn fork_at(&self, number: u64, timestamp: u64) -> EthereumHardfork {
        self.forks
            .iter()
            .filter(|(_, c)| c.active_at_block(number) || c.active_at_timestamp(timestamp))
            .max_by_key(|(fork, _)| fork_code(*fork))
            .map_or(EthereumHardfork::Frontier, |(fork, _)| *fork)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_ignores_order_duplicates_and_never_forks() {
        let mainnet = ChainConfig::mainnet();
        let mut shuffled = mainnet.clone();
        shuffled.forks.reverse();
        shuffled.blob_schedule.reverse();
        shuffled
            .forks
            .push((EthereumHardfork::Amsterdam, ForkCondition::Never));
        let first = shuffled.forks[0];
        shuffled.forks.push((first.0, ForkCondition::Block(1)));
        assert_eq!(shuffled.digest(), mainnet.digest());
        assert_eq!(shuffled.canonical(), mainnet.canonical());
        // Decoding the encoding gives the same digest.
        let bytes = alloy_rlp::encode(&mainnet);
        let decoded = ChainConfig::decode(&mut bytes.as_slice()).unwrap();
        assert_eq!(decoded.digest(), mainnet.digest());
    }

    #[test]
    fn every_rule_changes_the_digest() {
        let mainnet = ChainConfig::mainnet();
        let base = mainnet.digest();
        let mut no_osaka = mainnet.clone();
        no_osaka
            .forks
            .retain(|(fork, _)| *fork != EthereumHardfork::Osaka);
        let mut later_osaka = mainnet.clone();
        for (fork, condition) in &mut later_osaka.forks {
            if *fork == EthereumHardfork::Osaka {
                *condition = ForkCondition::Timestamp(u64::MAX);
            }
        }
        let mut blobs = mainnet.clone();
        blobs.blob_schedule[0].1.max_blob_count += 1;
        let mut deposit = mainnet.clone();
        deposit.deposit_contract = Some(Address::repeat_byte(1));
        let mut chain_id = mainnet.clone();
        chain_id.chain_id = 2;
        for (name, config) in [
            ("osaka removed", no_osaka),
            ("osaka later", later_osaka),
            ("blob max", blobs),
            ("deposit contract", deposit),
            ("chain id", chain_id),
        ] {
            assert_ne!(config.digest(), base, "{name}");
        }
    }

    #[test]
    fn blob_parameters_that_divide_by_zero_are_refused() {
        for (edit, field) in [
            (
                (|p: &mut BlobParams| p.max_blob_count = 0) as fn(&mut BlobParams),
                "max_blob_count",
            ),
            (
                |p: &mut BlobParams| p.update_fraction = 0,
                "update_fraction",
            ),
        ] {
            let mut config = ChainConfig::mainnet();
            edit(&mut config.blob_schedule[0].1);
            assert_eq!(
                config.check(),
                Err(ChainConfigError::BlobParams {
                    fork: EthereumHardfork::Cancun,
                    field
                })
            );
            let bytes = alloy_rlp::encode(&config);
            assert!(ChainConfig::decode(&mut bytes.as_slice()).is_err());
        }
        assert_eq!(ChainConfig::mainnet().check(), Ok(()));
    }
}
