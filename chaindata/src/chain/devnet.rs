//! The forks a devnet chain can run through, and the genesis-style chain configs
//! (`<id>.chain.json`) that name them: here, below the generator, because the known chain
//! `devnet` ([`super::known_chains`]) is one of them.

use serde_json::{json, Value};

/// The devnet's chain id.
pub const CHAIN_ID: u64 = 7_011_893;

/// The last fork a generated chain activates (all from genesis).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fork {
    /// Prague (EIP-2537 BLS12-381, EIP-7623 calldata floor; no EIP-7825 cap).
    Prague,
    /// Osaka: mainnet's rules now (EIP-7883 modexp pricing, EIP-7823 bounds, EIP-7825
    /// transaction gas cap, EIP-7951 P256VERIFY).
    Osaka,
    /// Amsterdam (glamsterdam devnet-8), after BPO1 and BPO2: EIP-7928 block access lists,
    /// EIP-8037 state gas and the other repricings, EIP-8282 builder requests, SLOTNUM.
    Amsterdam,
}

impl Fork {
    /// The id of the devnet block generated under it (`devnet` for the default, Osaka); the
    /// small block's is this with `-small`.
    pub fn devnet_id(self) -> &'static str {
        match self {
            Fork::Prague => "devnet-prague",
            Fork::Osaka => "devnet",
            Fork::Amsterdam => "devnet-amsterdam",
        }
    }
}

/// The devnet's chain config under `fork`: every fork through it from genesis.
pub fn chain_json(fork: Fork) -> Value {
    let timed: &[&str] = match fork {
        Fork::Prague => &["shanghai", "cancun", "prague"],
        Fork::Osaka => &["shanghai", "cancun", "prague", "osaka"],
        Fork::Amsterdam => &[
            "shanghai",
            "cancun",
            "prague",
            "osaka",
            "bpo1",
            "bpo2",
            "amsterdam",
        ],
    };
    genesis_chain_json(CHAIN_ID, timed)
}

/// A genesis-style chain config (what `<id>.chain.json` and `--chain FILE` hold) of chain
/// `chain_id`: every fork through London at block 0, the merge at total difficulty 0, and the
/// timestamp forks `timed` (`shanghai`, `cancun`, ...) at time 0, with mainnet's deposit
/// contract and the default blob schedules.
pub fn genesis_chain_json(chain_id: u64, timed: &[&str]) -> Value {
    let mut config = json!({
        "chain_id": chain_id,
        "terminal_total_difficulty": "0x0",
        "deposit_contract_address": alloy_eips::eip6110::MAINNET_DEPOSIT_CONTRACT_ADDRESS,
        "blob_schedule": {},
    });
    for fork in [
        "homestead",
        "eip150",
        "eip155",
        "eip158",
        "byzantium",
        "constantinople",
        "petersburg",
        "istanbul",
        "berlin",
        "london",
    ] {
        config[format!("{fork}_block")] = json!(0);
    }
    for fork in timed {
        config[format!("{fork}_time")] = json!(0);
    }
    config
}
