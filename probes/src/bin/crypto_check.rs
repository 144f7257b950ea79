//! In-VM differential check of the guest's accelerated cryptography
//! (`crypto::OpenVmPrecompiles`) against revm's software implementation.
//!
//! The host computes each case's outcome with revm's `DefaultCrypto` and sends records
//! (`crypto::check::write_record`); the guest computes the same call on OpenVM's chips,
//! asserts the outcomes agree (naming the record and its tag otherwise), and reveals how many
//! records it checked. Secp256k1 key recovery, which the host path of the field macros cannot
//! run (no square-root hint), is checked only here.
#![cfg_attr(target_os = "zkvm", no_main)]
#![cfg_attr(target_os = "zkvm", no_std)]

// alloy-primitives' keccak256 (the address hash) calls the `native_keccak256` mpt exports.
use mpt as _;

openvm::entry!(main);

crypto::init!();

fn main() {
    let input = openvm::io::read_vec();
    let records = crypto::check::read_records(&input).expect("malformed records");
    for (k, (tag, input, expected)) in records.iter().enumerate() {
        let got = crypto::check::outcome(&crypto::OpenVmPrecompiles, *tag, input)
            .unwrap_or_else(|e| panic!("record {k}: {e:?}"));
        assert_eq!(&got[..], *expected, "record {k} ({tag:?})");
    }
    openvm::io::reveal_u32(records.len() as u32, 0);
}
