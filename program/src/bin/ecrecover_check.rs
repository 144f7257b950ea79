//! In-VM check of secp256k1 recovery on OpenVM's chips (`crypto::recover_address`).
//!
//! The macros' software path cannot run recovery on the host (its square-root hint exists only
//! in the VM), so the differential check runs here: the host signs random messages with k256
//! and sends records `r ‖ s (64) ‖ v (1) ‖ prehash (32) ‖ address (20) ‖ ok (1)`; the guest
//! asserts each recovery gives the address (`ok = 1`) or fails (`ok = 0`), and reveals how many
//! records it checked.
#![cfg_attr(target_os = "zkvm", no_main)]
#![cfg_attr(target_os = "zkvm", no_std)]

// alloy-primitives' keccak256 (the address hash) calls the `native_keccak256` mpt exports.
use mpt as _;

openvm::entry!(main);

openvm_algebra_guest::moduli_macros::moduli_init! {
    "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F",
    "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"
}
openvm_ecc_guest::sw_macros::sw_init! { "Secp256k1Point" }

/// One record's size.
const RECORD: usize = 64 + 1 + 32 + 20 + 1;

fn main() {
    let input = openvm::io::read_vec();
    assert_eq!(input.len() % RECORD, 0, "records are {RECORD} bytes");
    let mut checked = 0u32;
    for record in input.chunks_exact(RECORD) {
        let rs: &[u8; 64] = record[..64].try_into().expect("64 bytes");
        let prehash: &[u8; 32] = record[65..97].try_into().expect("32 bytes");
        let got = crypto::recover_address(rs, record[64], prehash);
        match record[117] {
            1 => assert_eq!(
                got.map(|a| a.0 .0),
                Ok(<[u8; 20]>::try_from(&record[97..117]).expect("20 bytes")),
                "record {checked}"
            ),
            _ => assert!(got.is_err(), "record {checked} recovered {got:?}"),
        }
        checked += 1;
    }
    openvm::io::reveal_u32(checked, 0);
}
