//! The EF blockchain tests through the guest: a sample of both corpora, invalid blocks in both
//! guests, EIP-7610's collisions.

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
