//! The Ethereum Foundation's blockchain tests in `../shared/ef-tests/` (6,402 cases), run
//! statelessly through `host::ef_tests`: every post-merge case passes, and only the pre-merge
//! networks are skipped.

use host::ef_tests::{discover, run_files, Outcome};

fn corpus() -> std::path::PathBuf {
    tests::shared_blocks_dir().join("../ef-tests/BlockchainTests")
}

#[test]
fn every_post_merge_ef_blockchain_test_passes() {
    let files = discover(&[corpus()]).unwrap();
    assert_eq!(files.len(), 1645);
    let summary = run_files(&files, 2, &|_, _| {});
    for case in &summary.cases {
        if let Outcome::Failed(reason) = &case.outcome {
            println!("FAIL {} {}: {reason}", case.file, case.name);
        }
    }
    println!(
        "ef-tests: {} passed, {} failed, {} skipped in {:.1} s",
        summary.passed, summary.failed, summary.skipped, summary.wall_s
    );
    assert_eq!(summary.failed, 0);
    assert_eq!(summary.passed + summary.skipped, 6402);
    // Only networks that start before the merge are skipped (277 cases in this corpus).
    assert_eq!(summary.skipped, 277);
    for case in &summary.cases {
        if let Outcome::Skipped(reason) = &case.outcome {
            assert!(
                reason.contains("before the merge"),
                "{}: {reason}",
                case.name
            );
        }
    }
    // Multi-block chains, side chains and fork transitions are among the passes.
    let passed = |name: &str| {
        summary
            .cases
            .iter()
            .any(|c| c.name == name && c.outcome == Outcome::Passed)
    };
    // The legacy fixtures name their exceptions in geth's words, which map to this verifier's
    // rules only in part: the rejections for another rule than the one named are pinned at
    // their present count, so that none is added unseen.
    assert_eq!(summary.exception_mismatches(), 251);
    assert!(passed("UncleFromSideChain_Cancun"));
    assert!(passed("shanghaiBeforeTransition_ParisToShanghaiAtTime15k"));
    assert!(passed("InitCollisionParis_d0g0v0_Cancun"));
    assert!(summary.cases.iter().any(|c| c.blocks.len() > 100));
}

/// The execution-spec-tests cases of `../shared/ef-tests-eest` (Prague, Osaka and the
/// transitions into them and into BPO1; gzipped, each under its own chain config): every case
/// passes, a block with an expected exception only as **invalid**, and the request-contract
/// cases (SYSTEM_CONTRACT_EMPTY) for the rule they name.
#[test]
fn every_eest_prague_and_osaka_blockchain_test_passes() {
    let corpus = tests::shared_blocks_dir().join("../ef-tests-eest");
    let files = discover(&[corpus]).unwrap();
    assert_eq!(files.len(), 422);
    let summary = run_files(&files, 2, &|_, _| {});
    host::print::print_ef_failures(&summary);
    assert_eq!(
        (summary.passed, summary.failed, summary.skipped),
        (4356, 0, 0)
    );
    let networks: std::collections::BTreeSet<_> =
        summary.cases.iter().map(|c| c.network.as_str()).collect();
    for network in [
        "Prague",
        "Osaka",
        "PragueToOsakaAtTime15k",
        "OsakaToBPO1AtTime15k",
    ] {
        assert!(networks.contains(network), "{networks:?}");
    }
    let blocks = summary.cases.iter().flat_map(|c| &c.blocks);
    let rejected: Vec<_> = blocks.filter(|b| b.expect_exception.is_some()).collect();
    assert!(rejected.len() >= 245);
    assert!(rejected.iter().all(|b| b.verdict == "invalid"));
    // Every rejection for the rule the fixture names, not merely some rule.
    let unmatched: Vec<_> = rejected
        .iter()
        .filter(|b| b.exception_match != Some(true))
        .map(|b| (&b.expect_exception, &b.error))
        .collect();
    assert!(unmatched.is_empty(), "{unmatched:#?}");
    let empty: Vec<_> = rejected
        .iter()
        .filter(|b| b.expect_exception.as_deref() == Some("BlockException.SYSTEM_CONTRACT_EMPTY"))
        .collect();
    assert!(!empty.is_empty());
    assert!(
        empty.iter().all(|b| b.rule == Some("system_contract")),
        "{empty:?}"
    );
    // The standard guest (EIP-8025 input bytes, natively) agrees on every block with an input
    // (a disagreement fails its case): `false` for the rejected ones, `true` for the rest.
    let with_input = |valid: bool| {
        summary
            .cases
            .iter()
            .flat_map(|c| &c.blocks)
            .filter(|b| b.standard == Some(valid))
            .count()
    };
    assert!(with_input(false) >= 240, "{}", with_input(false));
    assert!(with_input(true) >= 5000, "{}", with_input(true));
    assert!(rejected.iter().all(|b| b.standard != Some(true)));
}

/// The execution-spec-tests cases of the Amsterdam fork (`../shared/ef-tests-amsterdam`,
/// tests-glamsterdam-devnet v8.1.0): every case passes, both invalid blocks only as invalid and
/// for the rule the fixture names, and the multi-block chains (SLOTNUM per block, an EIP-8282
/// builder exit over two blocks) are among the passes; and every block, as a standard input,
/// gives its verdict. The corpus is a part of the release:
/// the counts are what it holds, the rules are what any case of it needs.
#[test]
fn every_eest_amsterdam_blockchain_test_passes() {
    let corpus = tests::shared_blocks_dir().join("../ef-tests-amsterdam");
    let files = discover(&[corpus]).unwrap();
    assert_eq!(files.len(), 20);
    let summary = run_files(&files, 2, &|_, _| {});
    host::print::print_ef_failures(&summary);
    assert_eq!(
        (summary.passed, summary.failed, summary.skipped),
        (25, 0, 0)
    );
    assert!(summary.cases.iter().all(|c| c.network == "Amsterdam"));
    let blocks: Vec<_> = summary.cases.iter().flat_map(|c| &c.blocks).collect();
    let rejected: Vec<_> = blocks
        .iter()
        .filter(|b| b.expect_exception.is_some())
        .collect();
    let rules: Vec<_> = rejected
        .iter()
        .map(|b| (b.expect_exception.as_deref().unwrap(), b.verdict, b.rule))
        .collect();
    assert_eq!(
        rules,
        [
            (
                "BlockException.GAS_USED_OVERFLOW",
                "invalid",
                Some("transaction.block_gas")
            ),
            (
                "TransactionException.GAS_ALLOWANCE_EXCEEDED",
                "invalid",
                Some("transaction.block_gas")
            ),
        ]
    );
    assert!(rejected.iter().all(|b| b.exception_match == Some(true)));
    assert!(blocks
        .iter()
        .filter(|b| b.expect_exception.is_none())
        .all(|b| b.verdict == "valid"));
    let passed_with = |name: &str, blocks: usize| {
        summary.cases.iter().any(|c| {
            c.name.contains(name) && c.outcome == Outcome::Passed && c.blocks.len() == blocks
        })
    };
    assert!(passed_with("test_slotnum_distinct_per_block", 4));
    assert!(passed_with("test_builder_exit_inhibited", 2));
    // Every block as a standard input (schema 0x1501, its access list the one execution built,
    // or the fixture's for an invalid block): the result bit the fixture's verdict implies.
    for block in &blocks {
        assert_eq!(
            block.standard,
            Some(block.expect_exception.is_none()),
            "{block:?}"
        );
    }
    assert_eq!(blocks.len(), 29);
}
