//! The canonical form of a chain config, its RLP encoding, and its digest.
//!
//! A proof commits to the config through [`ChainConfig::digest`]: keccak256 of the RLP of its
//! canonical form ([`ChainConfig::canonical`]). Why one canonical form, and why the guest takes
//! nothing else: a list can say the same thing several ways (order, a fork listed twice, a fork
//! listed as never activating), and the lookups that validation runs read such a list one way
//! (the first entry of a fork, `Never` included; the last blob entry of a fork) while any
//! normalisation may read it another. A digest over a normalised copy would then commit to rules
//! other than those that validated. So [`ChainConfig::canonical`] keeps exactly what the lookups
//! select, and the guest's decoder ([`ChainConfig::decode_canonical`]) refuses every config that
//! is not already canonical ([`ChainConfig::check_canonical`]): the guest validates under the
//! very value whose bytes are digested.

use alloc::vec::Vec;
use alloy_eips::eip7840::BlobParams;
use alloy_hardforks::{EthereumHardfork, EthereumHardforks, ForkCondition};
use alloy_primitives::{Address, U256};
use alloy_rlp::{Decodable, Encodable, RlpDecodable, RlpEncodable};

use super::{fork_code, ChainConfig, ChainConfigError, FORKS};

impl ChainConfig {
    /// Refuses a config that is not in canonical form: forks strictly in activation order (so
    /// each at most once), none listed as `Never`, a TTD condition holding its activation block
    /// only, and blob schedules strictly in activation order. The guest validates only under
    /// such a config, whose encoding is exactly what [`ChainConfig::digest`] hashes.
    pub fn check_canonical(&self) -> Result<(), ChainConfigError> {
        let mut last = None;
        for &(fork, condition) in &self.forks {
            if last.is_some_and(|l| fork_code(fork) <= l) {
                return Err(ChainConfigError::ForkOrder(fork));
            }
            last = Some(fork_code(fork));
            match condition {
                ForkCondition::Never => return Err(ChainConfigError::NeverListed(fork)),
                ForkCondition::TTD {
                    fork_block,
                    total_difficulty,
                    ..
                } if fork_block.is_some() || !total_difficulty.is_zero() => {
                    return Err(ChainConfigError::TtdDetails(fork))
                }
                _ => {}
            }
        }
        let mut last = None;
        for &(fork, _) in &self.blob_schedule {
            if last.is_some_and(|l| fork_code(fork) <= l) {
                return Err(ChainConfigError::BlobOrder(fork));
            }
            last = Some(fork_code(fork));
        }
        Ok(())
    }

    /// The same rules in canonical form: what the lookups select, and nothing else. Of a fork
    /// listed twice the first entry is kept, as [`EthereumHardforks::ethereum_fork_activation`]
    /// finds it, and dropped when that entry is `Never` (an unlisted fork never activates); of a
    /// blob schedule listed twice the last, as [`ChainConfig::blob_params_at`] finds it; both
    /// sorted by activation order; a merge by total difficulty kept as its activation block
    /// alone (all that selects rules, and all the encoding holds). Validation under the result
    /// is validation under `self`, and the result passes [`ChainConfig::check_canonical`].
    pub fn canonical(&self) -> Self {
        let mut forks: Vec<(EthereumHardfork, ForkCondition)> = Vec::new();
        for &fork in &FORKS {
            let condition = match self.ethereum_fork_activation(fork) {
                ForkCondition::Never => continue,
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
        let blob_schedule = FORKS
            .iter()
            .filter_map(|&fork| {
                self.blob_schedule
                    .iter()
                    .rev()
                    .find(|(f, _)| *f == fork)
                    .copied()
            })
            .collect();
        Self {
            chain_id: self.chain_id,
            forks,
            blob_schedule,
            deposit_contract: self.deposit_contract,
        }
    }

    /// keccak256 of the canonical form's RLP: what a proof commits to. For a config that passes
    /// [`ChainConfig::check_canonical`] (every config the guest accepts), the hash of its own
    /// encoding.
    pub fn digest(&self) -> alloy_primitives::B256 {
        mpt::keccak::keccak256_rlp(&self.canonical())
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

impl ChainConfig {
    /// Decodes the guest's encoding of a config, refusing anything but the canonical form of a
    /// usable config ([`ChainConfig::check_canonical`], [`ChainConfig::check`]) and any byte
    /// after it. A TTD condition decodes with its activation block only, which is all fork
    /// selection uses.
    pub fn decode_canonical(bytes: &[u8]) -> Result<Self, ChainConfigError> {
        let mut buf = bytes;
        let config = Self::decode_list(&mut buf).map_err(ChainConfigError::Rlp)?;
        if !buf.is_empty() {
            return Err(ChainConfigError::TrailingBytes(buf.len()));
        }
        config.check_canonical()?;
        config.check()?;
        Ok(config)
    }

    fn decode_list(buf: &mut &[u8]) -> alloy_rlp::Result<Self> {
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
