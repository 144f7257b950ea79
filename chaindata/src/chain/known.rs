//! The public chains this host knows by name (mainnet, Sepolia, Hoodi) and the project's devnet.

use program::chain::FORKS;

use super::*;

/// A public chain from alloy-hardforks' activation tables: every fork the table gives, the merge
/// at `merge_block` (by its activation block, as the encoding holds it), the default blob
/// schedules, and `deposit_contract`.
fn public_chain(
    chain_id: u64,
    merge_block: u64,
    block: fn(EthereumHardfork) -> Option<u64>,
    timestamp: fn(EthereumHardfork) -> Option<u64>,
    deposit_contract: Address,
) -> ChainConfig {
    let shanghai = FORKS
        .iter()
        .position(|f| *f == EthereumHardfork::Shanghai)
        .unwrap_or_default();
    let forks = FORKS
        .iter()
        .enumerate()
        .filter_map(|(at, &fork)| {
            let condition = match fork {
                EthereumHardfork::Paris => ForkCondition::TTD {
                    activation_block_number: merge_block,
                    fork_block: None,
                    total_difficulty: U256::ZERO,
                },
                _ if at >= shanghai => ForkCondition::Timestamp(timestamp(fork)?),
                _ => ForkCondition::Block(block(fork)?),
            };
            Some((fork, condition))
        })
        .collect();
    ChainConfig {
        chain_id,
        forks,
        blob_schedule: FORKS
            .iter()
            .filter_map(|&f| Some((f, default_blob_params(f)?)))
            .collect(),
        deposit_contract: Some(deposit_contract),
    }
}

/// The chains a verifier knows by name (`--chain NAME`), each with its config: mainnet, the
/// Sepolia and Hoodi testnets (alloy-hardforks' activations), and this project's devnet.
pub fn known_chains() -> Vec<(&'static str, ChainConfig)> {
    let sepolia = public_chain(
        11_155_111,
        1_450_409,
        |f| f.sepolia_activation_block(),
        |f| f.sepolia_activation_timestamp(),
        alloy_primitives::address!("0x7f02C3E3c98b133055B8B348B2Ac625669Ed295D"),
    );
    let hoodi = public_chain(
        560_048,
        0,
        |f| (f.hoodi_activation_timestamp() == Some(0)).then_some(0),
        |f| f.hoodi_activation_timestamp(),
        alloy_eips::eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS,
    );
    let devnet = from_genesis_config(&devnet::chain_json(devnet::Fork::Osaka))
        .expect("the devnet's config is built in");
    vec![
        ("mainnet", ChainConfig::mainnet()),
        ("sepolia", sepolia),
        ("hoodi", hoodi),
        ("devnet", devnet),
    ]
}

/// The known chain whose config has `digest`, by name.
pub fn known_chain_of(digest: alloy_primitives::B256) -> Option<&'static str> {
    known_chains()
        .into_iter()
        .find(|(_, config)| config.digest() == digest)
        .map(|(name, _)| name)
}

/// `--chain`'s value: a known chain's name ([`known_chains`]) or a chain config file.
pub fn named_or_file(value: &str) -> Result<(ChainConfig, String), ChainError> {
    if let Some((name, config)) = known_chains().into_iter().find(|(n, _)| *n == value) {
        return Ok((config, name.to_owned()));
    }
    let path = std::path::Path::new(value);
    Ok((from_file(path)?, path.display().to_string()))
}
