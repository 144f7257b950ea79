//! Mainnet block 24171384 (and the default devnet block) as the guest in the OpenVM VM (CPU): valid, with the public values
//! (block hash, parent hash, post-state root) of the native run, under both keccak variants.
//! The first run builds the guest ELFs with openvm-build (minutes); later runs reuse them.

use host::report::{run_in_vm, Mode};
use host::vm::Keccak;
use tests::shared_blocks_dir;

#[test]
fn block_24171384_runs_in_the_vm_with_both_keccaks() {
    let dir = shared_blocks_dir().join("mainnet");
    let native = host::run::run_native(&dir, "24171384", None).unwrap();
    assert!(native.verdict.is_ok());
    // Metered with ours: the public values are checked against the native run inside.
    let ours = run_in_vm(&native, Mode::Metered, Keccak::Ours).unwrap_or_else(|e| panic!("{e}"));
    assert!(ours.valid);
    let (insns, cells, memory, segments) = (
        ours.instructions.unwrap(),
        ours.main_cells.unwrap(),
        ours.memory_bytes.unwrap(),
        ours.segments.unwrap(),
    );
    assert!(insns > 0 && cells > 0 && memory > 0 && segments >= 1);
    let per_segment = ours.segment_stats.as_ref().unwrap();
    assert_eq!(
        per_segment.iter().map(|s| s.instructions).sum::<u64>(),
        insns
    );
    println!("24171384 (ours): {insns} instructions, {cells} main cells, {memory} memory bytes, {segments} segments");
    // Stock executes to the same public values.
    let stock = run_in_vm(&native, Mode::Execute, Keccak::Stock).unwrap_or_else(|e| panic!("{e}"));
    assert!(stock.valid);
}

/// The default block of `host run` (the generated `devnet`, 10 transactions) in the VM:
/// valid, with the native run's public values, in more than one segment.
#[test]
fn the_default_devnet_block_runs_in_the_vm() {
    let blocks = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../blocks");
    let native = host::run::run_native(&blocks, host::blocks::DEFAULT_BLOCK, None).unwrap();
    assert!(native.verdict.is_ok());
    let report = run_in_vm(&native, Mode::Metered, Keccak::Ours).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.valid);
    let (insns, segments) = (report.instructions.unwrap(), report.segments.unwrap());
    println!("devnet (ours): {insns} instructions, {segments} segments");
    assert!(
        segments > 1,
        "ten signature recoveries alone exceed one segment"
    );
}
