//! Mainnet block 24171384, the default devnet block and the EEST ecrecover fixture as the guest
//! in the OpenVM VM (CPU): valid, with the public values (block hash, parent hash, post-state
//! root) of the native run, under both keccak variants and both cryptos; and the precompile
//! census; the guest's chain-config commitment; a sample of the EF blockchain tests.
//! The first run builds the guest ELFs with openvm-build (minutes); later runs reuse them.

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
    // keccak chips saw the block's permutations (24 rows each: 21,962 of them since the trie
    // remembers the last address it hashed).
    let airs = ours.airs.as_ref().unwrap();
    assert_eq!(airs.iter().map(|a| a.main_cells).sum::<u64>(), cells);
    assert!(airs.iter().all(|a| a.main_cells == a.rows * a.width));
    assert!(airs.windows(2).all(|w| w[0].main_cells >= w[1].main_cells));
    let share: f64 = airs.iter().map(|a| a.share).sum();
    assert!((share - 1.0).abs() < 1e-9, "{share}");
    let keccakf = airs.iter().find(|a| a.name == "KeccakfOpAir").unwrap();
    let perm = airs.iter().find(|a| a.name == "KeccakfPermAir").unwrap();
    assert_eq!(perm.rows, 24 * keccakf.rows);
    assert!((21_500..22_500).contains(&keccakf.rows), "{}", keccakf.rows);
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
    let blocks = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../blocks");
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
    let blocks = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../blocks");
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

/// The guest reveals the digest of the chain config it validated under: the devnet block under
/// its own config, and under the same config with Osaka removed (a prover's forgery: the block
/// still validates without Osaka's caps), give the same block hash and different digests, each
/// the digest of the config the input carried.
#[test]
fn the_guest_commits_to_the_chain_config_it_ran_under() {
    use program::PublicValues;
    use prover::guest::{Crypto, GuestSpec};
    use prover::vm::Vm;
    let blocks = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../blocks");
    let honest = host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    let mut forged =
        host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    forged
        .chain
        .forks
        .retain(|(fork, _)| *fork != alloy_hardforks::EthereumHardfork::Osaka);
    assert!(
        program::validate_block(&forged.data.block_rlp, &forged.data.witness, &forged.chain)
            .is_ok()
    );
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let vm = Vm::new(spec.build().unwrap(), spec.public_values()).unwrap();
    let reveal = |run: &host::native::NativeRun| {
        PublicValues::from_bytes(
            &vm.execute_items(&prover::vm::slices(&run.guest_input()))
                .unwrap_or_else(|e| panic!("{e}")),
        )
        .unwrap()
    };
    let (h, f) = (reveal(&honest), reveal(&forged));
    assert_eq!(h.block_hash, f.block_hash);
    assert_eq!(h.chain_digest, honest.chain.digest());
    assert_eq!(f.chain_digest, forged.chain.digest());
    assert_ne!(h.chain_digest, f.chain_digest);
}

/// A deterministic sample of 24 EF blockchain tests through the guest: every block valid
/// natively reveals the native public values in the VM, every rejected one ends the guest with
/// the native verdict (and the standard guest reveals the native result on each block's
/// standard input, `false` for the rejected ones), across categories, with multi-block chains, and from both corpora: the
/// ethereum/tests cases and the execution-spec-tests Prague and Osaka cases (gzipped).
#[test]
fn a_sample_of_the_ef_blockchain_tests_agrees_in_the_vm() {
    use host::ef_tests::{discover, vm};
    let corpus = tests::shared_blocks_dir().join("../ef-tests/BlockchainTests");
    let eest = tests::shared_blocks_dir().join("../ef-tests-eest");
    let cases = vm::sample(&discover(&[corpus, eest]).unwrap(), 24);
    assert_eq!(cases.len(), 24);
    assert!(cases.iter().any(|c| c.blocks > 1));
    for fork in vm::CURRENT_FORKS {
        assert!(
            cases.iter().any(|c| c.network.contains(fork)
                && c.file.to_string_lossy().ends_with(".json.gz")),
            "no {fork} case from the execution-spec-tests corpus"
        );
    }
    let folders: std::collections::BTreeSet<_> = cases.iter().map(|c| c.file.parent()).collect();
    assert!(folders.len() >= 20, "{folders:?}");
    let sample = vm::run_sample(&cases).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "ef-tests in the VM: {} valid blocks, {} rejected blocks, {:.1} s",
        sample.valid_blocks, sample.rejected_blocks, sample.wall_s
    );
    assert!(sample.failures.is_empty(), "{:#?}", sample.failures);
    // A guest over its budget would drop out of the agreement unseen: none may.
    assert!(sample.over_budget.is_empty(), "{:#?}", sample.over_budget);
    assert!(sample.valid_blocks >= 24 && sample.rejected_blocks > 0);
    // The standard guest on the same blocks' inputs: every block but the few whose fork's
    // shape cannot carry them, the rejected ones `false`.
    println!(
        "standard guest: {} blocks, {} false",
        sample.standard_blocks, sample.standard_false
    );
    assert!(sample.standard_blocks >= sample.valid_blocks);
    assert!(sample.standard_false > 0);
}

/// Invalid blocks in both guests: a sample of 16 `InvalidBlocks` cases (two per category)
/// through the VM. Each rejected block ends the block guest with the native verdict, and on its
/// standard input the standard guest ends normally revealing `false`, the native result.
#[test]
fn a_sample_of_invalid_blocks_is_false_in_the_standard_guest() {
    use host::ef_tests::{discover, vm};
    let invalid = tests::shared_blocks_dir().join("../ef-tests/BlockchainTests/InvalidBlocks");
    let cases = vm::sample(&discover(&[invalid]).unwrap(), 16);
    let sample = vm::run_sample(&cases).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "invalid blocks in the VM: {} rejected by the block guest, {} false in the standard guest ({} standard inputs), {:.1} s",
        sample.rejected_blocks, sample.standard_false, sample.standard_blocks, sample.wall_s
    );
    assert!(sample.failures.is_empty(), "{:#?}", sample.failures);
    // A guest over its budget would drop out of the agreement unseen: none may.
    assert!(sample.over_budget.is_empty(), "{:#?}", sample.over_budget);
    assert!(sample.rejected_blocks >= 12, "{}", sample.rejected_blocks);
    assert!(sample.standard_false >= 12, "{}", sample.standard_false);
}

/// EIP-7610 in the guest: the `InitCollisionParis` cases (creations into accounts that hold
/// only storage) give the native public values in the VM, where revm alone would not collide.
#[test]
fn eip_7610_collisions_agree_in_the_vm() {
    use host::ef_tests::vm::run_sample;
    let cases = tests::init_collision_cases(4);
    let sample = run_sample(&cases).unwrap_or_else(|e| panic!("{e}"));
    assert!(sample.failures.is_empty(), "{:#?}", sample.failures);
    // A guest over its budget would drop out of the agreement unseen: none may.
    assert!(sample.over_budget.is_empty(), "{:#?}", sample.over_budget);
    assert_eq!(sample.valid_blocks, 4);
}

/// `host profile`: every instruction of the devnet block is attributed to a function (the total
/// is the metered count), the call stacks add up to it, and the flame graph is well-formed SVG.
#[test]
fn the_profile_attributes_every_instruction() {
    let blocks = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../blocks");
    let native = host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let metered = run_in_vm(&native, Mode::Metered, spec).unwrap_or_else(|e| panic!("{e}"));
    let instructions = metered.instructions.unwrap();
    let profile = host::measure::profile::profile(
        &native.data.id,
        &native.guest_input(),
        spec,
        instructions,
        1,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(profile.instructions, instructions);
    assert_eq!(
        profile
            .functions
            .iter()
            .map(|f| f.instructions)
            .sum::<u64>(),
        instructions
    );
    assert_eq!(
        profile.stacks.iter().map(|s| s.1).sum::<u64>(),
        instructions
    );
    // The guest's own code is named: the trie and the sponge are among the functions.
    let named = |part: &str| profile.functions.iter().any(|f| f.name.contains(part));
    assert!(
        named("mpt::trie") && named("Sponge"),
        "{:?}",
        &profile.functions[..5]
    );
    let unnamed: u64 = profile
        .functions
        .iter()
        .filter(|f| f.name == "(no symbol)")
        .map(|f| f.instructions)
        .sum();
    assert!(
        unnamed * 100 < instructions,
        "{unnamed} instructions outside every symbol"
    );
    // Sampled: the same total, fewer distinct stacks at most.
    let sampled = host::measure::profile::profile(
        &native.data.id,
        &native.guest_input(),
        spec,
        instructions,
        1000,
    )
    .unwrap();
    assert_eq!(sampled.instructions, instructions);
    assert!(sampled.stacks.len() <= profile.stacks.len());
    let svg = host::print::flamegraph_svg(&profile);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<g>").count(), svg.matches("</g>").count());
    assert!(svg.matches("<rect").count() > 50);
}

/// `host profile --pages`: the census replays exactly the metered instructions, its segments
/// partition them, every page first touched is counted fresh once, and its page count is close
/// to what OpenVM's metering charges (boundary rows / 128: one init and one final row per
/// 8-byte leaf of each 512-byte page). The census approximates custom instructions (a long
/// hint counts at its start), so close means within a quarter, not equal.
#[test]
fn the_page_census_partitions_the_run_and_matches_the_metering() {
    let blocks = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../blocks");
    let native = host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let metered = run_in_vm(&native, Mode::Metered, spec).unwrap();
    let instructions = metered.instructions.unwrap();
    let boundary_rows = metered
        .airs
        .as_ref()
        .unwrap()
        .iter()
        .find(|a| a.name.starts_with("PersistentBoundaryAir"))
        .map(|a| a.rows)
        .unwrap();
    let metered_pages = boundary_rows / 128;

    let whole = host::measure::pages::census(&native.guest_input(), spec, &[instructions]).unwrap();
    assert_eq!(whole.segments.len(), 1);
    let one = &whole.segments[0];
    assert_eq!(one.instructions, instructions);
    assert_eq!(one.pages, one.stack + one.data + one.heap);
    assert_eq!(one.fresh, one.pages);
    assert_eq!(whole.distinct, one.pages);
    let (lo, hi) = (metered_pages * 3 / 4, metered_pages * 5 / 4);
    assert!(
        (lo..=hi).contains(&one.pages),
        "census {} pages, metering {metered_pages}",
        one.pages
    );
    assert_eq!(whole.functions.iter().map(|f| f.1).sum::<u64>(), one.pages);

    // Two halves: each counts its own pages; the fresh ones add up to the distinct ones.
    let half = instructions / 2;
    let split =
        host::measure::pages::census(&native.guest_input(), spec, &[half, instructions - half])
            .unwrap();
    assert_eq!(split.segments.len(), 2);
    assert_eq!(
        split.segments.iter().map(|s| s.instructions).sum::<u64>(),
        instructions
    );
    assert_eq!(
        split.segments.iter().map(|s| s.fresh).sum::<u64>(),
        split.distinct
    );
    assert_eq!(split.distinct, whole.distinct);
    assert!(split.segments.iter().map(|s| s.pages).sum::<u64>() >= split.distinct);
}

/// The program a proof commits to does not depend on where the guest was built: another
/// checkout or target directory gives debug info of another size, so the section table (whose
/// offset is in the ELF header, which OpenVM loads) sits elsewhere.
#[test]
fn the_loaded_program_does_not_depend_on_where_the_guest_was_built() {
    use openvm_transpiler::elf::Elf;
    use openvm_transpiler::openvm_platform::memory::MEM_SIZE;
    use prover::guest::decode_elf;
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let bytes = spec.build_bytes().unwrap_or_else(|e| panic!("{e}"));
    // The same ELF with 64 more bytes of debug info before its section table.
    let shoff = u32::from_le_bytes(bytes[32..36].try_into().unwrap()) as usize;
    let mut moved = bytes[..shoff].to_vec();
    moved.extend([0u8; 64]);
    moved.extend(&bytes[shoff..]);
    moved[32..36].copy_from_slice(&(shoff as u32 + 64).to_le_bytes());
    let exe = |elf| prover::vm::Vm::new(elf, spec.public_values()).unwrap();
    let (a, b) = (
        exe(decode_elf(&bytes).unwrap()),
        exe(decode_elf(&moved).unwrap()),
    );
    assert_eq!(a.exe().init_memory, b.exe().init_memory);
    assert_eq!(a.exe().pc_start, b.exe().pc_start);
    // As OpenVM decodes the files themselves, their programs differ.
    let raw = |bytes: &[u8]| exe(Elf::decode(bytes, MEM_SIZE as u32).unwrap());
    assert_ne!(raw(&bytes).exe().init_memory, raw(&moved).exe().init_memory);
}

/// The guest ends with the native run's verdict for blocks that are not valid: tampered devnet
/// blocks (a header field, a body root, an execution result, the state root) are invalid, a
/// witness without the pre-state's root node is insufficient, and a chain config that is not
/// canonical (mainnet's forgeries: Osaka listed first as never activating; a second BPO1 blob
/// schedule) is unusable input. Each ends the guest without public values, with that verdict's
/// exit code: never a panic, a trap, or public values.
#[test]
fn blocks_that_are_not_valid_end_the_guest_with_the_native_verdict() {
    use alloy_consensus::{Block, Header, TxEnvelope};
    use alloy_hardforks::{EthereumHardfork, ForkCondition};
    use alloy_primitives::{Bytes, B256};
    use alloy_rlp::{Decodable, Encodable};
    use program::Verdict;
    use prover::vm::{Vm, VmError};

    let blocks = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../blocks");
    let run = host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    assert!(run.verdict.is_ok());
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let vm = Vm::new(spec.build().unwrap(), spec.public_values()).unwrap();
    let witness = &run.data.witness;
    let items = |block: &[u8], witness: &program::ExecutionWitness, chain_rlp: &[u8]| {
        let nodes = witness.state.iter().map(|b| (b.as_ref(), false));
        let all: Vec<_> = nodes
            .chain(witness.codes.iter().map(|b| (b.as_ref(), true)))
            .collect();
        program::guest_items_with_chain_rlp(block, &witness.headers, chain_rlp, all.into_iter())
    };
    let canonical = alloy_rlp::encode(run.chain.canonical());
    let guest = |items: &[Vec<u8>]| match vm.execute_items(&prover::vm::slices(items)) {
        Ok(public) => Ok(public),
        Err(VmError::Refused(verdict)) => Err(verdict),
        Err(e) => panic!("the guest failed instead of reporting a verdict: {e}"),
    };
    // Untampered: valid, with public values.
    assert!(guest(&items(&run.data.block_rlp, witness, &canonical)).is_ok());

    let block = Block::<TxEnvelope>::decode(&mut run.data.block_rlp.as_slice()).unwrap();
    type Edit = fn(&mut Header);
    let edits: [(&str, Edit); 5] = [
        ("extra_data", |h| h.extra_data = Bytes::from(vec![7; 33])),
        ("transactions_root", |h| {
            h.transactions_root = B256::repeat_byte(1)
        }),
        ("gas_used", |h| h.gas_used += 1),
        ("receipts_root", |h| h.receipts_root = B256::repeat_byte(2)),
        ("state_root", |h| h.state_root = B256::repeat_byte(3)),
    ];
    for (what, edit) in edits {
        let mut tampered = block.clone();
        edit(&mut tampered.header);
        let mut rlp = Vec::new();
        tampered.encode(&mut rlp);
        let native = program::validate_block(&rlp, witness, &run.chain);
        assert_eq!(Verdict::of(&native), Verdict::Invalid, "{what}: {native:?}");
        assert_eq!(
            guest(&items(&rlp, witness, &canonical)),
            Err(Verdict::Invalid),
            "{what}"
        );
    }

    // Insufficient: the witness without the pre-state root's node.
    let parent = program::header::decode_ancestors(&witness.headers)
        .unwrap()
        .0;
    let root = parent.last().unwrap().state_root;
    let mut thin = witness.clone();
    thin.state.retain(|n| mpt::keccak256(n) != root);
    assert!(thin.state.len() < witness.state.len());
    let native = program::validate_block(&run.data.block_rlp, &thin, &run.chain);
    assert_eq!(Verdict::of(&native), Verdict::Insufficient, "{native:?}");
    assert_eq!(
        guest(&items(&run.data.block_rlp, &thin, &canonical)),
        Err(Verdict::Insufficient)
    );

    // Unusable: configs that are not canonical, whatever their old digest.
    let mut never = run.chain.canonical();
    never
        .forks
        .insert(0, (EthereumHardfork::Osaka, ForkCondition::Never));
    let mut blobs = run.chain.canonical();
    let mut params = blobs.blob_schedule.last().unwrap().1;
    params.max_blob_count += 3;
    let last = blobs.blob_schedule.last().unwrap().0;
    blobs.blob_schedule.push((last, params));
    for forged in [never, blobs] {
        let forged = items(&run.data.block_rlp, witness, &alloy_rlp::encode(&forged));
        assert!(matches!(
            program::GuestInput::from_items(&forged),
            Err(program::InputError::Chain(_))
        ));
        assert_eq!(guest(&forged), Err(Verdict::Unusable));
    }
}

/// The program a proof commits to holds no path of the machine that built it: the block guest's
/// loaded memory names no home, toolchain, checkout or target directory (panic locations name
/// `index.crates.io-…/name-version/…`, `/rustc/<commit>/…` and workspace-relative paths
/// instead, cargo's `trim-paths`), and a guest built in two different
/// target directories (the usual one and a fresh one) is one program.
#[test]
fn guest_programs_hold_no_build_machine_path_and_are_one_program_anywhere() {
    use prover::guest::{decode_elf, Program};
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let vm = prover::vm::Vm::new(spec.build().unwrap(), spec.public_values()).unwrap();
    let image: Vec<u8> = vm.exe().init_memory.values().copied().collect();
    let contains = |needle: &str| image.windows(needle.len()).any(|w| w == needle.as_bytes());
    // The trimmed names are there (a dependency as `index.crates.io-…/name-version/…`, `std` as
    // `/rustc/<commit>/…`): the search can find paths.
    assert!(contains("index.crates.io-"), "no trimmed dependency path");
    assert!(contains("/rustc/"), "no trimmed std path");
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let workspace = std::fs::canonicalize(workspace).unwrap();
    let mut machine_paths: Vec<String> = vec![workspace.display().to_string()];
    for var in ["HOME", "CARGO_HOME", "RUSTUP_HOME", "CARGO_TARGET_DIR"] {
        if let Some(path) = std::env::var_os(var) {
            machine_paths.push(std::path::PathBuf::from(path).display().to_string());
        }
    }
    machine_paths.push(prover::guest::guest_target_root().display().to_string());
    // As directories (`/root/`, not the `/root` of `alloy-trie/src/root.rs`).
    for path in machine_paths.iter().filter(|p| p.len() > 1) {
        let dir = format!("{}/", path.trim_end_matches('/'));
        assert!(!contains(&dir), "the loaded program names {dir}");
    }

    // A small guest built in the usual target directory and in a fresh one, deeper and under
    // another root (one fresh build: the usual directory's is cached): one program.
    let probe = GuestSpec::program(Program::KeccakAlignment, Keccak::Ours);
    let root = std::env::temp_dir().join(format!("guest-anywhere-{}", std::process::id()));
    let exes: Vec<_> = [None, Some(root.join("fresh/deeper"))]
        .iter()
        .map(|dir| {
            let bytes = match dir {
                Some(dir) => probe.build_bytes_in(dir).unwrap(),
                None => probe.build_bytes().unwrap(),
            };
            let elf = decode_elf(&bytes).unwrap();
            let vm = prover::vm::Vm::new(elf, probe.public_values()).unwrap();
            bitcode::serialize(&(&vm.exe().program, vm.exe().pc_start, &vm.exe().init_memory))
                .unwrap()
        })
        .collect();
    let _ = std::fs::remove_dir_all(&root);
    assert!(exes[0] == exes[1], "two target directories, two programs");
}
