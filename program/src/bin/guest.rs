//! The OpenVM guest: reads a [`program::StatelessInput`] (RLP), validates the block, and
//! reveals 96 bytes of public values: block hash, parent hash, post-state root. An invalid
//! block or an unreadable input panics, which ends the VM with the error text.
//!
//! With feature `openvm-crypto`, senders are recovered on OpenVM's secp256k1 chips.
//! With feature `census`, the keccak census follows as 20 more words (10 little-endian u64:
//! the census counters, then the guest's total heap use in bytes).
#![cfg_attr(target_os = "zkvm", no_main)]
#![cfg_attr(target_os = "zkvm", no_std)]

extern crate alloc;

use alloy_rlp::Decodable;
use program::StatelessInput;

openvm::entry!(main);

// The moduli and the curve the `crypto` crate declares, registered with the VM in the order
// of its config (`host::vm::vm_config`).
#[cfg(feature = "openvm-crypto")]
openvm_algebra_guest::moduli_macros::moduli_init! {
    "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F",
    "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"
}
#[cfg(feature = "openvm-crypto")]
openvm_ecc_guest::sw_macros::sw_init! { "Secp256k1Point" }

fn reveal_words(first_word: usize, words: &[[u8; 4]]) {
    for (k, word) in words.iter().enumerate() {
        openvm::io::reveal_u32(u32::from_le_bytes(*word), first_word + k);
    }
}

fn main() {
    #[cfg(feature = "openvm-crypto")]
    crypto::install();
    #[cfg(feature = "census")]
    let heap_start = mpt::keccak::census::heap_position();

    let bytes = openvm::io::read_vec();
    let input = StatelessInput::decode(&mut bytes.as_slice())
        .unwrap_or_else(|e| panic!("malformed input: {e}"));
    let out = input
        .validate()
        .unwrap_or_else(|e| panic!("invalid block: {e}"));
    for (k, value) in [out.block_hash, out.parent_hash, out.post_state_root]
        .iter()
        .enumerate()
    {
        let words: alloc::vec::Vec<[u8; 4]> = value
            .0
            .chunks_exact(4)
            .map(|c| c.try_into().expect("4 bytes"))
            .collect();
        reveal_words(8 * k, &words);
    }

    #[cfg(feature = "census")]
    {
        let heap = (mpt::keccak::census::heap_position() - heap_start) as u64;
        let census = mpt::keccak::census::snapshot().to_words();
        let words: alloc::vec::Vec<[u8; 4]> = census
            .iter()
            .chain([heap].iter())
            .flat_map(|w| {
                w.to_le_bytes()
                    .chunks_exact(4)
                    .map(|c| <[u8; 4]>::try_from(c).expect("4 bytes"))
                    .collect::<alloc::vec::Vec<_>>()
            })
            .collect();
        reveal_words(24, &words);
    }
}
