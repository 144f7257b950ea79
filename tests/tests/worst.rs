//! The worst-case suite (`host gen --worst`): every category makes a block on the devnet chain
//! that spends its gas on its one thing, valid natively (the generator seals it with the
//! validator's executor and validates it; every transaction succeeds unless the category ends
//! out of gas by design), read back from its files, and valid in the VM. Gas is scaled down to
//! what a few rounds of each loop need.

use blockgen::worst::{self, WorstError, CATEGORIES};
use blockgen::Fork;
use host::report::{run_in_vm, Mode};
use prover::guest::{Crypto, GuestSpec, Keccak};
use std::path::Path;

/// The block of the smallest gas a few rounds of `category`'s loop need, at least 300,000;
/// `None` when the fork has no such block.
fn small(category: &'static worst::Category, fork: Fork) -> Option<worst::WorstBlock> {
    match worst::generate(category, 300_000, fork) {
        Err(WorstError::TooLittleGas { needs, .. }) => {
            Some(worst::generate(category, needs + 100_000, fork).unwrap())
        }
        Err(e) if e.not_under_fork() => None,
        made => Some(made.unwrap_or_else(|e| panic!("{}: {e}", category.name))),
    }
}

/// Makes `category`'s small block under `fork`, checks that it spends its gas and is valid
/// natively (and in the VM with `vm`); `None` when the fork has no such block.
fn check(category: &'static worst::Category, fork: Fork, vm: bool, dir: &Path) -> Option<u64> {
    let made = small(category, fork)?;
    let block = &made.block;
    // It spends its gas: the loop runs until a round would not fit. Under Amsterdam the
    // header's gas is the larger of the regular and the state dimension (EIP-8037), not what
    // the transactions spent, so only Osaka's says so (Amsterdam's is checked full-size below).
    let limit: u64 = worst::split(300_000).iter().sum::<u64>().max(1);
    assert!(block.output.gas_used > 0, "{}", category.name);
    assert!(
        fork == Fork::Amsterdam
            || block.output.gas_used * 10 >= limit * 7
            || block.output.gas_used > 300_000,
        "{} ({fork:?}): {} gas used",
        category.name,
        block.output.gas_used
    );
    block.write(dir, &made.chain_json).unwrap();
    let native = host::native::run_native(dir, &block.id, None).unwrap();
    let out = native.verdict.as_ref().unwrap();
    assert_eq!(out.block_hash, block.output.block_hash, "{}", category.name);
    if vm {
        let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
        let report = run_in_vm(&native, Mode::Execute, spec).unwrap();
        assert!(
            report.valid,
            "{} ({fork:?}): {:?}",
            category.name, report.error
        );
    }
    Some(out.gas_used)
}

#[test]
fn every_category_makes_a_block_valid_natively_and_in_the_vm() {
    let dir = std::env::temp_dir().join(format!("sv-worst-{}", std::process::id()));
    let mut made = 0;
    for (i, category) in CATEGORIES.iter().enumerate() {
        let Some(gas) = check(category, Fork::Osaka, true, &dir) else {
            continue;
        };
        made += 1;
        eprintln!(
            "[{}/{}] worst-{}: {gas} gas, valid natively and in the VM",
            i + 1,
            CATEGORIES.len(),
            category.name,
        );
    }
    // Every category but EIP-7954's 64 KiB codes (five) exists under Osaka.
    assert_eq!(made, CATEGORIES.len() - 5);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Under Amsterdam's pricing (EIP-8037 state gas, EIP-8038 state access, EIP-2780's base,
/// EIP-7976's calldata floor, EIP-7954's code size) every category makes a valid block; the
/// ones whose prices or sizes Amsterdam changes run in the VM too (the precompiles are
/// Osaka's, run in the VM above).
#[test]
fn every_category_makes_a_block_under_amsterdam() {
    let dir = std::env::temp_dir().join(format!("sv-worst-ams-{}", std::process::id()));
    for (i, category) in CATEGORIES.iter().enumerate() {
        let vm = category.group != "precompile";
        let gas = check(category, Fork::Amsterdam, vm, &dir)
            .unwrap_or_else(|| panic!("{} has no block under Amsterdam", category.name));
        eprintln!(
            "[{}/{}] worst-{} (amsterdam): {gas} gas, valid natively{}",
            i + 1,
            CATEGORIES.len(),
            category.name,
            if vm { " and in the VM" } else { "" }
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// At mainnet's 60 M gas (four transactions at EIP-7825's cap) the loops are sized by the
/// fork's own prices: under Amsterdam, a body priced at Osaka's figures ran its last round out
/// of gas (a cold SSTORE is 12,100 there, not 5,000; a CREATE2 carries 183,600 state gas), and
/// a precompile call given all but a 64th of too little gas failed. Each spends its gas.
#[test]
fn the_repriced_categories_fill_a_mainnet_block_under_amsterdam() {
    for name in [
        "sstore-cold",
        "calldata-zero",
        "create2-48k",
        "create2-128k",
        "extcodecopy-64k",
        "bls12-g1msm-128",
    ] {
        let category = worst::category(name).unwrap();
        let made = worst::generate(category, worst::DEFAULT_GAS, Fork::Amsterdam)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let o = &made.block.output;
        assert_eq!(o.tx_count, 4, "{name}");
        eprintln!(
            "worst-{name} (amsterdam): {} gas in {} transactions",
            o.gas_used, o.tx_count
        );
    }
    // The calldata floor is 64 gas a byte either way (EIP-7976): a block of calldata leaves
    // less than a byte's price per transaction unspent.
    let zero = worst::generate(
        worst::category("calldata-zero").unwrap(),
        worst::DEFAULT_GAS,
        Fork::Amsterdam,
    )
    .unwrap();
    assert!(worst::DEFAULT_GAS - zero.block.output.gas_used < 4 * 64);
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
    // A 64 KiB code exists from Amsterdam (EIP-7954) only.
    let big = worst::category("extcodesize-64k").unwrap();
    let err = worst::generate(big, 300_000, Fork::Osaka).err().unwrap();
    assert!(
        matches!(
            err,
            WorstError::NotUnderFork {
                fork: Fork::Osaka,
                ..
            }
        ) && err.not_under_fork(),
        "{err}"
    );
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
