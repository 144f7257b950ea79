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
/// valid, with the native run's public values, with secp256k1 on OpenVM's chips and in
/// software (the build switch); the chips take most of the work off the RISC-V core.
#[test]
fn the_default_devnet_block_runs_in_the_vm_with_both_cryptos() {
    use host::report::run_in_vm_with;
    use host::vm::Crypto;
    let blocks = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../blocks");
    let native = host::run::run_native(&blocks, host::blocks::DEFAULT_BLOCK, None).unwrap();
    assert!(native.verdict.is_ok());
    let mut instructions = Vec::new();
    for crypto in [Crypto::Openvm, Crypto::Software] {
        let report = run_in_vm_with(&native, Mode::Metered, Keccak::Ours, crypto)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(report.valid);
        let (insns, segments) = (report.instructions.unwrap(), report.segments.unwrap());
        println!(
            "devnet ({}): {insns} instructions, {segments} segments",
            crypto.name()
        );
        instructions.push(insns);
    }
    // Ten software recoveries cost ~11.6 M instructions each.
    assert!(
        instructions[0] * 5 < instructions[1],
        "chips {} vs software {}",
        instructions[0],
        instructions[1]
    );
}

/// secp256k1 recovery on OpenVM's chips against k256: random keys and messages, low and
/// high `s`, the wrong parity, and invalid signatures, asserted inside the VM.
#[test]
fn secp256k1_recovery_on_the_chips_matches_k256() {
    use alloy_primitives::{Address, Signature, U256};
    use k256::ecdsa::SigningKey;
    use rand::{rngs::SmallRng, Rng, SeedableRng};
    let order = U256::from_be_bytes(alloy_primitives::hex!(
        "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"
    ));
    let record = |r: U256, s: U256, v: u8, prehash: [u8; 32], address: Option<Address>| {
        let mut out = r.to_be_bytes::<32>().to_vec();
        out.extend_from_slice(&s.to_be_bytes::<32>());
        out.push(v);
        out.extend_from_slice(&prehash);
        out.extend_from_slice(address.unwrap_or_default().as_slice());
        out.push(address.is_some() as u8);
        out
    };
    let mut rng = SmallRng::seed_from_u64(11);
    let mut input = Vec::new();
    let mut records = 0;
    for _ in 0..24 {
        let key = SigningKey::from_slice(&rng.random::<[u8; 32]>()).unwrap();
        let address = Address::from_public_key(key.verifying_key());
        let prehash: [u8; 32] = rng.random();
        let (sig, id) = key.sign_prehash_recoverable(&prehash).unwrap();
        let sig = Signature::from((sig, id));
        let (r, s, v) = (sig.r(), sig.s(), u8::from(sig.v()));
        input.extend(record(r, s, v, prehash, Some(address)));
        input.extend(record(r, order - s, v ^ 1, prehash, Some(address)));
        // The wrong parity: whatever k256 recovers (another key, or nothing).
        let other = Signature::new(r, s, v == 0)
            .recover_address_from_prehash(&prehash.into())
            .ok();
        assert_ne!(other, Some(address));
        input.extend(record(r, s, v ^ 1, prehash, other));
        records += 3;
    }
    let one = U256::from(1);
    for (r, s) in [
        (U256::ZERO, one),
        (one, U256::ZERO),
        (order, one),
        (one, order),
    ] {
        input.extend(record(r, s, 0, [7; 32], None));
        records += 1;
    }
    let elf = host::vm::build_guest_bin("ecrecover_check", Keccak::Ours, &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let public = host::vm::Vm::new(elf, 32)
        .and_then(|vm| vm.execute(&input))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(u32::from_le_bytes(public[..4].try_into().unwrap()), records);
}
