//! Native validation of the real mainnet blocks.

use std::time::Instant;

use program::{ChainConfig, ValidationError, WitnessError};
use tests::{mainnet_block, MAINNET};

#[test]
fn real_mainnet_blocks_validate() {
    let chain = ChainConfig::mainnet();
    for (number, hash) in &MAINNET[..2] {
        let data = mainnet_block(*number);
        let started = Instant::now();
        let out = program::validate_block(&data.block_rlp, &data.witness, &chain)
            .unwrap_or_else(|e| panic!("block {number}: {e}"));
        println!("block {number}: valid in {:?}: {out:?}", started.elapsed());
        assert_eq!(out.block_hash.to_string(), *hash);
    }
}

#[test]
fn block_without_parent_header_is_rejected_by_name() {
    let data = mainnet_block(23587691);
    let err = program::validate_block(&data.block_rlp, &data.witness, &ChainConfig::mainnet())
        .unwrap_err();
    assert_eq!(err, ValidationError::Witness(WitnessError::NoParentHeader));
    assert!(err.to_string().contains("no parent header"), "{err}");
}
