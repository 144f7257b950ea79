//! Measurements: metered runs, comparisons with the stock baselines, censuses, AIRs,
//! profiles and flame graphs.

use crate::measure::profile::Profile;
use crate::measure::{Comparison, PrecompileCensus};
use crate::report::RunReport;

/// Prints a VM run's figures, and the per-segment table when `segments`.
pub fn print_metered(report: &RunReport, segments: bool) {
    let (Some(insns), Some(cells), Some(memory), Some(segs)) = (
        report.instructions,
        report.main_cells,
        report.memory_bytes,
        report.segments,
    ) else {
        println!("  wall time        {:.2} s", report.wall_s);
        return;
    };
    println!("  instructions     {insns}");
    println!("  main cells       {cells}");
    println!("  memory bytes     {memory}");
    println!("  segments         {segs}");
    println!(
        "  wall time        {:.2} s ({:.1} M instructions/s)",
        report.wall_s,
        report.throughput.unwrap_or_default() / 1e6
    );
    if let (true, Some(stats)) = (segments, &report.segment_stats) {
        println!("  | segment | instructions | main cells | memory bytes | ended by |");
        for (k, s) in stats.iter().enumerate() {
            println!(
                "  | {k} | {} | {} | {} | {} |",
                s.instructions, s.main_cells, s.memory_bytes, s.end
            );
        }
    }
}

/// Prints `host compare`'s tables.
pub fn print_comparison(comparison: &Comparison) {
    println!(
        "\nblock {}: OpenVM's stock keccak ({} baseline) versus ours (metered)\n",
        comparison.block,
        comparison.baseline.name()
    );
    print!("{}", comparison_table(comparison));
    println!();
    print!("{}", census_table(comparison));
    println!();
    print!("{}", sponge_table(comparison));
}

/// Prints one precompile census (`host census`).
pub fn print_precompile_census(census: &PrecompileCensus) {
    println!("\nblock {}: precompile census\n", census.block);
    print!("{}", precompile_table(census));
}

/// `host compare`'s table: metric, baseline, ours, delta, delta %.
pub fn comparison_table(c: &Comparison) -> String {
    let rows = [
        ("instructions", c.stock.instructions, c.ours.instructions),
        ("main cells", c.stock.main_cells, c.ours.main_cells),
        ("memory bytes", c.stock.memory_bytes, c.ours.memory_bytes),
        ("segments", c.stock.segments, c.ours.segments),
    ];
    let mut out = format!(
        "| metric | stock ({}) | ours | delta | delta % |\n|---|---:|---:|---:|---:|\n",
        c.baseline.name()
    );
    for (name, stock, ours) in rows {
        out += &delta_row(name, stock.unwrap_or_default(), ours.unwrap_or_default());
    }
    out
}

fn delta_row(name: &str, stock: u64, ours: u64) -> String {
    let (s, o) = (stock as i128, ours as i128);
    let pct = if s == 0 {
        0.0
    } else {
        (o - s) as f64 * 100.0 / s as f64
    };
    format!("| {name} | {s} | {o} | {:+} | {pct:+.2}% |\n", o - s)
}

/// What keccak cost each build, measured alike (the keccak chips' rows and cells in the
/// metered run, the guest's heap in the census build).
pub fn census_table(c: &Comparison) -> String {
    let (s, o) = (&c.census.stock, &c.census.ours);
    let rows = [
        ("KECCAKF instructions", s.keccakf, o.keccakf),
        ("XORIN instructions", s.xorin, o.xorin),
        (
            "keccak chips' main cells",
            s.keccak_main_cells,
            o.keccak_main_cells,
        ),
        (
            "guest heap bytes (total)",
            s.guest_heap_bytes,
            o.guest_heap_bytes,
        ),
    ];
    let mut out = format!(
        "| keccak, measured alike | stock ({}) | ours | delta | delta % |\n|---|---:|---:|---:|---:|\n",
        c.baseline.name()
    );
    for (name, stock, ours) in rows {
        out += &delta_row(name, stock, ours);
    }
    out
}

/// Our sponge's own counters (its census build): what explains ours.
pub fn sponge_table(c: &Comparison) -> String {
    let o = c.census.ours_sponge;
    let rows = [
        ("XORIN all aligned", o.xorin_aligned),
        ("XORIN length only unaligned", o.xorin_len_unaligned),
        ("XORIN state pointer unaligned", o.xorin_state_unaligned),
        ("XORIN input pointer unaligned", o.xorin_input_unaligned),
        ("XORIN overlapping", o.xorin_overlapping),
        ("bytes XORed in software", o.software_bytes),
        ("bytes staged on the stack", o.staged_bytes),
        ("KECCAKF calls", o.keccakf),
        ("keccak heap bytes", o.keccak_heap_bytes),
    ];
    let mut out = String::from("| our sponge's counters | ours |\n|---|---:|\n");
    for (name, n) in rows {
        out += &format!("| {name} | {n} |\n");
    }
    out
}

/// A precompile census's table: operation, calls, instructions, per call, share of the block.
pub fn precompile_table(census: &PrecompileCensus) -> String {
    let mut out = format!(
        "| {} crypto | calls | instructions | per call | share of block |\n|---|---:|---:|---:|---:|\n",
        census.crypto.name()
    );
    for cost in census.ops.iter().filter(|c| c.calls > 0) {
        let n = cost.instructions.unwrap_or_default();
        out += &format!(
            "| {} | {} | {n} | {} | {:.2}% |\n",
            cost.op,
            cost.calls,
            n / u64::from(cost.calls),
            n as f64 * 100.0 / census.block_instructions.max(1) as f64
        );
    }
    out += &format!(
        "| block (census build) | | {} | | 100% |\n",
        census.block_instructions
    );
    out
}

/// Prints that the guest agreed with the native run in the VM.
pub fn print_vm_run(report: &RunReport) {
    println!(
        "block {} VALID in the VM ({:?}, keccak {}, crypto {}): public values match the native run",
        report.block,
        report.mode,
        report.keccak.map_or("-", |k| k.name()),
        report.crypto.map_or("-", |c| c.name()),
    );
}

/// Prints where a metered run's cells go (`host run --airs`): per AIR, then why each segment
/// ended.
pub fn print_airs(report: &RunReport) {
    let (Some(airs), Some(segments)) = (&report.airs, &report.segment_stats) else {
        return;
    };
    print!("{}", airs_table(airs));
    let mut ends: Vec<(String, usize)> = Vec::new();
    for segment in segments {
        let end = match &segment.end {
            prover::vm::SegmentEnd::Height { air, .. } => format!("height of {air}"),
            prover::vm::SegmentEnd::Memory { .. } => "memory estimate".to_owned(),
            other => other.to_string(),
        };
        match ends.iter_mut().find(|(e, _)| *e == end) {
            Some((_, n)) => *n += 1,
            None => ends.push((end, 1)),
        }
    }
    println!("\n| segments ended by | segments |\n|---|---:|");
    for (end, n) in ends {
        println!("| {end} | {n} |");
    }
}

/// The per-AIR table: name, unpadded rows, main width, main cells, share.
pub fn airs_table(airs: &[prover::vm::AirStats]) -> String {
    let mut out =
        String::from("| AIR | rows | width | main cells | share |\n|---|---:|---:|---:|---:|\n");
    for air in airs {
        out += &format!(
            "| {} | {} | {} | {} | {:.2}% |\n",
            air.name,
            air.rows,
            air.width,
            air.main_cells,
            air.share * 100.0
        );
    }
    out
}

/// Prints a profile's top `n` functions (`host profile`).
pub fn print_profile(profile: &Profile, n: usize) {
    println!(
        "\nblock {}: {} instructions{}; top {n} functions by their own instructions\n",
        profile.block,
        profile.instructions,
        if profile.every > 1 {
            format!(" (one PC sample per {} instructions)", profile.every)
        } else {
            String::new()
        }
    );
    print!("{}", profile_table(profile, n));
}

/// A profile's top `n` functions: name, own instructions, share.
pub fn profile_table(profile: &Profile, n: usize) -> String {
    let mut out = String::from("| function | instructions | share |\n|---|---:|---:|\n");
    for f in profile.functions.iter().take(n) {
        out += &format!(
            "| `{}` | {} | {:.2}% |\n",
            f.name.replace('|', "\\|"),
            f.instructions,
            f.share * 100.0
        );
    }
    out
}

/// `leaf`'s own instructions by caller ([`Profile::callers`]), the top `n`.
pub fn print_callers(profile: &Profile, leaf: &str, n: usize) {
    let callers = profile.callers(leaf);
    let total: u64 = callers.iter().map(|(_, k)| k).sum();
    println!(
        "\n`{leaf}`: {total} instructions ({:.2}% of all), by caller, top {n}\n",
        total as f64 * 100.0 / profile.instructions.max(1) as f64
    );
    println!("| caller | instructions | share of `{leaf}` |\n|---|---:|---:|");
    for (caller, k) in callers.iter().take(n) {
        println!(
            "| `{}` | {k} | {:.1}% |",
            caller.replace('|', "\\|"),
            *k as f64 * 100.0 / total.max(1) as f64
        );
    }
}

/// A flame graph of a profile's call stacks, as a standalone SVG (hover a frame for its name
/// and instructions).
pub fn flamegraph_svg(profile: &Profile) -> String {
    // The call tree with inclusive counts: (name, total, children by name).
    struct Node {
        name: String,
        total: u64,
        children: Vec<Node>,
    }
    fn insert(node: &mut Node, path: &[&str], n: u64) {
        node.total += n;
        if let Some((first, rest)) = path.split_first() {
            let k = match node.children.iter().position(|c| c.name == *first) {
                Some(k) => k,
                None => {
                    node.children.push(Node {
                        name: (*first).to_owned(),
                        total: 0,
                        children: Vec::new(),
                    });
                    node.children.len() - 1
                }
            };
            insert(&mut node.children[k], rest, n);
        }
    }
    fn escape(s: &str) -> String {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    }
    const WIDTH: f64 = 1600.0;
    const ROW: f64 = 17.0;
    #[allow(clippy::too_many_arguments)]
    fn draw(
        node: &Node,
        x: f64,
        depth: usize,
        total: u64,
        out: &mut String,
        max_depth: &mut usize,
    ) {
        let w = WIDTH * node.total as f64 / total.max(1) as f64;
        if w < 0.3 {
            return;
        }
        *max_depth = (*max_depth).max(depth);
        let y = depth as f64 * ROW;
        let hue = 20 + (node.name.bytes().map(u32::from).sum::<u32>() % 40);
        let label = if w > 40.0 {
            let chars = ((w - 6.0) / 7.0) as usize;
            let mut text: String = node.name.chars().take(chars).collect();
            if text.len() < node.name.len() {
                text.pop();
                text.push('…');
            }
            escape(&text)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "<g><title>{} ({} instructions, {:.2}%)</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"hsl({hue},80%,60%)\"/><text x=\"{:.1}\" y=\"{:.1}\">{label}</text></g>\n",
            escape(&node.name),
            node.total,
            node.total as f64 * 100.0 / total.max(1) as f64,
            ROW - 1.0,
            x + 3.0,
            y + ROW - 5.0,
        ));
        let mut cx = x;
        for child in &node.children {
            draw(child, cx, depth + 1, total, out, max_depth);
            cx += WIDTH * child.total as f64 / total.max(1) as f64;
        }
    }
    let mut root = Node {
        name: format!(
            "block {} ({} instructions)",
            profile.block, profile.instructions
        ),
        total: 0,
        children: Vec::new(),
    };
    for (stack, n) in &profile.stacks {
        insert(&mut root, &stack.split(';').collect::<Vec<_>>(), *n);
    }
    let mut body = String::new();
    let mut depth = 0;
    draw(&root, 0.0, 0, root.total, &mut body, &mut depth);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{}\" font-family=\"monospace\" font-size=\"11\">\n{body}</svg>\n",
        (depth + 1) as f64 * ROW
    )
}

/// The page census: per segment, then the functions and heap MiB that touch the most pages.
pub fn print_pages(census: &crate::measure::pages::PageCensus, top: usize) {
    println!("| segment | instructions | pages | stack | data | heap | fresh |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for (i, s) in census.segments.iter().enumerate() {
        println!(
            "| {i} | {} | {} | {} | {} | {} | {} |",
            s.instructions, s.pages, s.stack, s.data, s.heap, s.fresh
        );
    }
    let total: u64 = census.segments.iter().map(|s| s.pages).sum();
    println!(
        "\n{total} page touches (a page once per segment), {} distinct pages, heap from {:#x}\n",
        census.distinct, census.heap_start
    );
    println!("| function | page touches | share |");
    println!("|---|---:|---:|");
    for (name, n) in census.functions.iter().take(top) {
        println!(
            "| {name} | {n} | {:.2}% |",
            100.0 * *n as f64 / total.max(1) as f64
        );
    }
    println!("\n| heap MiB | page touches |");
    println!("|---:|---:|");
    for (mib, n) in census.heap_mib.iter().enumerate() {
        println!("| {mib} | {n} |");
    }
}
