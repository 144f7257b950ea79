//! Real and generated blocks valid in the VM with the native run's public values: mainnet
//! 24171384 under both keccaks, the devnet block under both cryptos, the precompile census, and
//! the EEST zkEVM fixtures on the chips.

use host::report::{run_in_vm, Mode};
use prover::guest::{Crypto, GuestSpec, Keccak};
use tests::shared_blocks_dir;

#[test]
fn block_24171384_runs_in_the_vm_with_both_keccaks() {
    let dir = shared_blocks_dir().join("mainnet");
    let native = host::native::run_native(&dir, "24171384", None).unwrap();
    assert!(native.verdict.is_ok());
    // Metered with ours: the public values are checked against the native run inside.
    let ours = run_in_vm(
        &native,
        Mode::Metered,
        GuestSpec::block(Keccak::Ours, Crypto::Openvm),
    )
    .unwrap_or_else(|e| panic!("{e}"));
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
    // Where the cells go: the AIRs' cells add up to the run's, each is rows × width, and the
    // keccak chips saw the block's permutations (24 rows each: 21,067 of them since a memo
    // answers short inputs hashed again, `mpt::keccak::memo`; 21,964 without it).
    let airs = ours.airs.as_ref().unwrap();
    assert_eq!(airs.iter().map(|a| a.main_cells).sum::<u64>(), cells);
    assert!(airs.iter().all(|a| a.main_cells == a.rows * a.width));
    assert!(airs.windows(2).all(|w| w[0].main_cells >= w[1].main_cells));
    let share: f64 = airs.iter().map(|a| a.share).sum();
    assert!((share - 1.0).abs() < 1e-9, "{share}");
    let keccakf = airs.iter().find(|a| a.name == "KeccakfOpAir").unwrap();
    let perm = airs.iter().find(|a| a.name == "KeccakfPermAir").unwrap();
    assert_eq!(perm.rows, 24 * keccakf.rows);
    assert!((20_800..21_300).contains(&keccakf.rows), "{}", keccakf.rows);
    // Every segment but the last ended at a limit OpenVM named; the last, with the program.
    use prover::vm::SegmentEnd;
    let (last, cut) = per_segment.split_last().unwrap();
    assert_eq!(last.end, SegmentEnd::Program);
    for s in cut {
        assert!(
            matches!(
                s.end,
                SegmentEnd::Memory { .. }
                    | SegmentEnd::Height { .. }
                    | SegmentEnd::Interactions { .. }
            ),
            "{:?}",
            s.end
        );
    }
    // Stock executes to the same public values.
    let stock = run_in_vm(
        &native,
        Mode::Execute,
        GuestSpec::block(Keccak::Stock, Crypto::Openvm),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(stock.valid);
}

/// The default block of `host run` (the generated `devnet`, 10 transactions) in the VM:
/// valid, with the native run's public values, with the cryptography on OpenVM's chips and
/// in software (the build switch); the chips take most of the work off the RISC-V core.
#[test]
fn the_default_devnet_block_runs_in_the_vm_with_both_cryptos() {
    use host::report::run_in_vm;
    use prover::guest::Crypto;
    let blocks = tests::project_blocks_dir();
    let native = host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    assert!(native.verdict.is_ok());
    let mut instructions = Vec::new();
    for crypto in [Crypto::Openvm, Crypto::Software] {
        let report = run_in_vm(
            &native,
            Mode::Metered,
            GuestSpec::block(Keccak::Ours, crypto),
        )
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

/// The precompile census of the devnet block (10 transactions, no precompile calls) on the
/// chips: ten sender recoveries counted and priced, nothing else called.
#[test]
fn the_precompile_census_counts_and_prices_sender_recovery() {
    use host::measure::run_precompile_census;
    use prover::guest::Crypto;
    let blocks = tests::project_blocks_dir();
    let native = host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    let block: alloy_consensus::Block<alloy_consensus::TxEnvelope> =
        alloy_rlp::Decodable::decode(&mut native.data.block_rlp.as_slice()).unwrap();
    let transactions = block.body.transactions.len() as u32;
    assert_eq!(transactions, 10);
    let census = run_precompile_census(&native, Crypto::Openvm).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", host::print::precompile_table(&census));
    let (sender, rest) = census.ops.split_first().unwrap();
    assert_eq!(sender.op, "sender recovery");
    assert_eq!(sender.calls, transactions);
    let cost = sender.instructions.unwrap();
    // A recovery on the chips costs well under a software one (~11 M; 17.4 k measured on the
    // chips) and is not free.
    assert!(cost > 1_000 * u64::from(transactions), "{cost}");
    assert!(cost < 1_000_000 * u64::from(transactions), "{cost}");
    assert!(cost < census.block_instructions);
    for op in rest {
        assert_eq!((op.calls, op.instructions), (0, None), "{}", op.op);
    }
}

/// The EEST `ECRECOVER` fixture (one transaction of 10 M gas of precompile calls) in the VM,
/// valid with `ECRECOVER` on the chips: 62,947,569 instructions, against 37,197,589,094 in
/// software (about 5 minutes here, too long for every run).
#[test]
fn eest_ecrecover_fixture_runs_in_the_vm_on_the_chips() {
    let dir = shared_blocks_dir().join("eest-zkevm");
    let native = host::native::run_native(&dir, "precompile_fixed_cost-ecrecover", None).unwrap();
    assert!(native.verdict.is_ok());
    let report = run_in_vm(
        &native,
        Mode::Metered,
        GuestSpec::block(Keccak::Ours, Crypto::Openvm),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(report.valid);
    let instructions = report.instructions.unwrap();
    println!("ecrecover fixture (chips): {instructions} instructions");
    // Under a tenth of the software run: the recoveries ran on the chips.
    assert!(instructions < 3_719_758_909, "{instructions}");
}

/// The EEST KZG point-evaluation fixture (10 M gas of `0x0A` calls) in the VM, valid with the
/// check on the chips (BLS12-381 G1, G2 and pairing), and under 1 M instructions per call
/// (each costs ~140 M in software).
#[test]
fn eest_point_evaluation_fixture_runs_in_the_vm_on_the_chips() {
    let dir = shared_blocks_dir().join("eest-zkevm");
    let id = "precompile_fixed_cost-point_evaluation";
    let native = host::native::run_native(&dir, id, None).unwrap();
    assert!(native.verdict.is_ok());
    let report = run_in_vm(
        &native,
        Mode::Metered,
        GuestSpec::block(Keccak::Ours, Crypto::Openvm),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(report.valid);
    let instructions = report.instructions.unwrap();
    // 10 M gas at 50,000 gas a call (EIP-4844's fixed cost).
    let calls = 10_000_000 / 50_000;
    println!(
        "point evaluation fixture (chips): {instructions} instructions, {calls} calls at most"
    );
    assert!(instructions < calls * 1_000_000, "{instructions}");
}

/// Every EEST zkEVM fixture in `../shared/blocks/eest-zkevm` (30 modexp variants, ecrecover,
/// KZG point evaluation; 10 M gas of precompile calls each) valid in the VM with the native
/// run's public values. The fixtures' moduli are none the guest declares: every modexp runs on
/// the Int256 chip (`crypto::modexp`'s `small` and `big`). Long: 32 blocks of 10 M gas each
/// (`cargo test -p tests --test vm -- --ignored --nocapture`).
#[test]
#[ignore = "long: every EEST zkEVM fixture (32 blocks of 10 M gas) in the VM"]
fn every_eest_zkevm_fixture_runs_in_the_vm() {
    let dir = shared_blocks_dir().join("eest-zkevm");
    let ids = chaindata::blocks::list_blocks(&dir).unwrap();
    assert!(ids.len() >= 32, "{} fixtures", ids.len());
    for id in &ids {
        let native = host::native::run_native(&dir, id, None).unwrap();
        assert!(native.verdict.is_ok(), "{id}");
        let report = run_in_vm(
            &native,
            Mode::Execute,
            GuestSpec::block(Keccak::Ours, Crypto::Openvm),
        )
        .unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(report.valid, "{id}");
        println!("{id}: valid in the VM, {:.1} s", report.wall_s);
    }
}
