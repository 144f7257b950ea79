//! The `network` names of blockchain tests as chain configs.

use program::chain::FORKS;

use super::*;

/// A blockchain test's `network`: every fork up to and including the named one from genesis,
/// or a transition `XToYAtTime15k` (X from genesis, Y and the forks between at timestamp
/// 15,000) with the test's `blobSchedule` (may be null). A network that starts before the merge
/// is [`ChainError::PreMerge`]: a post-merge verifier does not run it.
pub fn from_network(
    network: &str,
    chain_id: u64,
    schedule: &Value,
) -> Result<ChainConfig, ChainError> {
    let position = |name: &str| {
        FORKS
            .iter()
            .position(|f| f.name().eq_ignore_ascii_case(name))
    };
    let paris = position("Paris").unwrap_or_default();
    let shanghai = position("Shanghai").unwrap_or_default();
    let unknown = || ChainError::UnknownNetwork(network.to_owned());
    let (first, later) = match network.split_once("To") {
        None => (network, None),
        Some((first, rest)) => {
            let (name, at) = rest.split_once("At").ok_or_else(unknown)?;
            (first, Some((name, at)))
        }
    };
    // Names of pre-merge forks that `FORKS` spells otherwise (`ConstantinopleFix`, `EIP158`).
    let first_at = match position(first) {
        Some(at) if at >= paris => at,
        Some(_) => return Err(ChainError::PreMerge(network.to_owned())),
        None if ["ConstantinopleFix", "EIP150", "EIP158"].contains(&first) => {
            return Err(ChainError::PreMerge(network.to_owned()))
        }
        None => return Err(unknown()),
    };
    let (last_at, switch) = match later {
        None => (first_at, None),
        Some((name, at)) => {
            let time = at
                .strip_prefix("Time")
                .and_then(|t| t.strip_suffix('k'))
                .and_then(|k| k.parse::<u64>().ok())
                .map(|k| k * 1000)
                .ok_or_else(unknown)?;
            (position(name).ok_or_else(unknown)?, Some(time))
        }
    };
    let forks: Vec<_> = FORKS[..=last_at]
        .iter()
        .enumerate()
        .map(|(at, &fork)| {
            let condition = if at > first_at {
                ForkCondition::Timestamp(switch.unwrap_or_default())
            } else if at >= shanghai {
                ForkCondition::Timestamp(0)
            } else if at == paris {
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
    let config = ChainConfig {
        chain_id,
        forks,
        blob_schedule,
        deposit_contract: Some(alloy_eips::eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS),
    };
    config.check()?;
    Ok(config)
}
