//! The EEST blockchain tests in `../shared/blocks/eest-blockchain/`, run statelessly through
//! `host::ef_tests` (the full pre-state becomes the witness) with the fixture's verdict.

use host::ef_tests::{run_file, Outcome};
use tests::shared_blocks_dir;

#[test]
fn empty_block_is_valid() {
    let cases = run_file(&shared_blocks_dir().join("eest-blockchain/empty_block.json"));
    assert_eq!(cases.len(), 1);
    let case = &cases[0];
    assert_eq!(case.outcome, Outcome::Passed, "{}", case.name);
    assert_eq!(case.blocks.len(), 1);
    assert_eq!(case.blocks[0].verdict, "valid");
}

#[test]
fn negative_excess_blob_gas_is_rejected() {
    let cases = run_file(
        &shared_blocks_dir().join("eest-blockchain/invalid_negative_excess_blob_gas.json"),
    );
    assert_eq!(cases.len(), 1);
    let case = &cases[0];
    assert_eq!(case.outcome, Outcome::Passed, "{}", case.name);
    let block = &case.blocks[0];
    assert_eq!(
        block.expect_exception.as_deref(),
        Some("BlockException.INCORRECT_EXCESS_BLOB_GAS")
    );
    assert_eq!(block.verdict, "invalid");
    assert_eq!(
        block.rule,
        Some("header.excess_blob_gas"),
        "{:?}",
        block.error
    );
    assert_eq!(block.exception_match, Some(true));
}
