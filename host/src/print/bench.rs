//! The two-guest table of `host bench` and `host worst`: one row per block, the block guest and
//! the standard guest side by side, then each guest's distribution of main cells per gas.

use crate::measure::both::{Distribution, Distributions, Figures, GuestRun, Row};

/// One line for a row as it ends (the progress of a long run).
pub fn row_line(row: &Row) -> String {
    if let Some(note) = &row.note {
        return format!("{}: {note}", row.block);
    }
    let guest = |run: &GuestRun| match (&run.figures, &run.note) {
        (Some(f), _) => format!(
            "{:.1} instructions and {:.0} main cells per gas, {} segments",
            row.per_gas(f.instructions),
            row.per_gas(f.main_cells),
            f.segments
        ),
        (None, Some(note)) => note.clone(),
        (None, None) => "not run".to_owned(),
    };
    let shuffled = match &row.shuffled {
        Some(run) => format!("; shuffled {}", guest(run)),
        None => String::new(),
    };
    format!(
        "{}: {} gas; block guest {}; standard guest {}{shuffled}",
        row.block,
        row.gas,
        guest(&row.block_guest),
        guest(&row.standard_guest)
    )
}

/// The standard guest on each input in need order (as `host stateless-input` writes it) and
/// shuffled ([`crate::measure::both::SHUFFLE_SEED`]), for the rows that have both.
pub fn shuffled_table(rows: &[Row]) -> String {
    let mut out = format!(
        "the standard guest on its input shuffled (nodes and codes, seed {}), beside need order:\n\n\
         | block | need order: main cells/gas | segments | shuffled: main cells/gas | segments | shuffled / need order |\n\
         |---|---:|---:|---:|---:|---:|\n",
        crate::measure::both::SHUFFLE_SEED
    );
    for row in rows {
        let shuffled = row.shuffled.as_ref().and_then(|s| s.figures.as_ref());
        if let (Some(n), Some(s)) = (&row.standard_guest.figures, shuffled) {
            out.push_str(&format!(
                "| {} | {:.0} | {} | {:.0} | {} | {:+.1}% |\n",
                row.block,
                row.per_gas(n.main_cells),
                n.segments,
                row.per_gas(s.main_cells),
                s.segments,
                percent(s.main_cells, n.main_cells)
            ));
        } else if let Some(note) = row.shuffled.as_ref().and_then(|s| s.note.as_ref()) {
            out.push_str(&format!("| {} | {note} | | | | |\n", row.block));
        }
    }
    out
}

/// The table, dearest first by the block guest's main cells per gas (rows without its figures
/// last); `mainnet`, when known, adds each row's ratio to it.
pub fn bench_table(rows: &[Row], mainnet: Option<f64>) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    line(
        "| block | source | gas | txs | instructions/gas | main cells/gas | segments | keccak | Poseidon2 \
         | standard: instructions/gas | main cells/gas | segments | keccak | Poseidon2 \
         | standard / block cells | × mainnet cells/gas |"
            .into(),
    );
    line("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|".into());
    let mut sorted: Vec<&Row> = rows.iter().collect();
    sorted.sort_by(|a, b| {
        let key = |r: &Row| r.cells_per_gas().unwrap_or(f64::NEG_INFINITY);
        key(b).total_cmp(&key(a))
    });
    for row in sorted {
        let head = format!(
            "| {} | {} | {} | {} |",
            row.block, row.source, row.gas, row.txs
        );
        if let Some(note) = &row.note {
            line(format!("{head} {note} | | | | | | | | | | | |"));
            continue;
        }
        let cells = |run: &GuestRun| match (&run.figures, &run.note) {
            (Some(f), _) => guest_cells(row, f),
            (None, note) => format!("{} | | | |", note.as_deref().unwrap_or("not run")),
        };
        let (block, standard) = (&row.block_guest.figures, &row.standard_guest.figures);
        let versus = match (block, standard) {
            (Some(b), Some(s)) => format!("{:+.1}%", percent(s.main_cells, b.main_cells)),
            _ => "-".to_owned(),
        };
        let ratio = match (row.cells_per_gas(), mainnet) {
            (Some(cells), Some(m)) => format!("{:.2}", cells / m),
            _ => "-".to_owned(),
        };
        line(format!(
            "{head} {} | {} | {versus} | {ratio} |",
            cells(&row.block_guest),
            cells(&row.standard_guest)
        ));
    }
    out
}

fn guest_cells(row: &Row, f: &Figures) -> String {
    format!(
        "{:.1} | {:.0} | {} | {:.1}% | {:.1}%",
        row.per_gas(f.instructions),
        row.per_gas(f.main_cells),
        f.segments,
        f.keccak_share * 100.0,
        f.poseidon2_share * 100.0
    )
}

/// `(a - b) / b` in percent.
fn percent(a: u64, b: u64) -> f64 {
    (a as f64 - b as f64) / b.max(1) as f64 * 100.0
}

/// Each guest's distribution of main cells per gas over `what` (e.g. "the mainnet blocks").
pub fn distributions(what: &str, d: &Distributions) -> String {
    let line = |guest: &str, d: &Option<Distribution>| match d {
        Some(d) => format!(
            "| {guest} | {} | {} | {:.1} | {:.1} | {:.1} |\n",
            d.blocks, d.gas, d.gas_weighted_mean, d.median, d.max
        ),
        None => format!("| {guest} | 0 | 0 | - | - | - |\n"),
    };
    let mut out = format!(
        "main cells per gas over {what}:\n\n\
         | guest | blocks | gas | gas-weighted mean | median | max |\n|---|---:|---:|---:|---:|---:|\n{}{}",
        line("block", &d.block_guest),
        line("standard", &d.standard_guest)
    );
    if let (Some(b), Some(s)) = (&d.block_guest, &d.standard_guest) {
        // Only over the same blocks is the difference the guests'.
        if b.gas == s.gas {
            out.push_str(&format!(
                "\nthe standard guest against the block guest, gas-weighted: {:+.1}% main cells\n",
                (s.gas_weighted_mean / b.gas_weighted_mean - 1.0) * 100.0
            ));
        }
    }
    out
}
