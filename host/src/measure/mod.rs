//! Measuring the guest beyond one run, each figure from OpenVM's metered interpreter or counters
//! the guest itself keeps:
//!
//! - [`compare`]: the block guest with this project's keccak and with a stock [`Baseline`],
//!   metered, and what keccak costs in each, measured the same way for both ([`KeccakCosts`]:
//!   the keccak chips' rows and cells from the metered run, the guest's total heap from a
//!   census build); plus our sponge's own counters ([`keccak`]), which explain ours;
//! - [`precompiles`]: per cryptographic operation, calls and the instructions they cost;
//! - [`both`]: the block guest and the standard guest on the same block, side by side.
//!
//! The tables are rendered in [`crate::print`].

use serde::Serialize;

use crate::native::NativeRun;
use crate::report::{run_in_vm, Mode, RunReport};
use prover::guest::{Crypto, GuestSpec, Keccak};
use prover::vm::VmRunError;

pub mod both;
pub mod floor;
pub mod keccak;
pub mod pages;
pub mod precompiles;
pub mod profile;

pub use keccak::{run_census, CensusCounts, CensusReport};
pub use precompiles::{run_precompile_census, PrecompileCensus};

/// What this project's keccak is compared against.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Baseline {
    /// What a stock OpenVM user would run: every trie node, header and key encoded into a
    /// buffer and hashed with one `openvm_keccak256::keccak256` call; alloy's and revm's hashes
    /// through openvm-keccak256's `native_keccak256`. The honest headline.
    #[default]
    Idiomatic,
    /// This project's sponge and RLP streaming with OpenVM's stock `native_xorin`: isolates what
    /// the heap-free absorb alone is worth.
    Xorin,
}

impl Baseline {
    /// The guest's keccak for this baseline.
    pub fn keccak(self) -> Keccak {
        match self {
            Self::Idiomatic => Keccak::Stock,
            Self::Xorin => Keccak::StockXorin,
        }
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Idiomatic => "idiomatic",
            Self::Xorin => "xorin",
        }
    }
}

/// `host compare --json`: ours against a baseline on one block, metered.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The block's id.
    pub block: String,
    /// The baseline.
    pub baseline: Baseline,
    /// The baseline's run.
    pub stock: RunReport,
    /// Ours.
    pub ours: RunReport,
    /// What keccak cost each, measured alike; and our sponge's own counters.
    pub census: Censuses,
}

/// Keccak's cost in one build, measured the same way for every build.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct KeccakCosts {
    /// `KECCAKF` instructions: rows of the KECCAKF opcode chip (`KeccakfOpAir`).
    pub keccakf: u64,
    /// `XORIN` instructions: rows of the XORIN chip (`XorinVmAir`).
    pub xorin: u64,
    /// Main-trace cells of the keccak chips (`KeccakfOpAir`, `KeccakfPermAir`, `XorinVmAir`).
    pub keccak_main_cells: u64,
    /// The guest's total heap use, bytes (input included; from the census build).
    pub guest_heap_bytes: u64,
}

impl KeccakCosts {
    /// The keccak chips' figures of a metered run, and the heap of its census build.
    pub fn of(report: &RunReport, census: &CensusReport) -> Self {
        let mut costs = Self {
            guest_heap_bytes: census.guest_heap_bytes,
            ..Self::default()
        };
        for air in report.airs.iter().flatten() {
            match air.name.as_str() {
                "KeccakfOpAir" => costs.keccakf = air.rows,
                "XorinVmAir" => costs.xorin = air.rows,
                "KeccakfPermAir" => {}
                _ => continue,
            }
            costs.keccak_main_cells += air.main_cells;
        }
        costs
    }
}

/// The keccak costs of both builds, and our sponge's counters.
#[derive(Debug, Clone, Serialize)]
pub struct Censuses {
    /// The baseline's.
    pub stock: KeccakCosts,
    /// Ours.
    pub ours: KeccakCosts,
    /// Our sponge's own counters (census build): XORIN calls by class, bytes XORed in software
    /// or staged, KECCAKF calls, keccak heap.
    pub ours_sponge: CensusCounts,
}

/// Runs a block the native run found valid with ours and with `baseline`, metered, and each
/// one's census build.
pub fn compare(run: &NativeRun, baseline: Baseline) -> Result<Comparison, VmRunError> {
    let metered = |keccak| run_in_vm(run, Mode::Metered, GuestSpec::block(keccak, Crypto::Openvm));
    let stock = metered(baseline.keccak())?;
    let ours = metered(Keccak::Ours)?;
    let stock_census = run_census(run, baseline.keccak())?;
    let ours_census = run_census(run, Keccak::Ours)?;
    Ok(Comparison {
        block: run.data.id.clone(),
        baseline,
        census: Censuses {
            stock: KeccakCosts::of(&stock, &stock_census),
            ours: KeccakCosts::of(&ours, &ours_census),
            ours_sponge: ours_census.census,
        },
        stock,
        ours,
    })
}
