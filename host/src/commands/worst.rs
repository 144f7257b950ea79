//! `host gen --worst` and `host worst`: the worst-case suite, generated and metered.

use std::path::PathBuf;
use std::process::ExitCode;

use blockgen::worst::{self, CATEGORIES, DEFAULT_GAS};
use blockgen::Fork;
use clap::{Args, ValueEnum};
use host::ef_tests::last_block::{last_block, short_name};
use host::ef_tests::vm::SampledCase;
use host::measure::both::{meter_both, meter_on_disk, Distributions, Row};
use host::measure::floor::{code_floor, CodeFloor};
use host::print::{bench_table, distributions, row_line, write_json};

/// The EEST worst-case blocks, where the shared data holds them.
const EEST_DIR: &str = "../shared/blocks/eest-zkevm";
/// The mainnet blocks the ratios are to, where the shared data holds them.
const MAINNET_DIR: &str = "../shared/blocks/mainnet";
/// The execution-spec-tests benchmark suite, where the shared data holds it.
const BENCH_DIR: &str = "../shared/ef-tests-eest-bench";
/// The mainnet rows' source.
const MAINNET: &str = "mainnet";

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
    /// The execution-spec-tests benchmark suite (blockchain-test fixtures, any depth; each
    /// case's last block is metered). Default: `../shared/ef-tests-eest-bench` when it exists.
    #[arg(long)]
    pub bench_dir: Option<PathBuf>,
    /// Skip the benchmark suite.
    #[arg(long)]
    pub no_bench: bool,
    /// Where the mainnet blocks are (every block there; their gas-weighted mean is what the
    /// ratios are to). Default: `../shared/blocks/mainnet` when it exists; without them there is
    /// no ratio.
    #[arg(long)]
    pub mainnet_dir: Option<PathBuf>,
    /// Stop a guest after this many instructions (checked before metering it): it is
    /// reported as over budget.
    #[arg(long, default_value_t = 50_000_000_000)]
    pub max_instructions: u64,
    /// Also meter the code floor of each code category that reads its codes from the witness
    /// (`extcodesize`, `extcodecopy`, `call`): the block's witness codes read from the input and
    /// hashed, nothing else (the probe `code_floor`), and print the block guest's cells per gas
    /// against it.
    #[arg(long)]
    pub floor: bool,
    /// Write the table as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
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
        let mut jobs: Vec<Job> = Vec::new();
        let mut rows = Vec::new();
        let fork = self.fork.to_possible_value().expect("no fork is skipped");
        let source = format!("generated ({})", fork.get_name());
        eprintln!(
            "host worst: {} categories at {} gas each ({} pricing), made into {} first, then each \
             block metered in the VM with both guests, the EEST blocks, the benchmark suite's \
             cases and the mainnet blocks after them; the state and code categories' witnesses grow with the gas (hundreds of MB \
             each at 60 M gas)",
            chosen.len(),
            self.gas,
            fork.get_name(),
            out.display()
        );
        let made_of = chosen.len();
        // The blocks whose codes come from the witness (CREATE2's are initcodes it makes in
        // memory): those with a code floor.
        let mut reading_codes = std::collections::HashSet::new();
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
                    if category.group == "code" && !category.name.starts_with("create2") {
                        reading_codes.insert(made.block.id.clone());
                    }
                    jobs.push(Job::Disk(
                        out.clone(),
                        made.block.id.clone(),
                        source.clone(),
                    ));
                }
                // Not asked for by name, and without a block under this fork: no row.
                Err(e) if self.only.is_empty() && e.not_under_fork() => {
                    eprintln!("worst-{}: skipped: {e}", category.name);
                }
                Err(e) => rows.push(Row::failed(
                    format!("worst-{}", category.name),
                    source.clone(),
                    e.to_string(),
                )),
            }
        }
        if !self.no_eest {
            let dir = self.eest_dir.clone().unwrap_or_else(|| EEST_DIR.into());
            if dir.is_dir() {
                for id in chaindata::blocks::list_blocks(&dir)? {
                    jobs.push(Job::Disk(dir.clone(), id, "EEST (prague)".to_owned()));
                }
            }
        }
        if !self.no_bench {
            let dir = self.bench_dir.clone().unwrap_or_else(|| BENCH_DIR.into());
            if dir.is_dir() {
                let files = host::ef_tests::discover(std::slice::from_ref(&dir))?;
                for case in host::ef_tests::vm::all_cases(&files) {
                    let source = format!("EEST bench ({})", case.network.to_lowercase());
                    jobs.push(Job::Case(case, source));
                }
            }
        }
        let mainnet_dir = self
            .mainnet_dir
            .clone()
            .unwrap_or_else(|| MAINNET_DIR.into());
        if mainnet_dir.is_dir() {
            for id in chaindata::blocks::list_blocks(&mainnet_dir)? {
                jobs.push(Job::Disk(mainnet_dir.clone(), id, MAINNET.to_owned()));
            }
        }
        let total = jobs.len();
        let budget = Some(self.max_instructions);
        let mut floors = Vec::new();
        for (i, job) in jobs.into_iter().enumerate() {
            let row = match job {
                Job::Disk(dir, id, source) => {
                    eprintln!("[{}/{total}] {id} ({source}) ...", i + 1);
                    if self.floor && reading_codes.contains(&id) {
                        // Loaded and validated once, for the floor and the guests.
                        match host::native::run_native(&dir, &id, None) {
                            Ok(run) => {
                                eprintln!("[{}/{total}] {id}: its code floor ...", i + 1);
                                floors.push(FloorRow {
                                    block: id.clone(),
                                    floor: code_floor(&run.data.witness.codes)
                                        .map_err(|e| e.to_string()),
                                });
                                meter_both(&run, &source, budget)
                            }
                            Err(e) => {
                                floors.push(FloorRow {
                                    block: id.clone(),
                                    floor: Err(e.to_string()),
                                });
                                Row::failed(id, source, e.to_string())
                            }
                        }
                    } else {
                        meter_on_disk(&dir, &id, &source, budget, false)
                    }
                }
                Job::Case(case, source) => {
                    let name = short_name(&case.name);
                    eprintln!("[{}/{total}] {name} ({source}) ...", i + 1);
                    match last_block(&case) {
                        Ok(run) => meter_both(&run, &source, budget),
                        Err(e) => Row::failed(name, source, e),
                    }
                }
            };
            eprintln!("[{}/{total}] {}", i + 1, row_line(&row));
            rows.push(row);
        }
        let mainnet = Distributions::of(rows.iter().filter(|r| r.source == MAINNET));
        let mean = mainnet.block_guest.map(|d| d.gas_weighted_mean);
        print!("{}", bench_table(&rows, mean));
        match mean {
            Some(_) => print!(
                "\n{}",
                distributions(
                    "the mainnet blocks (the ratios are to the block guest's mean)",
                    &mainnet,
                )
            ),
            None => println!("\nno mainnet average: no mainnet block was metered (--mainnet-dir)"),
        }
        if self.floor {
            print!("\n{}", floor_table(&floors, &rows));
        }
        if let Some(path) = &self.json {
            write_json(
                path,
                &serde_json::json!({ "mainnet": mainnet, "rows": rows, "floors": floors }),
            )?;
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// A generated block's code floor, or why it has none.
#[derive(serde::Serialize)]
struct FloorRow {
    block: String,
    floor: Result<CodeFloor, String>,
}

/// Each block guest's main cells per gas beside its block's code floor's.
fn floor_table(floors: &[FloorRow], rows: &[Row]) -> String {
    let mut out = String::from(
        "| category | codes | code bytes | floor: main cells | floor per gas | block guest per gas | × floor |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    for f in floors {
        let row = rows.iter().find(|r| r.block == f.block);
        let guest = row.and_then(|r| {
            r.block_guest
                .figures
                .as_ref()
                .map(|g| (g.main_cells, r.gas))
        });
        match (&f.floor, guest) {
            (Ok(floor), Some((cells, gas))) if gas > 0 => {
                let per_gas = floor.main_cells as f64 / gas as f64;
                let guest_per_gas = cells as f64 / gas as f64;
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {:.0} | {:.0} | {:.2} |\n",
                    f.block,
                    floor.codes,
                    floor.code_bytes,
                    floor.main_cells,
                    per_gas,
                    guest_per_gas,
                    guest_per_gas / per_gas
                ));
            }
            (Err(e), _) => out.push_str(&format!("| {} | {e} | | | | | |\n", f.block)),
            _ => out.push_str(&format!(
                "| {} | the block guest did not run | | | | | |\n",
                f.block
            )),
        }
    }
    out
}

/// A block to meter: one on disk, or a benchmark case's last block.
enum Job {
    /// The folder, the id, the source.
    Disk(PathBuf, String, String),
    /// The case, the source.
    Case(SampledCase, String),
}
