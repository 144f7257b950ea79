//! Chain configurations from JSON: the genesis-style `config` objects of EEST fixtures and
//! clients, in reth's snake_case (`cancun_time`) or geth's camelCase (`cancunTime`), and the
//! `network` names of blockchain tests (`"Prague"`: every fork through Prague from genesis).

use alloy_eips::eip7840::BlobParams;
use alloy_hardforks::{EthereumHardfork, ForkCondition};
use alloy_primitives::{Address, U256};
use program::chain::{default_blob_params, FORKS};
use program::ChainConfig;
use serde_json::Value;

/// A chain configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    /// A field has the wrong type or an unparsable value.
    #[error("chain config field `{0}` is not a valid number or address")]
    BadField(String),
    /// No `chain_id` / `chainId` / `chainid`.
    #[error("chain config has no chain id")]
    NoChainId,
    /// A blockchain test's `network` that is not a plain fork name.
    #[error("unsupported network `{0}` (expected a fork name such as \"Prague\")")]
    UnknownNetwork(String),
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
const TIME_FORKS: [(EthereumHardfork, &str); 10] = [
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
];

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

pub(crate) fn u64_field(config: &Value, key: &str) -> Result<Option<u64>, ChainError> {
    get(config, key)
        .map(|v| {
            number(v, key)
                .and_then(|n| u64::try_from(n).map_err(|_| ChainError::BadField(key.to_owned())))
        })
        .transpose()
}

/// Parses a genesis-style chain config.
pub fn from_genesis_config(config: &Value) -> Result<ChainConfig, ChainError> {
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
    // The merge: at genesis when the terminal total difficulty is zero (every EEST fixture),
    // else at the netsplit block when given.
    let ttd = get(config, "terminal_total_difficulty")
        .map(|v| number(v, "terminal_total_difficulty"))
        .transpose()?;
    let netsplit = u64_field(config, "merge_netsplit_block")?;
    if netsplit.is_some() || ttd == Some(0) {
        forks.push((
            EthereumHardfork::Paris,
            ForkCondition::TTD {
                activation_block_number: netsplit.unwrap_or(0),
                fork_block: netsplit,
                total_difficulty: U256::from(ttd.unwrap_or_default()),
            },
        ));
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
    Ok(ChainConfig {
        chain_id,
        forks,
        blob_schedule,
        deposit_contract,
    })
}

/// Default blob parameters for every scheduled fork, overridden by the config's entries
/// (`{"cancun": {"target": 3, "max": 6, "baseFeeUpdateFraction": 3338477}}`, any key case).
fn blob_schedule(
    schedule: &Value,
    forks: &[(EthereumHardfork, ForkCondition)],
) -> Result<Vec<(EthereumHardfork, BlobParams)>, ChainError> {
    let mut out = Vec::new();
    for &(fork, _) in forks {
        let Some(mut params) = default_blob_params(fork) else {
            continue;
        };
        let name = fork.name().to_lowercase();
        let entry = schedule
            .as_object()
            .and_then(|m| m.iter().find(|(k, _)| k.to_lowercase() == name))
            .map(|(_, v)| v);
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

/// A blockchain test's `network`: every fork up to and including the named one, from genesis,
/// with the test's `blobSchedule` (may be null).
pub fn from_network(
    network: &str,
    chain_id: u64,
    schedule: &Value,
) -> Result<ChainConfig, ChainError> {
    let last = FORKS
        .iter()
        .position(|f| f.name().eq_ignore_ascii_case(network))
        .ok_or_else(|| ChainError::UnknownNetwork(network.to_owned()))?;
    let forks: Vec<_> = FORKS[..=last]
        .iter()
        .map(|&fork| {
            let at = FORKS.iter().position(|f| *f == fork).unwrap_or_default();
            let condition = if at
                >= FORKS
                    .iter()
                    .position(|f| *f == EthereumHardfork::Shanghai)
                    .unwrap_or_default()
            {
                ForkCondition::Timestamp(0)
            } else if fork == EthereumHardfork::Paris {
                ForkCondition::TTD {
                    activation_block_number: 0,
                    fork_block: None,
                    total_difficulty: U256::ZERO,
                }
            } else {
                ForkCondition::Block(0)
            };
            (fork, condition)
        })
        .collect();
    let blob_schedule = blob_schedule(schedule, &forks)?;
    Ok(ChainConfig {
        chain_id,
        forks,
        blob_schedule,
        deposit_contract: Some(alloy_eips::eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS),
    })
}
