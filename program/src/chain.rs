//! Chain configuration: which fork rules apply at a block, and each fork's blob schedule.
//!
//! Ethereum mainnet is built in ([`ChainConfig::mainnet`]); other chains (the EEST fixtures'
//! genesis-style configs) are a list of fork activations plus blob parameters. The list form is
//! what the guest reads, so it is kept plain: `(fork, condition)` pairs, RLP-encodable.
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
//! very value whose bytes are digested. A config whose blob parameters would divide by zero is
//! refused too ([`ChainConfig::check`]).

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
        let bytes = alloy_rlp::encode(mainnet.canonical());
        let decoded = ChainConfig::decode_canonical(&bytes).unwrap();
        assert_eq!(decoded.digest(), mainnet.digest());
        // The canonical form's digest is the hash of its own encoding.
        assert_eq!(decoded.digest(), mpt::keccak256(&bytes));
        // The shuffled list itself is not canonical: the guest refuses it.
        let bytes = alloy_rlp::encode(&shuffled);
        assert_eq!(
            ChainConfig::decode_canonical(&bytes),
            Err(ChainConfigError::ForkOrder(EthereumHardfork::Bpo1))
        );
    }

    /// The review's two forgeries: each selected other rules than mainnet's while the old
    /// `canonical` gave it mainnet's digest. Now the digest follows the rules the lookups
    /// select, and the guest's decoder refuses both lists.
    #[test]
    fn a_never_entry_or_a_second_blob_entry_cannot_borrow_mainnets_digest() {
        let mainnet = ChainConfig::mainnet();
        let osaka_time = 1_764_798_551;
        let mut never = mainnet.clone();
        never
            .forks
            .insert(0, (EthereumHardfork::Osaka, ForkCondition::Never));
        assert!(!never.is_osaka_active_at_timestamp(osaka_time));
        assert!(!never.canonical().is_osaka_active_at_timestamp(osaka_time));
        assert_ne!(never.digest(), mainnet.digest());
        assert_eq!(
            ChainConfig::decode_canonical(&alloy_rlp::encode(&never)),
            Err(ChainConfigError::NeverListed(EthereumHardfork::Osaka))
        );

        let mut blobs = mainnet.clone();
        let mut other = BlobParams::bpo1();
        other.max_blob_count += 3;
        blobs.blob_schedule.push((EthereumHardfork::Bpo1, other));
        let at = 1_765_290_071 + 1;
        assert_eq!(blobs.blob_params_at(at), Some(other));
        assert_eq!(blobs.canonical().blob_params_at(at), Some(other));
        assert_ne!(blobs.digest(), mainnet.digest());
        assert_eq!(
            ChainConfig::decode_canonical(&alloy_rlp::encode(&blobs)),
            Err(ChainConfigError::BlobOrder(EthereumHardfork::Bpo1))
        );
        // The canonical forms of both decode, and keep their rules.
        for config in [never, blobs] {
            let canonical = config.canonical();
            let decoded = ChainConfig::decode_canonical(&alloy_rlp::encode(&canonical)).unwrap();
            assert_eq!(decoded, canonical);
        }
        // A merge condition with more than its block is not canonical either.
        let mut ttd = mainnet.canonical();
        for (_, condition) in &mut ttd.forks {
            if let ForkCondition::TTD {
                total_difficulty, ..
            } = condition
            {
                *total_difficulty = U256::from(1);
            }
        }
        assert_eq!(
            ttd.check_canonical(),
            Err(ChainConfigError::TtdDetails(EthereumHardfork::Paris))
        );
        let mut trailing = alloy_rlp::encode(mainnet.canonical());
        trailing.push(0);
        assert_eq!(
            ChainConfig::decode_canonical(&trailing),
            Err(ChainConfigError::TrailingBytes(1))
        );
    }

    /// The timestamps and blocks where any fork of `config` activates, and one either side.
    fn points(config: &ChainConfig) -> Vec<u64> {
        let mut points = alloc::vec![0u64, u64::MAX];
        for (_, condition) in &config.forks {
            if let ForkCondition::Block(v)
            | ForkCondition::Timestamp(v)
            | ForkCondition::TTD {
                activation_block_number: v,
                ..
            } = condition
            {
                points.extend([v.saturating_sub(1), *v, v.saturating_add(1)]);
            }
        }
        points
    }

    /// Every lookup validation makes, at `points`.
    fn lookups(
        config: &ChainConfig,
        points: &[u64],
    ) -> Vec<(u64, EthereumHardfork, Option<BlobParams>, Vec<bool>)> {
        points
            .iter()
            .copied()
            .map(|p| {
                let active = FORKS
                    .iter()
                    .flat_map(|&f| {
                        [
                            config.is_ethereum_fork_active_at_timestamp(f, p),
                            config.is_ethereum_fork_active_at_block(f, p),
                            config.ethereum_fork_activation(f) == ForkCondition::Never,
                        ]
                    })
                    .collect();
                (p, config.fork_at(p, p), config.blob_params_at(p), active)
            })
            .collect()
    }

    /// Random lists built from mainnet's and a devnet's: permuted, entries duplicated with other
    /// conditions, `Never` entries added, blob entries duplicated or changed. Each one's
    /// canonical form selects exactly its rules, is canonical, and round-trips through the
    /// guest's decoder; the list itself decodes only when it already is its canonical form. Two
    /// configs with one digest have one canonical form, hence the same rules.
    #[test]
    fn random_configs_are_refused_or_canonical_with_the_same_rules() {
        use rand::{rngs::SmallRng, Rng, SeedableRng};
        let mut rng = SmallRng::seed_from_u64(24);
        let conditions = [
            ForkCondition::Never,
            ForkCondition::Block(0),
            ForkCondition::Block(5),
            ForkCondition::Timestamp(0),
            ForkCondition::Timestamp(15_000),
            ForkCondition::Timestamp(1_764_798_551),
        ];
        let mut digests: alloc::collections::BTreeMap<alloy_primitives::B256, ChainConfig> =
            Default::default();
        let mut refused = 0;
        for round in 0..2000 {
            let mut config = ChainConfig::mainnet();
            if round % 2 == 1 {
                config = config.canonical();
            }
            for _ in 0..rng.random_range(0..4) {
                match rng.random_range(0..6) {
                    0 => {
                        let k = rng.random_range(0..config.forks.len());
                        let j = rng.random_range(0..config.forks.len());
                        config.forks.swap(k, j);
                    }
                    1 => {
                        let fork = FORKS[rng.random_range(0..FORKS.len())];
                        let condition = conditions[rng.random_range(0..conditions.len())];
                        let at = rng.random_range(0..=config.forks.len());
                        config.forks.insert(at, (fork, condition));
                    }
                    2 => {
                        let k = rng.random_range(0..config.forks.len());
                        config.forks.remove(k);
                    }
                    3 => {
                        let k = rng.random_range(0..config.blob_schedule.len());
                        let mut entry = config.blob_schedule[k];
                        entry.1.max_blob_count += rng.random_range(0..3);
                        let at = rng.random_range(0..=config.blob_schedule.len());
                        config.blob_schedule.insert(at, entry);
                    }
                    4 => {
                        let k = rng.random_range(0..config.blob_schedule.len());
                        config.blob_schedule[k].1.target_blob_count =
                            rng.random_range(0..=config.blob_schedule[k].1.max_blob_count);
                    }
                    _ => {
                        let k = rng.random_range(0..config.blob_schedule.len());
                        let j = rng.random_range(0..config.blob_schedule.len());
                        config.blob_schedule.swap(k, j);
                    }
                }
            }
            let canonical = config.canonical();
            let at = points(&config);
            assert_eq!(
                lookups(&canonical, &at),
                lookups(&config, &at),
                "{config:?}"
            );
            assert_eq!(canonical.check_canonical(), Ok(()));
            assert_eq!(canonical.canonical(), canonical);
            let encoded = alloy_rlp::encode(&config);
            match ChainConfig::decode_canonical(&encoded) {
                // Accepted bytes are exactly the canonical form's (the encoding holds a merge's
                // activation block only, so mainnet's TTD details never reach it).
                Ok(decoded) => {
                    assert_eq!(decoded, canonical, "a non-canonical list decoded");
                    assert_eq!(encoded, alloy_rlp::encode(&canonical));
                }
                Err(_) => {
                    assert_ne!(encoded, alloy_rlp::encode(&canonical));
                    refused += 1;
                }
            }
            let decoded = ChainConfig::decode_canonical(&alloy_rlp::encode(&canonical)).unwrap();
            assert_eq!(decoded, canonical);
            if let Some(seen) = digests.insert(config.digest(), canonical.clone()) {
                assert_eq!(seen, canonical, "two rule sets share a digest");
            }
        }
        assert!(
            refused > 500 && digests.len() > 500,
            "{refused} {}",
            digests.len()
        );
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
            assert_eq!(
                ChainConfig::decode_canonical(&bytes),
                Err(ChainConfigError::BlobParams {
                    fork: EthereumHardfork::Cancun,
                    field
                })
            );
        }
        assert_eq!(ChainConfig::mainnet().check(), Ok(()));
    }
}
