//! `host gen --worst` and `host worst`: the worst-case suite, generated and metered.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use blockgen::worst::{self, CATEGORIES, DEFAULT_GAS};
use blockgen::Fork;
use clap::{Args, ValueEnum};
use host::native::run_native;
use host::print::write_json;
use host::report::{run_in_vm_within, Mode};
use prover::guest::{Crypto, GuestSpec, Keccak};
use serde::Serialize;

/// The EEST worst-case blocks, where the shared data holds them.
const EEST_DIR: &str = "../shared/blocks/eest-zkevm";
/// The mainnet blocks the ratios are to, where the shared data holds them.
const MAINNET_DIR: &str = "../shared/blocks/mainnet";
const MAINNET: [&str; 2] = ["24171384", "21882667"];

#[derive(Args)]
pub struct WorstArgs {
    /// Block gas per generated category.
    #[arg(long, default_value_t = DEFAULT_GAS)]
    pub gas: u64,
    /// The pricing: every fork through this one, from genesis.
    #[arg(long, value_enum, default_value_t = Fork::Osaka)]
    pub fork: Fork,
    /// Only these categories (comma-separated names; `host gen --worst list` lists them).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Generate and meter no category (only the EEST and mainnet blocks).
    #[arg(long, conflicts_with = "only")]
    pub no_generated: bool,
    /// Where the generated blocks are written. Default: the fetched-block cache
    /// (`blocks/cache/`), where `host run --block worst-NAME` finds them.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The EEST worst-case blocks (Prague pricing) to meter too. Default: `../shared/blocks/eest-zkevm`
    /// when it exists.
    #[arg(long)]
    pub eest_dir: Option<PathBuf>,
    /// Skip the EEST blocks.
    #[arg(long)]
    pub no_eest: bool,
    /// Where 24171384 and 21882667 are (the mainnet average the ratios are to). Default:
    /// `../shared/blocks/mainnet` when it exists; without them there is no ratio.
    #[arg(long)]
    pub mainnet_dir: Option<PathBuf>,
    /// Stop a guest after this many instructions (checked before metering it): it is
    /// reported as over budget.
    #[arg(long, default_value_t = 50_000_000_000)]
    pub max_instructions: u64,
    /// Write the table as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// One row of the table.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The block.
    pub block: String,
    /// `generated (osaka)`, `EEST (prague)` or `mainnet`.
    pub source: String,
    /// Gas used.
    pub gas: u64,
    /// Transactions.
    pub txs: u64,
    /// Guest instructions (metered).
    pub instructions: Option<u64>,
    /// Main-trace cells (metered).
    pub main_cells: Option<u64>,
    /// Segments.
    pub segments: Option<u64>,
    /// What went wrong instead, if anything.
    pub note: Option<String>,
}

impl Row {
    /// A row for `block` with no figures yet.
    fn new(block: String, source: String) -> Self {
        Self {
            block,
            source,
            gas: 0,
            txs: 0,
            instructions: None,
            main_cells: None,
            segments: None,
            note: None,
        }
    }

    fn per_gas(&self, value: Option<u64>) -> Option<f64> {
        value.map(|v| v as f64 / self.gas.max(1) as f64)
    }
}

/// `host gen --worst NAME|all|list`.
pub fn gen(name: &str, gas: u64, fork: Fork, out: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    if name == "list" {
        for c in &CATEGORIES {
            println!("{:<24} {:<16} {}", c.name, c.group, c.about);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let out = out.unwrap_or_else(chaindata::blocks::cache_dir);
    let chosen: Vec<_> = if name == "all" {
        CATEGORIES.iter().collect()
    } else {
        vec![worst::category(name)?]
    };
    let mut failed = 0;
    for (i, category) in chosen.iter().enumerate() {
        // With `all`, a category that cannot be made at this gas is named and skipped.
        let made = match worst::generate(category, gas, fork) {
            Ok(made) => made,
            // A category the fork has no block for (a precompile or a code size it lacks).
            Err(e) if chosen.len() > 1 && e.not_under_fork() => {
                println!(
                    "[{}/{}] worst-{}: skipped: {e}",
                    i + 1,
                    chosen.len(),
                    category.name
                );
                continue;
            }
            Err(e) if chosen.len() > 1 => {
                println!("[{}/{}] worst-{}: {e}", i + 1, chosen.len(), category.name);
                failed += 1;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let path = made.block.write(&out, &made.chain_json)?;
        let o = &made.block.output;
        println!(
            "[{}/{}] {}: {} transactions, {} gas -> {}",
            i + 1,
            chosen.len(),
            made.block.id,
            o.tx_count,
            o.gas_used,
            path.display()
        );
    }
    Ok(super::exit_status(failed == 0))
}

impl WorstArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        let out = self
            .out
            .clone()
            .unwrap_or_else(chaindata::blocks::cache_dir);
        let chosen: Vec<_> = if self.no_generated {
            Vec::new()
        } else if self.only.is_empty() {
            CATEGORIES.iter().collect()
        } else {
            let found: Result<Vec<_>, _> = self.only.iter().map(|n| worst::category(n)).collect();
            found?
        };
        let mut jobs: Vec<(PathBuf, String, String)> = Vec::new();
        let mut rows = Vec::new();
        let fork = self.fork.to_possible_value().expect("no fork is skipped");
        let source = format!("generated ({})", fork.get_name());
        eprintln!(
            "host worst: {} categories at {} gas each ({} pricing), made into {} first, then each \
             block metered in the VM with the block guest, the EEST and mainnet blocks after \
             them; the state and code categories' witnesses grow with the gas (hundreds of MB \
             each at 60 M gas)",
            chosen.len(),
            self.gas,
            fork.get_name(),
            out.display()
        );
        let made_of = chosen.len();
        for (i, category) in chosen.into_iter().enumerate() {
            match worst::generate(category, self.gas, self.fork) {
                Ok(made) => {
                    made.block.write(&out, &made.chain_json)?;
                    let witness = out.join(format!("{}.witness.json", made.block.id));
                    let bytes = std::fs::metadata(&witness).map_or(0, |m| m.len());
                    eprintln!(
                        "[{}/{made_of}] made {}: {} gas in {} transactions, {:.2} MB of witness",
                        i + 1,
                        made.block.id,
                        made.block.output.gas_used,
                        made.block.output.tx_count,
                        bytes as f64 / 1e6
                    );
                    jobs.push((out.clone(), made.block.id.clone(), source.clone()));
                }
                // Not asked for by name, and without a block under this fork: no row.
                Err(e) if self.only.is_empty() && e.not_under_fork() => {
                    eprintln!("worst-{}: skipped: {e}", category.name);
                }
                Err(e) => rows.push(Row {
                    note: Some(e.to_string()),
                    ..Row::new(format!("worst-{}", category.name), source.clone())
                }),
            }
        }
        if !self.no_eest {
            let dir = self.eest_dir.clone().unwrap_or_else(|| EEST_DIR.into());
            if dir.is_dir() {
                for id in block_ids(&dir)? {
                    jobs.push((dir.clone(), id, "EEST (prague)".to_owned()));
                }
            }
        }
        let mainnet_dir = self
            .mainnet_dir
            .clone()
            .unwrap_or_else(|| MAINNET_DIR.into());
        if mainnet_dir.is_dir() {
            for id in MAINNET {
                jobs.push((mainnet_dir.clone(), id.to_owned(), "mainnet".to_owned()));
            }
        }
        let total = jobs.len();
        for (i, (dir, id, source)) in jobs.into_iter().enumerate() {
            eprintln!("[{}/{total}] {id} ({source}) ...", i + 1);
            let row = measure(&dir, &id, source, self.max_instructions);
            eprintln!("[{}/{total}] {}", i + 1, summary(&row));
            rows.push(row);
        }
        let mainnet = mainnet_average(&rows);
        print_table(&rows, mainnet);
        if let Some(path) = &self.json {
            write_json(
                path,
                &serde_json::json!({ "mainnet_cells_per_gas": mainnet, "rows": rows }),
            )?;
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// The ids of the blocks in `dir` (`<id>.block.rlp`), sorted.
fn block_ids(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut ids: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".block.rlp").map(str::to_owned)
        })
        .collect();
    ids.sort();
    Ok(ids)
}

/// Validates block `id` natively, checks the budget, and meters it.
fn measure(dir: &Path, id: &str, source: String, budget: u64) -> Row {
    let mut row = Row::new(id.to_owned(), source);
    let native = match run_native(dir, id, None) {
        Ok(native) => native,
        Err(e) => {
            row.note = Some(e.to_string());
            return row;
        }
    };
    match &native.verdict {
        Ok(out) => {
            row.gas = out.gas_used;
            row.txs = out.tx_count as u64;
        }
        Err(e) => {
            row.note = Some(format!("not valid natively: {e}"));
            return row;
        }
    }
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    match run_in_vm_within(&native, Mode::Metered, spec, Some(budget)) {
        Ok(report) if report.valid => {
            row.instructions = report.instructions;
            row.main_cells = report.main_cells;
            row.segments = report.segments;
        }
        Ok(report) => row.note = Some(format!("the guest says {}", report.verdict)),
        Err(e) => row.note = Some(e.to_string()),
    }
    row
}

fn summary(row: &Row) -> String {
    match (&row.note, row.per_gas(row.main_cells)) {
        (Some(note), _) => format!("{}: {note}", row.block),
        (None, Some(cells)) => format!(
            "{}: {} gas, {:.1} instructions and {cells:.0} main cells per gas, {} segments",
            row.block,
            row.gas,
            row.per_gas(row.instructions).unwrap_or(0.0),
            row.segments.unwrap_or(0)
        ),
        (None, None) => format!("{}: no figures", row.block),
    }
}

/// The mean of the mainnet blocks' main cells per gas.
fn mainnet_average(rows: &[Row]) -> Option<f64> {
    let figures: Vec<f64> = rows
        .iter()
        .filter(|r| r.source == "mainnet")
        .filter_map(|r| r.per_gas(r.main_cells))
        .collect();
    (figures.len() == MAINNET.len()).then(|| figures.iter().sum::<f64>() / figures.len() as f64)
}

fn print_table(rows: &[Row], mainnet: Option<f64>) {
    println!(
        "| block | source | gas | txs | instructions/gas | main cells/gas | segments per 60 M gas | × mainnet cells/gas |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    let mut sorted: Vec<&Row> = rows.iter().collect();
    sorted.sort_by(|a, b| {
        let key = |r: &Row| r.per_gas(r.main_cells).unwrap_or(f64::INFINITY);
        key(b).total_cmp(&key(a))
    });
    for row in sorted {
        if let Some(note) = &row.note {
            println!(
                "| {} | {} | {} | {} | {note} | | | |",
                row.block, row.source, row.gas, row.txs
            );
            continue;
        }
        let instructions = row.per_gas(row.instructions).unwrap_or(0.0);
        let cells = row.per_gas(row.main_cells).unwrap_or(0.0);
        let segments = row.segments.unwrap_or(0) as f64 * 60e6 / row.gas.max(1) as f64;
        let ratio = mainnet.map_or("-".to_owned(), |m| format!("{:.2}", cells / m));
        println!(
            "| {} | {} | {} | {} | {instructions:.1} | {cells:.0} | {segments:.1} | {ratio} |",
            row.block, row.source, row.gas, row.txs
        );
    }
    match mainnet {
        Some(m) => {
            println!("\nmainnet average: {m:.0} main cells per gas (mean of 24171384 and 21882667)")
        }
        None => {
            println!("\nno mainnet average: 24171384 and 21882667 were not found (--mainnet-dir)")
        }
    }
}
