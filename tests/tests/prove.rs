//! The keccak path proved, not only executed: the `keccak_alignment` guest (every misalignment,
//! chunkings over each residue mod 4 and the rate boundary, overlapping operands, asserted in
//! the VM) is proved and verified with this project's sponge. Execution would not catch a
//! misused XORIN (unaligned pointer, ragged length); the prover does. The proof also goes
//! through a proof file, and tampered claims or proofs are rejected. The stock-keccak build
//! (the comparison baseline) runs the same assertions in the VM and has its own program
//! commitment; it is not proved: its sponge is OpenVM's, which stages every operand in aligned
//! heap buffers, so its proof would test none of this project's code (it was 2.5 minutes of
//! CI's time).
//!
//! A whole block is proved by a cluster of worker processes and aggregated in
//! `host/tests/cluster_proof.rs`.

use prover::guest::{GuestSpec, Keccak, Program, PREBUILT_ENV};
use prover::proof::{self, Limits, Proof, ProofError, ProofKind};
use prover::vm::Vm;

/// Small segments: the program is under a million instructions. 21 is the least that holds the
/// VM's range-tuple table (`prover::proof::fixed_table_log_height`).
const LOG_STACKED_HEIGHT: usize = 21;
const PUBLIC_VALUES: usize = 32;

/// The guest built with `variant`, run metered in the VM: its assertions run during
/// execution, so a failure is a guest panic. Its instruction count.
fn run(variant: Keccak) -> u64 {
    let elf = GuestSpec::program(Program::KeccakAlignment, variant)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, metering) = Vm::new(elf, PUBLIC_VALUES)
        .and_then(|vm| vm.metered(&[]))
        .unwrap_or_else(|e| panic!("{e}"));
    metering.instructions
}

fn prove(variant: Keccak) -> proof::ProofFile {
    let instructions = run(variant);
    let (file, report) = proof::prove(
        GuestSpec::program(Program::KeccakAlignment, variant),
        Limits::height(LOG_STACKED_HEIGHT),
        &[],
        ProofKind::App,
    )
    .unwrap_or_else(|e| panic!("{}: {e}", variant.name()));
    println!(
        "keccak_alignment ({}): {} instructions, {} segment(s) proved in {:.1} s",
        variant.name(),
        instructions,
        file.segments,
        report.total.as_secs_f64()
    );
    // The program reveals 1 as its first word.
    assert_eq!(&file.public_values[..4], &[1, 0, 0, 0]);
    file
}

/// The Int256 multiplier's range-tuple table (2^8 × 32·2^8 rows) sets the floor, and a lower
/// request is raised to it.
#[test]
fn the_stacked_height_holds_the_fixed_tables() {
    assert_eq!(proof::fixed_table_log_height(), 21);
    let elf = GuestSpec::program(Program::KeccakAlignment, Keccak::Ours)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(proof::fit_program(&elf, 20), 21);
    assert_eq!(proof::fit_program(&elf, 22), 22);
}

#[test]
fn keccak_alignment_proves_and_verifies_and_the_stock_build_runs() {
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
    let Proof::App(app) = &mut file.proof else {
        panic!("an app proof")
    };
    let original = app.user_public_values.public_values[0];
    app.user_public_values.public_values[0] = original + original;
    assert!(
        matches!(proof::verify(&file), Err(ProofError::Vm(_))),
        "an edited proof verified"
    );
    if let Proof::App(app) = &mut file.proof {
        app.user_public_values.public_values[0] = original;
    }
    // A valid proof of another program (ours) presented as the stock build's: refused for its
    // program commitment (not for a build or any other failure).
    file.subject.keccak = Keccak::Stock;
    match proof::verify(&file) {
        Err(ProofError::Vm(prover::vm::VmError::Vm(message))) => {
            assert!(message.contains("exe commit mismatch"), "{message}")
        }
        other => panic!("a proof of another program: {:?}", other.err()),
    }
    file.subject.keccak = Keccak::Ours;
    proof::verify(&file).unwrap();

    // A folder of prebuilt guests (`$STATELESS_VERIFIER_GUESTS`, the GPU bundle's) is the
    // prover's input, not the verifier's: whoever can write it would otherwise choose the
    // program a proof is checked against. Plant the stock build's ELF where ours would be: the
    // prover side reads it, the verifier still rebuilds ours from source and accepts the proof.
    // (The variable is set for this one call; the binary's other test ends in seconds, long
    // before this proof does.)
    let folder = std::env::temp_dir().join(format!("prebuilt-guests-{}", std::process::id()));
    let spec = GuestSpec::program(Program::KeccakAlignment, Keccak::Ours);
    let planted = spec.prebuilt_path(&folder);
    std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
    let stock_elf = GuestSpec::program(Program::KeccakAlignment, Keccak::Stock)
        .build_bytes()
        .unwrap();
    std::fs::write(&planted, &stock_elf).unwrap();
    std::env::set_var(PREBUILT_ENV, &folder);
    let read = spec.build_bytes();
    let verified = proof::verify(&file);
    std::env::remove_var(PREBUILT_ENV);
    let _ = std::fs::remove_dir_all(&folder);
    assert_eq!(read.unwrap(), stock_elf, "the prover reads the folder");
    assert_eq!(
        verified.unwrap_or_else(|e| panic!("the verifier read the planted guest: {e}")),
        ours.public_values
    );

    // The stock build passes the same assertions in the VM (not proved: see the module doc).
    let stock = run(Keccak::Stock);
    println!("keccak_alignment (stock): {stock} instructions, run in the VM");
}
