//! Everything the `host` commands print: verdicts, reports, tables (Markdown, so BENCHMARKS.md
//! takes them as they are) and JSON files. The commands compute; this module only renders.

use std::process::ExitCode;

use program::{PublicValues, Verdict};

use crate::ef_tests::{vm::VmSample, Outcome, Summary};
use crate::fetch::{BlockSource, FetchReport};
use crate::inspect::{RootSource, WitnessReport};
use crate::measure::profile::Profile;
use crate::measure::{Comparison, PrecompileCensus};
use crate::native::NativeRun;
use crate::proof::{ProofFile, ProofKind, ProveReport};
use crate::report::RunReport;

/// Prints a native run's verdict; returns its exit status (0 valid, 1 invalid, 2 unusable,
/// 3 witness insufficient).
pub fn print_run(run: &NativeRun) -> ExitCode {
    let fork = run.fork;
    let verdict = Verdict::of(&run.verdict);
    match &run.verdict {
        Ok(out) => {
            println!("block {} VALID natively ({fork:?})", run.data.id);
            println!("  block hash       {}", out.block_hash);
            println!("  parent hash      {}", out.parent_hash);
            println!("  pre-state root   {}", out.pre_state_root);
            println!("  post-state root  {}", out.post_state_root);
            println!("  chain digest     {}", run.chain.digest());
            println!("  transactions     {}", out.tx_count);
            println!("  gas used         {}", out.gas_used);
            println!(
                "  time             {:.1} ms",
                run.elapsed.as_secs_f64() * 1e3
            );
        }
        Err(e) => {
            let word = match verdict {
                Verdict::Insufficient => "WITNESS INSUFFICIENT",
                Verdict::Unusable => "UNUSABLE",
                _ => "INVALID",
            };
            println!("block {} {word} ({fork:?}): {e}", run.data.id);
            if verdict == Verdict::Insufficient {
                println!(
                    "  the witness lacks data the block needs: this says nothing about the block"
                );
            }
        }
    }
    ExitCode::from(verdict.exit_code())
}

/// Prints a block proof's public values, and the chain they were checked against.
pub fn print_public_values(values: &PublicValues, chain: Option<&str>) {
    println!("  block hash       {}", values.block_hash);
    println!("  parent hash      {}", values.parent_hash);
    println!("  post-state root  {}", values.post_state_root);
    match chain {
        Some(name) => println!("  chain            {name} ({})", values.chain_digest),
        None => println!("  chain digest     {}", values.chain_digest),
    }
}

/// Prints what a witness holds and reaches (`host witness`).
pub fn print_witness(r: &WitnessReport) {
    let source = match r.pre_state_root.1 {
        RootSource::ParentHeader => "parent header",
        RootSource::Given => "given",
    };
    println!("block {} ({})", r.block, r.block_hash);
    println!(
        "witness: {} nodes ({} distinct, {} bytes), {} codes, {} headers",
        r.nodes, r.distinct_nodes, r.node_bytes, r.codes, r.headers
    );
    println!("pre-state root {} ({source}): present", r.pre_state_root.0);
    println!(
        "reachable: {} accounts, {} storage tries, {} slots, {} nodes ({} unresolved refs)",
        r.accounts, r.storage_tries, r.slots, r.reached_nodes, r.unresolved
    );
    println!(
        "time: hashing {:.1} ms, walk {:.1} ms",
        r.hash_time.as_secs_f64() * 1e3,
        r.walk_time.as_secs_f64() * 1e3
    );
}

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

/// Writes `value` as pretty JSON to `path`.
pub fn write_json(path: &std::path::Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    std::fs::write(path, serde_json::to_vec_pretty(value)?)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// One line per failed case, the skips by reason, then the closing line.
pub fn print_ef_failures(summary: &Summary) {
    let mut skips: std::collections::BTreeMap<&str, usize> = Default::default();
    for case in &summary.cases {
        match &case.outcome {
            Outcome::Failed(reason) => println!("FAIL {} {}: {reason}", case.file, case.name),
            Outcome::Skipped(reason) => *skips.entry(reason.as_str()).or_default() += 1,
            Outcome::Passed => {}
        }
    }
    for (reason, n) in skips {
        println!("skipped {n}: {reason}");
    }
    println!(
        "{} files, {:.1} s, {:.0} cases/s; {} rejections for another rule than the fixture names",
        summary.files,
        summary.wall_s,
        summary.cases_per_s(),
        summary.exception_mismatches()
    );
    println!(
        "{} passed, {} failed, {} skipped",
        summary.passed, summary.failed, summary.skipped
    );
}

/// The VM sample: each case, every disagreement, the closing line.
pub fn print_ef_vm_sample(sample: &VmSample) {
    for case in &sample.cases {
        println!(
            "  {} {} ({} blocks)",
            case.file.display(),
            case.name,
            case.blocks
        );
    }
    for failure in &sample.failures {
        println!("FAIL {failure}");
    }
    println!(
        "in the VM: {} valid blocks with the native public values, {} rejected blocks rejected, {:.1} s",
        sample.valid_blocks, sample.rejected_blocks, sample.wall_s
    );
    println!(
        "{} passed, {} failed",
        sample.cases.len().saturating_sub(sample.failures.len()),
        sample.failures.len()
    );
}

/// Prints how a block was fetched (`host fetch`, or `host run --rpc-url` on a missing block).
pub fn print_fetched(data: &crate::blocks::BlockData, fetched: &FetchReport) {
    let via = match fetched.source {
        BlockSource::RawBlock => "debug_getRawBlock",
        BlockSource::FullBlock => "eth_getBlockByNumber (re-encoded)",
    };
    let (out, w) = (&fetched.output, &data.witness);
    println!(
        "fetched block {} ({}) via {via}: {} transactions, {} gas",
        data.id, out.block_hash, out.tx_count, out.gas_used
    );
    match &fetched.witness.1 {
        Some(stats) => println!(
            "  witness from proofs (eth_getProof): {} accounts, {} slots, {} deleted; {} requests ({} batches), {} bytes of nodes, codes and headers",
            stats.accounts, stats.slots, stats.deleted, stats.requests, stats.batches, stats.bytes
        ),
        None => println!("  witness from debug_executionWitness"),
    }
    println!(
        "  witness: {} nodes, {} codes, {} headers; VALID natively",
        w.state.len(),
        w.codes.len(),
        w.headers.len()
    );
    println!(
        "  wrote {} and {}",
        fetched.paths.0.display(),
        fetched.paths.1.display()
    );
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

/// Prints what proving cost (`host prove`, a part or a join): per segment, per aggregation
/// stage, the keys, peak memory.
pub fn print_prove_report(report: &ProveReport) {
    let times = &report.segment_times;
    if !times.is_empty() {
        println!(
            "  execution        {:.1} s (metered run and replay)",
            report.execution.as_secs_f64()
        );
        let sum: f64 = times.iter().map(|t| t.as_secs_f64()).sum();
        let max = times.iter().map(|t| t.as_secs_f64()).fold(0.0, f64::max);
        println!(
            "  app segments     {} proved in {sum:.1} s (slowest {max:.1} s)",
            times.len()
        );
    }
    if let Some(agg) = &report.aggregation {
        println!(
            "  aggregation      leaf {:.1} s, internal {:.1} s",
            agg.leaf.as_secs_f64(),
            agg.internal.as_secs_f64()
        );
    }
    if let Some(keys) = &report.keys {
        let how = keys.generated.map_or_else(
            || "cached".to_owned(),
            |t| format!("generated in {:.1} s", t.as_secs_f64()),
        );
        println!(
            "  aggregation keys {} ({} KB, {how})",
            keys.path.display(),
            keys.bytes / 1000
        );
    }
    println!("  total            {:.1} s", report.total.as_secs_f64());
    if let Some(rss) = report.peak_rss {
        println!(
            "  peak memory      {:.2} GB (process peak RSS)",
            rss as f64 / 1e9
        );
    }
}

/// Prints a proof written by `host prove`.
pub fn print_proved(block: &str, file: &ProofFile, out: &std::path::Path, report: &ProveReport) {
    let size = std::fs::metadata(out).map_or(0, |m| m.len());
    println!(
        "proved block {block}: {}, {size} bytes -> {}",
        proof_summary(file),
        out.display()
    );
    print_prove_report(report);
    if let Some(values) = PublicValues::from_bytes(&file.public_values) {
        println!("  public values (in the proof file):");
        print_public_values(&values, None);
    }
}

fn proof_summary(file: &ProofFile) -> String {
    let kind = match file.proof.kind() {
        ProofKind::Stark => "one aggregated STARK",
        ProofKind::App => "app proof, one STARK per segment",
    };
    format!(
        "{} {}, {} segment(s), {kind}",
        file.subject.bin,
        file.subject.keccak.name(),
        file.segments
    )
}

/// Prints a proof's verification (`host verify`): `VALID` with what it proves (`show`), or
/// `INVALID` with why; returns the exit status.
pub fn print_verified<T>(
    path: &std::path::Path,
    file: &ProofFile,
    verdict: &Result<T, String>,
    show: impl FnOnce(&T),
) -> ExitCode {
    match verdict {
        Ok(proved) => {
            println!("proof {} VALID ({})", path.display(), proof_summary(file));
            show(proved);
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("proof {} INVALID: {e}", path.display());
            ExitCode::from(1)
        }
    }
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
            crate::vm::SegmentEnd::Height { air, .. } => format!("height of {air}"),
            crate::vm::SegmentEnd::Memory { .. } => "memory estimate".to_owned(),
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
pub fn airs_table(airs: &[crate::vm::AirStats]) -> String {
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
