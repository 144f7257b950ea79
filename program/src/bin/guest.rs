//! The OpenVM guest: reads a [`program::StatelessInput`] (RLP), validates the block, and
//! reveals 96 bytes of public values: block hash, parent hash, post-state root. An invalid
//! block or an unreadable input panics, which ends the VM with the error text.
//!
//! With feature `openvm-crypto`, senders are recovered, and ECRECOVER, SHA256, BN254 ECADD /
//! ECMUL and P256VERIFY run, on OpenVM's chips (crate `crypto`).
//! With feature `crypto-census`, a second input (one byte: the `crypto::census::Op` to compute
//! twice, or 255 for none) follows the block, and the calls per operation follow the block's
//! public values as 12 little-endian u32 (software or chips as `openvm-crypto` says).
//! With feature `census`, the keccak census follows as 20 more words (10 little-endian u64:
//! the census counters, then the guest's total heap use in bytes).
#![cfg_attr(target_os = "zkvm", no_main)]
#![cfg_attr(target_os = "zkvm", no_std)]

extern crate alloc;

use alloy_rlp::Decodable;
use program::StatelessInput;

openvm::entry!(main);

// The moduli and curves the `crypto` crate declares, registered with the VM in the order of
// its config (`host::vm::vm_config`).
#[cfg(any(feature = "openvm-crypto", feature = "crypto-census"))]
crypto::init!();

fn reveal_words(first_word: usize, words: &[[u8; 4]]) {
    for (k, word) in words.iter().enumerate() {
        openvm::io::reveal_u32(u32::from_le_bytes(*word), first_word + k);
    }
}

fn main() {
    #[cfg(all(feature = "openvm-crypto", not(feature = "crypto-census")))]
    crypto::install();
    #[cfg(feature = "census")]
    let heap_start = mpt::keccak::census::heap_position();

    let bytes = openvm::io::read_vec();
    let input = StatelessInput::decode(&mut bytes.as_slice())
        .unwrap_or_else(|e| panic!("malformed input: {e}"));
    #[cfg(feature = "crypto-census")]
    {
        use crypto::census::{install, set_twice, Op};
        let twice = openvm::io::read_vec();
        set_twice(
            twice
                .first()
                .and_then(|&k| Op::ALL.get(k as usize).copied()),
        );
        assert!(
            install(cfg!(feature = "openvm-crypto")),
            "crypto providers already set"
        );
    }
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

    #[cfg(feature = "crypto-census")]
    for (k, calls) in crypto::census::calls().iter().enumerate() {
        openvm::io::reveal_u32(*calls, 24 + k);
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

#[cfg(all(feature = "census", feature = "crypto-census"))]
compile_error!("the keccak census and the precompile census reveal into the same words");
