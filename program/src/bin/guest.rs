//! The OpenVM guest: reads a [`program::StatelessInput`] (RLP, nothing after it), validates the
//! block, and reveals its [`program::PublicValues`] (128 bytes: block hash, parent hash,
//! post-state root, chain-config digest). An invalid block or an unreadable input panics, which
//! ends the VM with the error text and no proof.
//!
//! With feature `openvm-crypto`, sender recovery and the precompiles' cryptography (ECRECOVER,
//! SHA256, MODEXP, BN254 and BLS12-381 arithmetic and pairings, KZG, P256VERIFY) run on
//! OpenVM's chips (crate `crypto`; RIPEMD160 and BLAKE2F stay software).
//! With feature `crypto-census`, a second input (one byte: the `crypto::census::Op` to compute
//! twice, or 255 for none) follows the block, and the calls per operation follow the block's
//! public values (word 32 on) as 12 little-endian u32 (software or chips as `openvm-crypto` says).
//! With feature `census`, the keccak census follows (word 32 on) as 20 words (10 little-endian u64:
//! the census counters, then the guest's total heap use in bytes).
#![cfg_attr(target_os = "zkvm", no_main)]
#![cfg_attr(target_os = "zkvm", no_std)]

extern crate alloc;

use program::{PublicValues, StatelessInput};

openvm::entry!(main);

/// The first public-value word after [`PublicValues`], where a census build reveals its counts.
#[cfg(any(feature = "census", feature = "crypto-census"))]
const CENSUS_WORD: usize = PublicValues::LEN / 4;

// The moduli and curves the `crypto` crate declares, registered with the VM in the order of
// its config (`host::vm::vm_config`).
#[cfg(any(feature = "openvm-crypto", feature = "crypto-census"))]
crypto::init!();

#[cfg(feature = "census")]
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
    let input = StatelessInput::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"));
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
    let public = PublicValues::new(&out, &input.chain).to_bytes();
    for (k, word) in public.chunks_exact(4).enumerate() {
        openvm::io::reveal_u32(u32::from_le_bytes(word.try_into().expect("4 bytes")), k);
    }

    #[cfg(feature = "crypto-census")]
    for (k, calls) in crypto::census::calls().iter().enumerate() {
        openvm::io::reveal_u32(*calls, CENSUS_WORD + k);
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
        reveal_words(CENSUS_WORD, &words);
    }
}

#[cfg(all(feature = "census", feature = "crypto-census"))]
compile_error!("the keccak census and the precompile census reveal into the same words");
