//! The standard OpenVM guest (EIP-8025): reads the execution specs' stateless input bytes,
//! validates the block ([`program::standard`]), and reveals the 43-byte
//! `StatelessValidationResult`, then zero bytes to the public-value width. Every input ends
//! normally: an invalid block reveals `false`, so it has a proof; bytes that do not decode
//! reveal 43 zero bytes.
#![cfg_attr(target_os = "zkvm", no_main)]
#![cfg_attr(target_os = "zkvm", no_std)]

use program::guest::{reveal_result, Hinted, Session};
use program::standard::{validate_source, GuestHasher};

openvm::entry!(main);

// The moduli and curves the `crypto` crate declares, registered with the VM in the order of
// its config (`host::vm::config`).
#[cfg(any(feature = "openvm-crypto", feature = "crypto-census"))]
crypto::init!();

fn main() {
    let _session = Session::start();
    // The input's one item, read from the hint stream as validation needs each part.
    let (source, len) = Hinted::open();
    let standard = validate_source(source, len, &GuestHasher);
    reveal_result(&standard.result);
}
