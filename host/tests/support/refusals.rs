//! Every refusal of a sound aggregated block proof presented wrongly: to `host verify` (another
//! chain's config, another guest, with `--other-program`) and to the verifiers (short public
//! values, another VM layout or segment height, a claim the proof does not commit to, another
//! program, flipped bits, a truncated file), each with its own error.

use std::path::Path;

use host::native::NativeRun;
use prover::guest::Keccak;
use prover::proof::{self, Proof, ProofError, Verifier};

use super::cli::host_status;

/// The refusals of `joined`, a sound proof of the devnet block `native` (scratch files go in
/// `dir`), by `host verify` and by `pinned` (the repository's pin); with `--other-program`,
/// by another program rebuilt from source.
pub fn every_refusal(joined: &Path, dir: &Path, pinned: &Verifier, native: &NativeRun) {
    let file = proof::read(joined).unwrap();
    // A sound proof under the devnet's config, verified as mainnet's: named as another chain's,
    // with the flag that accepts it; exit 2, not INVALID.
    let (code, stdout) = host_status(&["verify", joined.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stdout}");
    assert!(
        stdout.contains("OTHER CHAIN") && stdout.contains("verify with --chain devnet"),
        "{stdout}"
    );
    match pinned.verify_block(&file, &program::ChainConfig::mainnet(), "mainnet") {
        Err(proof::BlockProofError::ChainDigest { proved_name, .. }) => {
            assert_eq!(proved_name, Some("devnet"))
        }
        other => panic!("expected another chain's digest, got {:?}", other.err()),
    }
    // A proof presented as one of another guest: named as such, exit 3; with --other-program
    // it is checked against that program, and refused.
    let mut probe = proof::read(joined).unwrap();
    probe.subject.bin = "keccak_alignment".into();
    let probe_path = dir.join("probe.proof");
    proof::write(&probe_path, &probe).unwrap();
    let (code, stdout) = host_status(&["verify", probe_path.to_str().unwrap()]);
    assert_eq!(code, Some(3), "{stdout}");
    assert!(stdout.contains("not the block verifier"), "{stdout}");
    let (code, stdout) = host_status(&["verify", probe_path.to_str().unwrap(), "--other-program"]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("INVALID"), "{stdout}");
    assert!(matches!(
        pinned.verify_block(&probe, &native.chain, "devnet"),
        Err(proof::BlockProofError::NotABlockProof(_))
    ));
    // A proof presented as the stock-keccak build's (a comparison baseline): not a block proof,
    // exit 3, named as such.
    let mut stock = proof::read(joined).unwrap();
    stock.subject.keccak = Keccak::Stock;
    let stock_path = dir.join("stock.proof");
    proof::write(&stock_path, &stock).unwrap();
    let (code, stdout) = host_status(&["verify", stock_path.to_str().unwrap()]);
    assert_eq!(code, Some(3), "{stdout}");
    assert!(
        stdout.contains("built with the stock keccak (a comparison baseline)"),
        "{stdout}"
    );
    assert!(matches!(
        pinned.verify_block(&stock, &native.chain, "devnet"),
        Err(proof::BlockProofError::NotThisKeccak("stock"))
    ));
    // A guest this host does not build: refused by name, by the verifier and by the CLI.
    let mut unknown = proof::read(joined).unwrap();
    unknown.subject.bin = "no_such_guest".into();
    match proof::verify(&unknown) {
        Err(ProofError::UnknownProgram(bin)) => assert_eq!(bin, "no_such_guest"),
        other => panic!("an unknown guest: {:?}", other.err()),
    }
    let unknown_path = dir.join("unknown.proof");
    proof::write(&unknown_path, &unknown).unwrap();
    let (code, stdout) =
        host_status(&["verify", unknown_path.to_str().unwrap(), "--other-program"]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("which this host does not build"),
        "{stdout}"
    );
    // Another file format.
    let mut format = proof::read(joined).unwrap();
    format.format += 1;
    match pinned.verify(&format) {
        Err(ProofError::Format(f)) => assert_eq!(f, file.format + 1),
        other => panic!("another format: {:?}", other.err()),
    }
    // Public values shorter than a block proof's: the claim cut to 100 bytes (the proof commits
    // to them, so only the length is wrong).
    let mut short = proof::read(joined).unwrap();
    short.public_values.truncate(100);
    assert!(matches!(
        pinned.verify_block(&short, &native.chain, "devnet"),
        Err(proof::BlockProofError::ShortPublicValues(100))
    ));
    // Another VM layout (the baseline's public-value count) or aggregation key.
    let mut layout = proof::read(joined).unwrap();
    if let Proof::Stark { baseline, .. } = &mut layout.proof {
        baseline.num_user_pvs += 1;
    }
    match pinned.verify(&layout) {
        Err(ProofError::Baseline { what, .. }) => {
            assert_eq!(what, "VM layout or aggregation verifying keys")
        }
        other => panic!("another VM layout: {:?}", other.err()),
    }
    let mut height = proof::read(joined).unwrap();
    height.subject.log_stacked_height += 1;
    assert!(matches!(
        pinned.verify(&height),
        Err(ProofError::NotPinned { .. })
    ));

    // A claim the proof does not commit to.
    let mut claim = proof::read(joined).unwrap();
    claim.public_values[0] ^= 1;
    assert!(matches!(
        pinned.verify(&claim),
        Err(ProofError::PublicValues { .. })
    ));
    // A flipped bit in the proof's bytes.
    let flip = |file: &mut proof::ProofFile, at: usize| {
        if let Proof::Stark { encoded, .. } = &mut file.proof {
            encoded[at] ^= 0x10;
        }
    };
    let mut flipped = proof::read(joined).unwrap();
    let len = match &flipped.proof {
        Proof::Stark { encoded, .. } => encoded.len(),
        Proof::App(_) => unreachable!(),
    };
    for at in [len / 3, len - 40] {
        flip(&mut flipped, at);
        // Refused by the proof system (or its decoder), not by a build or a file error.
        match pinned.verify(&flipped) {
            Err(ProofError::Vm(prover::vm::VmError::Vm(message))) => {
                println!("bit flipped at byte {at} of {len}: {message}")
            }
            other => panic!("a flipped bit at {at}: {:?}", other.err()),
        }
        flip(&mut flipped, at);
    }
    // A truncated file.
    let bytes = std::fs::read(joined).unwrap();
    let cut = dir.join("cut.proof");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert!(matches!(proof::read(&cut), Err(ProofError::File { .. })));
}
