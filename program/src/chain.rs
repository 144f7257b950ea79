//! Chain configuration: which fork rules apply at a block, and each fork's blob schedule.
//!
//! Ethereum mainnet is built in ([`ChainConfig::mainnet`]); other chains (the EEST fixtures'
//! genesis-style configs) are a list of fork activations plus blob parameters. The list form is
//! what the guest reads, so it is kept plain: `(fork, condition)` pairs, RLP-encodable.

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
        Ok(Self {
            chain_id: raw.chain_id,
            forks,
            blob_schedule,
            deposit_contract: raw.deposit_contract.first().copied(),
        })
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
