//! `host bench --blocks-dir DIR`: every block of a folder through both guests, metered, one row
//! each as it ends, then the table and each guest's distribution of main cells per gas.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use host::measure::both::{meter_on_disk, Distributions};
use host::print::{bench_table, distributions, row_line, shuffled_table, write_json};

use super::exit_status;

#[derive(Args)]
pub struct BenchArgs {
    /// The folder: every `<id>.block.rlp` in it, with its `<id>.witness.json` (and
    /// `<id>.chain.json` when the chain is not mainnet).
    #[arg(long)]
    pub blocks_dir: PathBuf,
    /// Only these blocks (comma-separated ids).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Stop a guest after this many instructions (checked before metering it): it is reported
    /// as over budget.
    #[arg(long, default_value_t = 50_000_000_000)]
    pub max_instructions: u64,
    /// Write the rows and the distributions as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

impl BenchArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        let dir = &self.blocks_dir;
        let mut ids = chaindata::blocks::list_blocks(dir)
            .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
        if !self.only.is_empty() {
            ids.retain(|id| self.only.contains(id));
        }
        if ids.is_empty() {
            anyhow::bail!("{} has no block to bench", dir.display());
        }
        eprintln!(
            "host bench: {} blocks of {}, each validated natively, then metered in the VM with \
             the block guest and with the standard guest (its standard input), each first run \
             under {} instructions",
            ids.len(),
            dir.display(),
            self.max_instructions
        );
        let source = dir.display().to_string();
        let mut rows = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            eprintln!("[{}/{}] {id} ...", i + 1, ids.len());
            let row = meter_on_disk(dir, id, &source, Some(self.max_instructions), true);
            eprintln!("[{}/{}] {}", i + 1, ids.len(), row_line(&row));
            rows.push(row);
        }
        let stats = Distributions::of(&rows);
        print!(
            "{}",
            bench_table(&rows, stats.block_guest.map(|d| d.gas_weighted_mean))
        );
        print!(
            "\n{}",
            distributions(&format!("the blocks of {source}"), &stats)
        );
        print!("\n{}", shuffled_table(&rows));
        if let Some(path) = &self.json {
            write_json(
                path,
                &serde_json::json!({ "blocks_dir": source, "rows": rows, "distributions": stats }),
            )?;
        }
        // A block valid natively that either guest could not meter is a failure; a block that
        // is not valid natively is only reported.
        let metered = rows.iter().all(|r| {
            r.note.is_some()
                || (r.block_guest.figures.is_some()
                    && r.standard_guest.figures.is_some()
                    && r.shuffled.as_ref().is_some_and(|s| s.figures.is_some()))
        });
        Ok(exit_status(metered))
    }
}
