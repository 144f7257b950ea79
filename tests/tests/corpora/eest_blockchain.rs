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

/// Where a fixture's block carries `statelessInputBytes`, the standard guest's result on them
/// must be its `statelessOutputBytes`, byte for byte: undecodable input with 43 zero bytes
/// passes, with any other 43 bytes the case fails and says why.
#[test]
fn stateless_output_bytes_are_checked() {
    let path = shared_blocks_dir().join("eest-blockchain/empty_block.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let dir = std::env::temp_dir().join(format!("sv-stateless-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let with = |input: &str, output: &str| {
        let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
        for case in json.as_object_mut().unwrap().values_mut() {
            let block = &mut case["blocks"][0];
            block["statelessInputBytes"] = input.into();
            block["statelessOutputBytes"] = output.into();
        }
        let file = dir.join("case.json");
        std::fs::write(&file, serde_json::to_vec(&json).unwrap()).unwrap();
        run_file(&file).remove(0).outcome
    };
    let zeros = format!("0x{}", "00".repeat(43));
    assert_eq!(with("0x1201ffff", &zeros), Outcome::Passed);
    let wrong = format!("0x{}01", "00".repeat(42));
    match with("0x1201ffff", &wrong) {
        Outcome::Failed(why) => {
            assert!(
                why.contains("is not the fixture's statelessOutputBytes"),
                "{why}"
            )
        }
        other => panic!("{other:?}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A system call has the 30,000,000 gas its EIPs give it (here EIP-7251's), not revm 43's
/// budget with Amsterdam's state-gas reservoir on top: a consolidation contract that runs out
/// of gas at 30 M fails its block as the system call the fixture names (before, the call
/// succeeded and the block failed on its state root), and one that spends exactly 30 M is
/// valid. Prague and Osaka alike.
#[test]
fn a_system_call_has_thirty_million_gas() {
    let mut out_of_gas = 0;
    let mut at_limit = 0;
    for fork in ["prague", "osaka"] {
        let file = shared_blocks_dir().join(format!(
            "../ef-tests-eest/blockchain_tests_devnet/for_{fork}/prague/eip7251_consolidations/\
             modified_consolidation_contract/system_contract_errors.json.gz"
        ));
        for case in &run_file(&file) {
            assert_eq!(case.outcome, Outcome::Passed, "{}", case.name);
            let block = &case.blocks[0];
            if case.name.contains("system_contract_out_of_gas") {
                out_of_gas += 1;
                assert_eq!(block.verdict, "invalid");
                assert_eq!(block.exception_match, Some(true), "{:?}", block.error);
                let error = block.error.as_deref().unwrap_or_default();
                assert!(
                    error.contains("consolidation requests contract call")
                        && error.contains("OutOfGas"),
                    "{error}"
                );
            } else if case.name.contains("system_contract_reaches_gas_limit") {
                at_limit += 1;
                assert_eq!(block.verdict, "valid", "{:?}", block.error);
            }
        }
    }
    assert_eq!((out_of_gas, at_limit), (2, 2));
}
