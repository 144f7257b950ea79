//! Both guests on one block, metered: the block guest on its own input, and the standard guest
//! (EIP-8025) on the block's standard input bytes, as `host stateless-input` writes them.
//!
//! `host bench` meters a folder of blocks this way and `host worst` its worst cases, so that
//! every row says what each guest costs per gas on the same block. Each guest's run is checked
//! as `host run` checks it (the block guest's public values, the standard guest's result,
//! against the native run) and first run under an instruction budget, so one runaway block is
//! reported, not waited for. A guest that fails on a block gives that row a note, never a
//! figure.

use std::path::Path;

use serde::Serialize;

use crate::native::{run_native, NativeRun};
use prover::guest::{Crypto, GuestSpec, Keccak, Program};
use prover::standard::{run_standard_within, shuffled, stateless_input};
use prover::vm::block::{run_block_within, How};
use prover::vm::Metering;

/// One guest's metered figures on one block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figures {
    /// Instructions executed.
    pub instructions: u64,
    /// Unpadded main-trace cells, all segments.
    pub main_cells: u64,
    /// Segments.
    pub segments: u64,
    /// Unpadded proving-memory estimate, all segments, bytes.
    pub memory_bytes: u64,
    /// Share of the main cells in the keccak chips (`KeccakfOpAir`, `KeccakfPermAir`,
    /// `XorinVmAir`).
    pub keccak_share: f64,
    /// Share of the main cells in the Poseidon2 periphery (memory pages hashed per segment).
    pub poseidon2_share: f64,
}

impl Figures {
    /// The figures of a metered run.
    pub fn of(metering: &Metering) -> Self {
        let share = |pick: &dyn Fn(&str) -> bool| {
            let cells: u64 = (metering.airs.iter())
                .filter(|air| pick(&air.name))
                .map(|air| air.main_cells)
                .sum();
            cells as f64 / metering.main_cells.max(1) as f64
        };
        Self {
            instructions: metering.instructions,
            main_cells: metering.main_cells,
            segments: metering.segments.len() as u64,
            memory_bytes: metering.memory_bytes,
            keccak_share: share(&|name| name.starts_with("Keccakf") || name == "XorinVmAir"),
            poseidon2_share: share(&|name| name.starts_with("Poseidon2")),
        }
    }
}

/// One guest on one block: its figures, or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GuestRun {
    /// The metered figures, when the guest ran and agreed with the native run.
    pub figures: Option<Figures>,
    /// What went wrong instead.
    pub note: Option<String>,
}

impl From<Result<Figures, String>> for GuestRun {
    fn from(result: Result<Figures, String>) -> Self {
        match result {
            Ok(figures) => Self {
                figures: Some(figures),
                note: None,
            },
            Err(note) => Self {
                figures: None,
                note: Some(note),
            },
        }
    }
}

/// One block, both guests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The block.
    pub block: String,
    /// Where it comes from (`mainnet`, `generated (amsterdam)`, `EEST bench (osaka)`, ...).
    pub source: String,
    /// Gas used (0 when the block did not validate).
    pub gas: u64,
    /// Transactions.
    pub txs: u64,
    /// Why neither guest ran (the block did not load or is not valid natively).
    pub note: Option<String>,
    /// The block guest on its own input.
    pub block_guest: GuestRun,
    /// The standard guest on the block's standard input.
    pub standard_guest: GuestRun,
    /// The standard guest on the same input with its nodes and codes shuffled
    /// ([`SHUFFLE_SEED`]): another producer's order (`host bench` only).
    pub shuffled: Option<GuestRun>,
}

/// The seed of the shuffled standard input `host bench` meters beside the need-ordered one.
pub const SHUFFLE_SEED: u64 = 8025;

impl Row {
    /// A row with no figures: `note` says why.
    pub fn failed(block: String, source: String, note: String) -> Self {
        let none = GuestRun {
            figures: None,
            note: None,
        };
        Self {
            block,
            source,
            gas: 0,
            txs: 0,
            note: Some(note),
            block_guest: none.clone(),
            standard_guest: none,
            shuffled: None,
        }
    }

    /// `value` per gas.
    pub fn per_gas(&self, value: u64) -> f64 {
        value as f64 / self.gas.max(1) as f64
    }

    /// The block guest's main cells per gas, when it ran.
    pub fn cells_per_gas(&self) -> Option<f64> {
        (self.block_guest.figures.as_ref()).map(|f| self.per_gas(f.main_cells))
    }
}

/// Loads block `id` from `dir`, validates it natively and meters both guests on it
/// ([`meter_both`]), and with `shuffled` the standard guest on its input shuffled too; a
/// block that does not load gets a row that says why.
pub fn meter_on_disk(
    dir: &Path,
    id: &str,
    source: &str,
    budget: Option<u64>,
    shuffled: bool,
) -> Row {
    match run_native(dir, id, None) {
        Ok(run) => {
            let mut row = meter_both(&run, source, budget);
            if shuffled && row.note.is_none() {
                row.shuffled = Some(standard_guest(&run, budget, Some(SHUFFLE_SEED)).into());
            }
            row
        }
        Err(e) => Row::failed(id.to_owned(), source.to_owned(), e.to_string()),
    }
}

/// Meters both guests on a block the native run found valid (any other gets a noted row), each
/// run first under `budget` instructions when given.
pub fn meter_both(run: &NativeRun, source: &str, budget: Option<u64>) -> Row {
    let id = run.data.id.clone();
    let out = match &run.verdict {
        Ok(out) => out,
        Err(e) => return Row::failed(id, source.to_owned(), format!("not valid natively: {e}")),
    };
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let block_guest = run_block_within(run, spec, How::new(true, budget), &[])
        .map_err(|e| e.to_string())
        .and_then(|guest| guest.metering.ok_or_else(|| "not metered".to_owned()))
        .map(|m| Figures::of(&m));
    Row {
        block: id,
        source: source.to_owned(),
        gas: out.gas_used,
        txs: out.tx_count as u64,
        note: None,
        block_guest: block_guest.into(),
        standard_guest: standard_guest(run, budget, None).into(),
        shuffled: None,
    }
}

/// The standard guest on the block's standard input (its witness shuffled under `shuffle`, when
/// given), metered and checked against the native result on those bytes.
fn standard_guest(
    run: &NativeRun,
    budget: Option<u64>,
    shuffle: Option<u64>,
) -> Result<Figures, String> {
    let mut input = stateless_input(&run.data.block_rlp, &run.data.witness, &run.chain)
        .map_err(|e| format!("no standard input: {e}"))?;
    if let Some(seed) = shuffle {
        input = shuffled(&input, seed);
    }
    let bytes = stateless_ssz::encode_input(&input);
    let spec = GuestSpec::program(Program::Standard, Keccak::Ours).with_crypto(Crypto::Openvm);
    let standard = run_standard_within(&bytes, Some(spec), budget).map_err(|e| e.to_string())?;
    match standard.vm {
        Some((result, _)) if !result.successful_validation => {
            Err("the standard guest says false (as natively)".to_owned())
        }
        Some((_, metering)) => Ok(Figures::of(&metering)),
        None => Err("not metered".to_owned()),
    }
}

/// Main cells per gas over a set of rows, by guest: the gas-weighted mean (all cells over all
/// gas), the median and the max of the rows' cells per gas. Rows of blocks that spend no gas are
/// left out.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Distribution {
    /// Rows counted (those the guest has figures for).
    pub blocks: usize,
    /// Gas over those rows.
    pub gas: u64,
    /// Σ main cells / Σ gas.
    pub gas_weighted_mean: f64,
    /// The median of the rows' cells per gas (the mean of the middle two for an even count).
    pub median: f64,
    /// The largest.
    pub max: f64,
}

impl Distribution {
    /// Of the rows `pick` gives figures for; `None` when it gives none.
    pub fn of<'a>(
        rows: impl IntoIterator<Item = &'a Row>,
        pick: impl Fn(&Row) -> Option<&Figures>,
    ) -> Option<Self> {
        let (mut gas, mut cells, mut per_gas) = (0u64, 0u64, Vec::new());
        for row in rows {
            // A block that spends no gas has no cells per gas (an empty block's are its fixed
            // cost, which this distribution is not about).
            if let Some(f) = pick(row).filter(|_| row.gas > 0) {
                gas += row.gas;
                cells += f.main_cells;
                per_gas.push(row.per_gas(f.main_cells));
            }
        }
        if per_gas.is_empty() {
            return None;
        }
        per_gas.sort_by(f64::total_cmp);
        let n = per_gas.len();
        let median = if n % 2 == 1 {
            per_gas[n / 2]
        } else {
            (per_gas[n / 2 - 1] + per_gas[n / 2]) / 2.0
        };
        Some(Self {
            blocks: n,
            gas,
            gas_weighted_mean: cells as f64 / gas.max(1) as f64,
            median,
            max: per_gas[n - 1],
        })
    }
}

/// The distributions of both guests over `rows`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Distributions {
    /// The block guest's.
    pub block_guest: Option<Distribution>,
    /// The standard guest's.
    pub standard_guest: Option<Distribution>,
}

impl Distributions {
    /// Of `rows` (a slice, or a filter over one).
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a Row, IntoIter: Clone>) -> Self {
        let rows = rows.into_iter();
        Self {
            block_guest: Distribution::of(rows.clone(), |r| r.block_guest.figures.as_ref()),
            standard_guest: Distribution::of(rows, |r| r.standard_guest.figures.as_ref()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(gas: u64, cells: Option<u64>) -> Row {
        let mut row = Row::failed("b".into(), "s".into(), String::new());
        row.gas = gas;
        row.block_guest.figures = cells.map(|main_cells| Figures {
            instructions: 0,
            main_cells,
            segments: 1,
            memory_bytes: 0,
            keccak_share: 0.0,
            poseidon2_share: 0.0,
        });
        row
    }

    #[test]
    fn the_mean_weighs_by_gas_and_skips_rows_without_figures() {
        // 100 cells/gas on 1 gas, 300 on 3 gas, 200 on 1: (100 + 900 + 200) / 5 = 240.
        let rows = [
            row(1, Some(100)),
            row(3, Some(900)),
            row(1, Some(200)),
            row(7, None),
            row(0, Some(50)),
        ];
        let d = Distribution::of(&rows, |r| r.block_guest.figures.as_ref()).unwrap();
        assert_eq!((d.blocks, d.gas), (3, 5));
        assert_eq!(d.gas_weighted_mean, 240.0);
        assert_eq!((d.median, d.max), (200.0, 300.0));
        let even = Distribution::of(&rows[..2], |r| r.block_guest.figures.as_ref()).unwrap();
        assert_eq!(even.median, 200.0);
        assert!(Distribution::of(&rows[3..], |r| r.block_guest.figures.as_ref()).is_none());
        assert_eq!(
            d,
            Distribution::of(&rows[..3], |r| r.block_guest.figures.as_ref()).unwrap()
        );
    }
}
