//! The keccak path proved, not only executed: the `keccak_alignment` guest (every misalignment,
//! chunkings over each residue mod 4 and the rate boundary, overlapping operands, asserted in
//! the VM) is proved and verified for both keccak variants. Execution would not catch a
//! misused XORIN (unaligned pointer, ragged length); the prover does. The proof also goes
//! through a proof file, and tampered claims or proofs are rejected.

use host::proof::{self, ProofError};
use host::vm::{build_guest_bin, Keccak, Vm};

/// Small segments: the program is under a million instructions.
const LOG_STACKED_HEIGHT: usize = 20;
const PUBLIC_VALUES: usize = 32;

fn prove(variant: Keccak) -> proof::ProofFile {
    let elf = build_guest_bin("keccak_alignment", variant, &[]).unwrap_or_else(|e| panic!("{e}"));
    // Its assertions run during execution: a failure is a guest panic.
    let (_, metering) = Vm::new(elf, PUBLIC_VALUES)
        .and_then(|vm| vm.metered(&[]))
        .unwrap_or_else(|e| panic!("{e}"));
    let (file, elapsed) = proof::prove(
        "keccak_alignment",
        variant,
        PUBLIC_VALUES,
        LOG_STACKED_HEIGHT,
        &[],
    )
    .unwrap_or_else(|e| panic!("{}: {e}", variant.name()));
    println!(
        "keccak_alignment ({}): {} instructions, {} segment(s) proved in {:.1} s",
        variant.name(),
        metering.instructions,
        file.proof.per_segment.len(),
        elapsed.as_secs_f64()
    );
    // The program reveals 1 as its first word.
    assert_eq!(&file.public_values[..4], &[1, 0, 0, 0]);
    file
}

/// One test, both variants in turn: two provers at once would need twice the memory
/// (~14 GB together on this machine).
#[test]
fn keccak_alignment_proves_and_verifies_with_both_keccaks() {
    let ours = prove(Keccak::Ours);
    let path = std::env::temp_dir().join(format!("keccak-alignment-{}.proof", std::process::id()));
    proof::write(&path, &ours).unwrap();
    let mut file = proof::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(proof::verify(&file).unwrap(), ours.public_values);

    // A claim the proof does not commit to.
    file.public_values[0] = 2;
    assert!(matches!(
        proof::verify(&file),
        Err(ProofError::PublicValues { .. })
    ));
    file.public_values[0] = 1;
    // A proof whose committed public values were edited.
    let original = file.proof.user_public_values.public_values[0];
    file.proof.user_public_values.public_values[0] = original + original;
    assert!(
        matches!(proof::verify(&file), Err(ProofError::Vm(_))),
        "an edited proof verified"
    );
    file.proof.user_public_values.public_values[0] = original;
    // A valid proof of another program (ours) presented as the stock build's.
    file.keccak = Keccak::Stock;
    let err = proof::verify(&file).expect_err("a proof of another program verified");
    println!("proof of ours presented as stock: {err}");
    file.keccak = Keccak::Ours;
    proof::verify(&file).unwrap();

    let stock = prove(Keccak::Stock);
    assert_eq!(proof::verify(&stock).unwrap(), stock.public_values);
}
