//! The protocol's floor for a block's codes (issue 53): each code read from the input and
//! hashed, nothing else. A validator must do both for every code a block reads (it is trusted
//! only as the preimage of the account's code hash) and keep it (a later call in the block may
//! run it), so the cells of this probe over a block's witness codes are what any guest pays
//! for them on this VM, whatever it does besides. `host worst --floor` meters it beside each
//! generated block.
//!
//! Input: a first item of 4 bytes, the count `n` (little-endian), then `n` items, the codes.
//! Output: public value bytes 0..32, the XOR of the codes' hashes (so no hash is skipped).
#![cfg_attr(target_os = "zkvm", no_main)]
#![cfg_attr(target_os = "zkvm", no_std)]

extern crate alloc;

use alloc::vec::Vec;

openvm::entry!(main);

fn main() {
    let count = openvm::io::read_vec();
    let n = u32::from_le_bytes(count[..4].try_into().expect("a 4-byte count"));
    let mut kept = Vec::with_capacity(n as usize);
    let mut folded = [0u8; 32];
    for _ in 0..n {
        // One hint item into fresh heap words, as the guests read their witness items.
        let code = openvm::io::read_vec();
        for (f, h) in folded.iter_mut().zip(mpt::keccak256(&code)) {
            *f ^= h;
        }
        kept.push(code);
    }
    openvm::io::reveal_bytes32(folded);
    core::hint::black_box(kept);
}
