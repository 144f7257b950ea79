//! The OpenVM guest: reads a [`program::StatelessInput`], validates the block, and reveals its
//! [`program::PublicValues`] (block hash, parent hash, post-state root, chain-config digest).
//! A block that is not valid ends the guest with its verdict's exit code and no public values
//! ([`program::guest::refuse`]). The
//! instrumented builds' hooks live in [`program::guest`].
#![cfg_attr(target_os = "zkvm", no_main)]
#![cfg_attr(target_os = "zkvm", no_std)]

use program::guest::{refuse, Session};
use program::PublicValues;

openvm::entry!(main);

// The moduli and curves the `crypto` crate declares, registered with the VM in the order of
// its config (`host::vm::config`).
#[cfg(any(feature = "openvm-crypto", feature = "crypto-census"))]
crypto::init!();

fn main() {
    let session = Session::start();
    let input = session.read_input();
    match input.validate() {
        Ok(out) => session.reveal(&PublicValues::new(&out, &input.chain)),
        Err(e) => refuse(e.verdict(), &e),
    }
}
