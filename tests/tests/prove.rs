//! The keccak path proved, not only executed: the `keccak_alignment` guest (every misalignment,
//! chunkings over each residue mod 4 and the rate boundary, overlapping operands, asserted in
//! the VM) is proved and verified for both keccak variants. Execution would not catch a
//! misused XORIN (unaligned pointer, ragged length); the prover does.

use host::vm::{build_guest_bin, prove_and_verify, Keccak, Vm};

/// Small segments: the program is tens of thousands of instructions.
const LOG_STACKED_HEIGHT: usize = 20;

fn prove(variant: Keccak) {
    let elf = build_guest_bin("keccak_alignment", variant, &[]).unwrap_or_else(|e| panic!("{e}"));
    // Its assertions run during execution: a failure is a guest panic.
    let (_, metering) = Vm::new(elf.clone(), 32)
        .and_then(|vm| vm.metered(&[]))
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "keccak_alignment ({}): {} instructions",
        variant.name(),
        metering.instructions
    );
    let summary = prove_and_verify(elf, 32, LOG_STACKED_HEIGHT, &[])
        .unwrap_or_else(|e| panic!("{}: {e}", variant.name()));
    println!(
        "keccak_alignment ({}): {} segment(s) proved in {:.1} s, verified in {:.2} s",
        variant.name(),
        summary.segments,
        summary.prove_time.as_secs_f64(),
        summary.verify_time.as_secs_f64()
    );
    assert!(summary.segments >= 1);
}

#[test]
fn keccak_alignment_proves_and_verifies_with_ours() {
    prove(Keccak::Ours);
}

#[test]
fn keccak_alignment_proves_and_verifies_with_stock() {
    prove(Keccak::Stock);
}
