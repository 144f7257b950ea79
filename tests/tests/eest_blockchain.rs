//! The EEST blockchain tests in `../shared/blocks/eest-blockchain/`, run statelessly: the full
//! pre-state becomes the witness (host::fixtures::full_state_witness), and each block gets the
//! fixture's verdict.

use alloy_rlp::Decodable;
use host::fixtures::load_blockchain_tests;
use program::ValidationError;
use tests::shared_blocks_dir;

fn genesis_state_root(test: &host::fixtures::BlockchainTest) -> alloy_primitives::B256 {
    alloy_consensus::Header::decode(&mut test.witness.headers[0].as_ref())
        .unwrap()
        .state_root
}

#[test]
fn empty_block_is_valid() {
    let tests =
        load_blockchain_tests(&shared_blocks_dir().join("eest-blockchain/empty_block.json"))
            .unwrap();
    assert_eq!(tests.len(), 1);
    for t in &tests {
        assert!(t.expect_exception.is_none());
        // The converter rebuilt the genesis state exactly.
        assert_eq!(t.pre_state_root, genesis_state_root(t), "{}", t.name);
        let out = program::validate_block(&t.block, &t.witness, &t.chain)
            .unwrap_or_else(|e| panic!("{}: {e}", t.name));
        assert_eq!(out.block_hash, t.last_block_hash, "{}", t.name);
    }
}

#[test]
fn negative_excess_blob_gas_is_rejected() {
    let tests = load_blockchain_tests(
        &shared_blocks_dir().join("eest-blockchain/invalid_negative_excess_blob_gas.json"),
    )
    .unwrap();
    assert_eq!(tests.len(), 1);
    for t in &tests {
        assert_eq!(
            t.expect_exception.as_deref(),
            Some("BlockException.INCORRECT_EXCESS_BLOB_GAS")
        );
        assert_eq!(t.pre_state_root, genesis_state_root(t), "{}", t.name);
        match program::validate_block(&t.block, &t.witness, &t.chain) {
            Err(ValidationError::HeaderField {
                field: "excess_blob_gas",
                expected,
                got,
            }) => {
                println!(
                    "{}: rejected: excess_blob_gas expected {expected}, got {got}",
                    t.name
                )
            }
            other => panic!(
                "{}: expected an excess_blob_gas error, got {other:?}",
                t.name
            ),
        }
    }
}
