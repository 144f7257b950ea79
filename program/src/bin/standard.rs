//! The standard OpenVM guest (EIP-8025): reads the execution specs' stateless input bytes,
//! validates the block ([`program::standard`]), and reveals the 43-byte
//! `StatelessValidationResult`, then zero bytes to the public-value width. Every input ends
//! normally: an invalid block reveals `false`, so it has a proof; bytes that do not decode
//! reveal 43 zero bytes.
#![cfg_attr(target_os = "zkvm", no_main)]
#![cfg_attr(target_os = "zkvm", no_std)]

use program::guest::{reveal_result, Session};
use program::standard::{validate_bytes, GuestHasher};

openvm::entry!(main);

// The moduli and curves the `crypto` crate declares, registered with the VM in the order of
// its config (`host::vm::config`).
#[cfg(any(feature = "openvm-crypto", feature = "crypto-census"))]
crypto::init!();

fn main() {
    let _session = Session::start();
    // Leaked, as every buffer the guest reads (the bump allocator never frees): a static
    // `Bytes`, whose witness items are views into it with no shared header to count.
    let bytes = alloy_primitives::Bytes::from_static(openvm::io::read_vec().leak());
    let standard = validate_bytes(&bytes, &GuestHasher);
    reveal_result(&standard.result);
}
