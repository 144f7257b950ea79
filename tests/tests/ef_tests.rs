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
    assert!(passed("UncleFromSideChain_Cancun"));
    assert!(passed("shanghaiBeforeTransition_ParisToShanghaiAtTime15k"));
    assert!(passed("InitCollisionParis_d0g0v0_Cancun"));
    assert!(summary.cases.iter().any(|c| c.blocks.len() > 100));
}
