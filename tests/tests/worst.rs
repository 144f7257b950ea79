//! The worst-case suite (`host gen --worst`): every category makes a block on the devnet chain
//! that spends its gas on its one thing, valid natively (the generator seals it with the
//! validator's executor and validates it; every transaction succeeds unless the category ends
//! out of gas by design), read back from its files, and valid in the VM. Gas is scaled down to
//! what a few rounds of each loop need.

use host::gen::worst::{self, WorstError, CATEGORIES};
use host::gen::Fork;
use host::guest::{Crypto, GuestSpec, Keccak};
use host::report::{run_in_vm, Mode};

/// The smallest gas a few rounds of `category`'s loop need, at least 300,000.
fn small(category: &'static worst::Category, fork: Fork) -> worst::WorstBlock {
    match worst::generate(category, 300_000, fork) {
        Err(WorstError::TooLittleGas { needs, .. }) => {
            worst::generate(category, needs + 100_000, fork).unwrap()
        }
        made => made.unwrap_or_else(|e| panic!("{}: {e}", category.name)),
    }
}

#[test]
fn every_category_makes_a_block_valid_natively_and_in_the_vm() {
    let dir = std::env::temp_dir().join(format!("sv-worst-{}", std::process::id()));
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    for (i, category) in CATEGORIES.iter().enumerate() {
        let made = small(category, Fork::Osaka);
        let block = &made.block;
        // It spends its gas: the loop runs until a round would not fit.
        let limit: u64 = worst::split(300_000).iter().sum::<u64>().max(1);
        assert!(block.output.gas_used > 0, "{}", category.name);
        assert!(
            block.output.gas_used * 10 >= limit * 7 || block.output.gas_used > 300_000,
            "{}: {} gas used",
            category.name,
            block.output.gas_used
        );
        block.write(&dir, &made.chain_json).unwrap();
        let native = host::native::run_native(&dir, &block.id, None).unwrap();
        let out = native.verdict.as_ref().unwrap();
        assert_eq!(out.block_hash, block.output.block_hash, "{}", category.name);
        let report = run_in_vm(&native, Mode::Execute, spec).unwrap();
        assert!(report.valid, "{}: {:?}", category.name, report.error);
        eprintln!(
            "[{}/{}] {}: {} gas, valid natively and in the VM",
            i + 1,
            CATEGORIES.len(),
            block.id,
            out.gas_used
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn generation_is_deterministic_and_refuses_what_it_cannot_make() {
    let category = worst::category("sstore-cold").unwrap();
    let a = worst::generate(category, 200_000, Fork::Osaka).unwrap();
    let b = worst::generate(category, 200_000, Fork::Osaka).unwrap();
    assert_eq!(a.block.block_rlp, b.block.block_rlp);
    assert_eq!(a.block.witness.state, b.block.witness.state);
    // Osaka's transaction cap: 60 M gas takes four transactions.
    assert_eq!(worst::split(60_000_000).len(), 4);
    assert!(worst::split(60_000_000)
        .iter()
        .all(|&g| g <= worst::TX_GAS_CAP));
    // P256VERIFY is Osaka's; under Prague there is no such precompile.
    let p256 = worst::category("p256verify").unwrap();
    let err = worst::generate(p256, 300_000, Fork::Prague).err().unwrap();
    assert!(
        matches!(err, WorstError::NoPrecompile { number: 0x100, .. }),
        "{err}"
    );
    // An input revm's precompile refuses is named, never used.
    let err = worst::inputs::call(Fork::Osaka, 0x0b, &[0u8; 10]).unwrap_err();
    assert!(
        matches!(err, WorstError::Refused { number: 0x0b, .. }),
        "{err}"
    );
    assert!(matches!(
        worst::category("no-such-thing"),
        Err(WorstError::Unknown(_))
    ));
    // Too little gas for one round of the loop.
    let pairing = worst::category("bls12-pairing-8").unwrap();
    let err = worst::generate(pairing, 100_000, Fork::Osaka)
        .err()
        .unwrap();
    assert!(matches!(err, WorstError::TooLittleGas { .. }), "{err}");
}
