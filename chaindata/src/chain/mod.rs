//! Chain configurations from JSON: the genesis-style `config` objects of EEST fixtures and
//! clients, in reth's snake_case (`cancun_time`) or geth's camelCase (`cancunTime`), and the
//! `network` names of blockchain tests (`"Prague"`: every fork through Prague from genesis).
//!
//! The merge: a config gives it as a netsplit block, or as a terminal total difficulty of zero
//! (merged at genesis), or, as clients publish mainnet's and Sepolia's genesis configs, as a
//! non-zero terminal total difficulty already passed with no block. A stateless verifier cannot
//! sum difficulties, so for those it uses the chain's known first proof-of-stake block, the one
//! its headers show (the first with difficulty zero): the config then selects exactly the rules
//! the built-in one does, and has the same digest.
//!
//! Nothing that could schedule a fork is dropped: a config is read as the chain it describes
//! or refused, never as a chain with fewer forks. So, before anything is read:
//! - a key that looks like a fork activation (ending in `time` or `block`, any case:
//!   `*_time`, `*Time`, `*_block`, `*Block`) must be one this module reads, in exactly its
//!   snake_case or camelCase spelling: a fork of `BLOCK_FORKS` or `TIME_FORKS`, the merge's
//!   `merge_netsplit_block`, or EIP-155's `eip155_block`, which geth and reth write beside
//!   EIP-158's and which no post-merge rule reads (every post-merge block is under EIP-155's
//!   replay protection, as revm's rules from Spurious Dragon on apply it). Any other
//!   (geth's `verkleTime`, its older `mergeForkBlock`, a later fork's `*_time`, another
//!   chain's `regolithTime`) is [`ChainError::UnknownForkKey`], naming it: read as absent, it
//!   would have that fork's blocks validated under the older rules, with a digest that leaves
//!   the fork out. A `null` value schedules nothing and is read as absent, as serializers
//!   write unset fields;
//! - a non-fork field the clients carry (`chainId`, `daoForkSupport`, `terminalTotalDifficulty`,
//!   `terminalTotalDifficultyPassed`, `depositContractAddress`, `blobSchedule`, `ethash`,
//!   `clique`, `parlia`, ...) is read or ignored as before. An `extra_fields` object (reth's
//!   name for the fields alloy does not know, written nested by some serializers) may hold no
//!   activation-like key at all: nothing reads inside it;
//! - a field given in both spellings (`cancun_time` and `cancunTime`) is
//!   [`ChainError::TwoSpellings`]: only one would be read.
//!
//! Bogota (`bogota_time` / `bogotaTime`), the fork after Amsterdam, is a fork this module
//! reads, so that it is never dropped, and one this verifier does not implement: the config
//! that schedules it is refused by [`ChainConfig::check`] as
//! [`program::chain::ChainConfigError::UnsupportedFork`], at any activation (its module doc
//! says why), as the guest refuses such a config too.

use alloy_eips::eip7840::BlobParams;
use alloy_hardforks::{EthereumHardfork, ForkCondition};
use alloy_primitives::{Address, U256};
use program::chain::default_blob_params;
use program::ChainConfig;
use serde_json::Value;

pub mod devnet;
mod known;
mod network;
#[cfg(test)]
mod tests;

pub use known::{known_chain_of, known_chains, named_or_file};
pub use network::from_network;

/// A chain configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    /// A field has the wrong type or an unparsable value.
    #[error("chain config field `{0}` is not a valid number or address")]
    BadField(String),
    /// No `chain_id` / `chainId` / `chainid`.
    #[error("chain config has no chain id")]
    NoChainId,
    /// The config's blob parameters cannot be validated under.
    #[error(transparent)]
    Invalid(#[from] program::chain::ChainConfigError),
    /// A non-zero terminal total difficulty with no merge block, on a chain whose merge block
    /// this verifier does not know.
    #[error("chain {chain_id}: terminal total difficulty {ttd} without `mergeNetsplitBlock`: give the first proof-of-stake block as `mergeNetsplitBlock`")]
    UnknownMergeBlock {
        /// The chain id.
        chain_id: u64,
        /// The terminal total difficulty as written.
        ttd: String,
    },
    /// The file is unreadable or not JSON.
    #[error("chain config {path}: {reason}")]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A blockchain test's network that starts before the merge (proof-of-work blocks).
    #[error("network `{0}` starts before the merge: proof-of-work blocks are not validated")]
    PreMerge(String),
    /// A blockchain test's `network` that is not a plain fork name.
    #[error("unsupported network `{0}` (expected a fork name such as \"Prague\")")]
    UnknownNetwork(String),
    /// A key that looks like a fork activation and is none this verifier reads: the fork it
    /// schedules would be read as unscheduled.
    #[error("chain config key `{0}` looks like a fork activation, and this verifier knows no such fork: refused rather than read as unscheduled")]
    UnknownForkKey(String),
    /// One field given in two spellings: only one would be read.
    #[error("chain config gives one field twice, as `{first}` and as `{second}`")]
    TwoSpellings {
        /// One spelling.
        first: String,
        /// The other.
        second: String,
    },
}

/// `(fork, snake_case key stem)`, in activation order. Block-activated forks use `<stem>_block`,
/// timestamp-activated ones `<stem>_time`.
const BLOCK_FORKS: [(EthereumHardfork, &str); 13] = [
    (EthereumHardfork::Homestead, "homestead"),
    (EthereumHardfork::Dao, "dao_fork"),
    (EthereumHardfork::Tangerine, "eip150"),
    (EthereumHardfork::SpuriousDragon, "eip158"),
    (EthereumHardfork::Byzantium, "byzantium"),
    (EthereumHardfork::Constantinople, "constantinople"),
    (EthereumHardfork::Petersburg, "petersburg"),
    (EthereumHardfork::Istanbul, "istanbul"),
    (EthereumHardfork::MuirGlacier, "muir_glacier"),
    (EthereumHardfork::Berlin, "berlin"),
    (EthereumHardfork::London, "london"),
    (EthereumHardfork::ArrowGlacier, "arrow_glacier"),
    (EthereumHardfork::GrayGlacier, "gray_glacier"),
];
const TIME_FORKS: [(EthereumHardfork, &str); 11] = [
    (EthereumHardfork::Shanghai, "shanghai"),
    (EthereumHardfork::Cancun, "cancun"),
    (EthereumHardfork::Prague, "prague"),
    (EthereumHardfork::Osaka, "osaka"),
    (EthereumHardfork::Bpo1, "bpo1"),
    (EthereumHardfork::Bpo2, "bpo2"),
    (EthereumHardfork::Bpo3, "bpo3"),
    (EthereumHardfork::Bpo4, "bpo4"),
    (EthereumHardfork::Bpo5, "bpo5"),
    (EthereumHardfork::Amsterdam, "amsterdam"),
    // Read so that it is never dropped; a config that schedules it is refused as unsupported
    // (`ChainConfig::check`).
    (EthereumHardfork::Bogota, "bogota"),
];

/// The snake_case fields that end like a fork activation and schedule no fork of the lists
/// above: the merge's netsplit block (read by [`merge`]) and EIP-155's block (read by nothing:
/// the module's doc says why).
const NON_FORK_KEYS: [&str; 2] = ["merge_netsplit_block", "eip155_block"];

/// The other fields this module reads, each in snake_case (camelCase accepted too).
const READ_KEYS: [&str; 4] = [
    "chain_id",
    "terminal_total_difficulty",
    "deposit_contract_address",
    "blob_schedule",
];

/// Whether `key` looks like a fork activation: `*_time`, `*Time`, `*_block`, `*Block`, any
/// case.
fn looks_like_activation(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.ends_with("time") || key.ends_with("block")
}

/// Every activation-like field this module reads, in snake_case.
fn activation_keys() -> impl Iterator<Item = String> {
    BLOCK_FORKS
        .iter()
        .map(|(_, stem)| format!("{stem}_block"))
        .chain(TIME_FORKS.iter().map(|(_, stem)| format!("{stem}_time")))
        .chain(NON_FORK_KEYS.iter().map(|key| (*key).to_owned()))
}

/// Refuses a config that could schedule a fork this module would not read: an activation-like
/// key it does not know (top level or inside `extra_fields`), or a field in two spellings.
fn check_keys(config: &Value) -> Result<(), ChainError> {
    let Some(fields) = config.as_object() else {
        return Ok(());
    };
    let known: Vec<String> = activation_keys()
        .flat_map(|snake| [camel(&snake), snake])
        .collect();
    for (key, value) in fields {
        if !value.is_null() && looks_like_activation(key) && !known.contains(key) {
            return Err(ChainError::UnknownForkKey(key.clone()));
        }
    }
    for nest in ["extra_fields", "extraFields"] {
        let inner = fields.get(nest).and_then(Value::as_object);
        for (key, value) in inner.into_iter().flatten() {
            if !value.is_null() && looks_like_activation(key) {
                return Err(ChainError::UnknownForkKey(format!("{nest}.{key}")));
            }
        }
    }
    // Each field's spellings: snake_case and camelCase, and EEST's `chainid` for the chain id.
    let spellings = activation_keys()
        .chain(READ_KEYS.iter().map(|key| (*key).to_owned()))
        .map(|snake| {
            let mut group = vec![camel(&snake), snake];
            if group[1] == "chain_id" {
                group.push("chainid".to_owned());
            }
            group
        });
    for group in spellings {
        let mut present = group.iter().filter(|k| fields.contains_key(k.as_str()));
        if let (Some(first), Some(second)) = (present.next(), present.next()) {
            return Err(ChainError::TwoSpellings {
                first: first.clone(),
                second: second.clone(),
            });
        }
    }
    Ok(())
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The value at `key` in snake_case or camelCase; `None` when absent or null.
fn get<'a>(config: &'a Value, key: &str) -> Option<&'a Value> {
    config
        .get(key)
        .or_else(|| config.get(camel(key)))
        .filter(|v| !v.is_null())
}

/// A number given as JSON number, decimal string or `0x` hex string.
fn number(value: &Value, key: &str) -> Result<u128, ChainError> {
    let bad = || ChainError::BadField(key.to_owned());
    match value {
        Value::Number(n) => n.as_u64().map(u128::from).ok_or_else(bad),
        Value::String(s) => match s.strip_prefix("0x") {
            Some(hex) => u128::from_str_radix(hex, 16).map_err(|_| bad()),
            None => s.parse().map_err(|_| bad()),
        },
        _ => Err(bad()),
    }
}

/// Field `key` of a config (either spelling) as a `u64`, decimal or `0x` hex; `None` if absent.
pub fn u64_field(config: &Value, key: &str) -> Result<Option<u64>, ChainError> {
    get(config, key)
        .map(|v| {
            number(v, key)
                .and_then(|n| u64::try_from(n).map_err(|_| ChainError::BadField(key.to_owned())))
        })
        .transpose()
}

/// Parses a genesis-style chain config.
pub fn from_genesis_config(config: &Value) -> Result<ChainConfig, ChainError> {
    check_keys(config)?;
    let chain_id = ["chain_id", "chainid"]
        .iter()
        .find_map(|k| u64_field(config, k).transpose())
        .transpose()?
        .ok_or(ChainError::NoChainId)?;
    let mut forks = vec![(EthereumHardfork::Frontier, ForkCondition::Block(0))];
    for (fork, stem) in BLOCK_FORKS {
        if let Some(block) = u64_field(config, &format!("{stem}_block"))? {
            forks.push((fork, ForkCondition::Block(block)));
        }
    }
    if let Some(paris) = merge(config, chain_id)? {
        forks.push((EthereumHardfork::Paris, paris));
    }
    for (fork, stem) in TIME_FORKS {
        if let Some(time) = u64_field(config, &format!("{stem}_time"))? {
            forks.push((fork, ForkCondition::Timestamp(time)));
        }
    }
    let deposit_contract = get(config, "deposit_contract_address")
        .map(|v| {
            v.as_str()
                .and_then(|s| s.parse::<Address>().ok())
                .ok_or_else(|| ChainError::BadField("deposit_contract_address".into()))
        })
        .transpose()?
        .or(Some(alloy_eips::eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS));
    let schedule = get(config, "blob_schedule").cloned().unwrap_or(Value::Null);
    let blob_schedule = blob_schedule(&schedule, &forks)?;
    let config = ChainConfig {
        chain_id,
        forks,
        blob_schedule,
        deposit_contract,
    };
    config.check()?;
    Ok(config)
}

/// The first proof-of-stake block of chains whose published configs give only a terminal total
/// difficulty: mainnet (the merge, block 15,537,394) and Sepolia (block 1,450,409).
const KNOWN_MERGE_BLOCKS: [(u64, u64); 2] = [(1, 15_537_394), (11_155_111, 1_450_409)];

/// The merge's condition: at the netsplit block when given; at genesis when the terminal total
/// difficulty is zero (every EEST fixture); at the known first proof-of-stake block when a
/// non-zero one is given without a block; never when there is no terminal total difficulty.
fn merge(config: &Value, chain_id: u64) -> Result<Option<ForkCondition>, ChainError> {
    let netsplit = u64_field(config, "merge_netsplit_block")?;
    let ttd = get(config, "terminal_total_difficulty");
    // Published configs write mainnet's 5.875e22 as a bare JSON number, over u64.
    let ttd_value = match ttd {
        None => None,
        Some(Value::Number(n)) if n.as_u64().is_none() => n
            .as_f64()
            .filter(|f| *f > 0.0)
            .map(|f| U256::from(f as u128))
            .map(Some)
            .ok_or_else(|| ChainError::BadField("terminal_total_difficulty".into()))?,
        Some(v) => Some(U256::from(number(v, "terminal_total_difficulty")?)),
    };
    let block = match (netsplit, ttd_value) {
        (Some(block), _) => block,
        (None, Some(ttd)) if ttd.is_zero() => 0,
        (None, Some(ttd)) => KNOWN_MERGE_BLOCKS
            .iter()
            .find(|(id, _)| *id == chain_id)
            .map(|(_, block)| *block)
            .ok_or_else(|| ChainError::UnknownMergeBlock {
                chain_id,
                ttd: ttd.to_string(),
            })?,
        (None, None) => return Ok(None),
    };
    Ok(Some(ForkCondition::TTD {
        activation_block_number: block,
        fork_block: netsplit,
        total_difficulty: ttd_value.unwrap_or_default(),
    }))
}

/// A chain config file: a genesis file (config under `config`) or a bare config object.
pub fn from_file(path: &std::path::Path) -> Result<ChainConfig, ChainError> {
    let file = |reason: String| ChainError::File {
        path: path.to_owned(),
        reason,
    };
    let text = std::fs::read(path).map_err(|e| file(e.to_string()))?;
    let json: Value = serde_json::from_slice(&text).map_err(|e| file(e.to_string()))?;
    from_genesis_config(json.get("config").unwrap_or(&json))
}

/// The chain config block `id` in `dir` runs under: `chain_file` if given, else
/// `<id>.chain.json` beside the block's files, else Ethereum mainnet. An unusable file's error
/// names it.
pub fn for_block(
    dir: &std::path::Path,
    id: &str,
    chain_file: Option<&std::path::Path>,
) -> Result<ChainConfig, ChainError> {
    let beside = dir.join(format!("{id}.chain.json"));
    let path = match chain_file {
        Some(path) => path.to_owned(),
        None if beside.is_file() => beside,
        None => return Ok(ChainConfig::mainnet()),
    };
    from_file(&path).map_err(|e| match e {
        ChainError::File { .. } => e,
        other => ChainError::File {
            path,
            reason: other.to_string(),
        },
    })
}

/// Default blob parameters for every scheduled fork, overridden by the config's entries
/// (`{"cancun": {"target": 3, "max": 6, "baseFeeUpdateFraction": 3338477}}`, any key case).
fn blob_schedule(
    schedule: &Value,
    forks: &[(EthereumHardfork, ForkCondition)],
) -> Result<Vec<(EthereumHardfork, BlobParams)>, ChainError> {
    let mut out: Vec<(EthereumHardfork, BlobParams)> = Vec::new();
    for &(fork, _) in forks {
        let name = fork.name().to_lowercase();
        let entry = schedule
            .as_object()
            .and_then(|m| m.iter().find(|(k, _)| k.to_lowercase() == name))
            .map(|(_, v)| v);
        // A blob-parameter-only fork without built-in defaults (BPO3 and later) that the
        // schedule names: its entry over the previous schedule (the per-transaction cap and the
        // EIP-7918 base cost carry over, as BPO forks change only target, max and fraction).
        let inherited = entry.and(out.last().map(|(_, p)| *p));
        let Some(mut params) = default_blob_params(fork).or(inherited) else {
            continue;
        };
        if let Some(entry) = entry {
            if let Some(v) = get(entry, "target") {
                params.target_blob_count = number(v, "target")? as u64;
            }
            if let Some(v) = get(entry, "max") {
                params.max_blob_count = number(v, "max")? as u64;
                params.max_blobs_per_tx = params.max_blobs_per_tx.min(params.max_blob_count);
            }
            if let Some(v) = get(entry, "base_fee_update_fraction") {
                params.update_fraction = number(v, "baseFeeUpdateFraction")?;
            }
        }
        out.push((fork, params));
    }
    Ok(out)
}
