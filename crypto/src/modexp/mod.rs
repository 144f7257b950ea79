//! `MODEXP` (0x05, EIP-198) on the chips, for every non-zero modulus.
//!
//! - A modulus the guest declares (the BN254 base and scalar fields, secp256k1's, P-256's and
//!   BLS12-381's base field) runs on the modular-arithmetic chip: each product is one chip
//!   instruction. SNARK verifiers invert and take square roots in BN254's fields with
//!   `MODEXP` (`x^(p−2)`, `x^((p+1)/4)`).
//! - Any other modulus of up to 32 bytes runs on the Int256 chip ([`small`]): Montgomery
//!   products from 256-bit wrapping multiplies, and the Chinese remainder theorem for an even
//!   modulus. The algebra chips need their moduli fixed when the guest is built, and
//!   `openvm-bigint-guest` has no modular product, so this module builds one.
//! - Any longer modulus runs on the Int256 chip too ([`big`]): 120-bit digits, one per chip
//!   word, and long division.

mod big;
mod mont;
mod small;
mod window;
mod word;

use alloc::vec::Vec;

use openvm_algebra_guest::{IntMod, Reduce};

use crate::bls12_381::Bls12381Coord;
use crate::bn254::{Bn254Coord, Bn254Scalar};
use crate::p256::{P256Coord, P256Scalar};
use crate::secp256k1::{Secp256k1Coord, Secp256k1Scalar};

/// `base^exponent mod modulus` as big-endian bytes of the modulus' significant length, or
/// `None` when the modulus is zero (the caller falls back to revm's software, which answers
/// an empty output).
pub fn modexp(base: &[u8], exponent: &[u8], modulus: &[u8]) -> Option<Vec<u8>> {
    let start = modulus.iter().position(|b| *b != 0)?;
    let modulus = &modulus[start..];
    macro_rules! dispatch {
        ($($field:ty),*) => {
            $(
                // MODULUS is little-endian.
                if modulus.iter().rev().eq(<$field as IntMod>::MODULUS.as_ref()) {
                    return Some(pow::<$field>(base, exponent));
                }
            )*
        };
    }
    dispatch!(
        Bn254Coord,
        Bn254Scalar,
        Secp256k1Coord,
        Secp256k1Scalar,
        P256Coord,
        P256Scalar,
        Bls12381Coord
    );
    Some(if modulus.len() <= 32 {
        small::modexp(base, exponent, modulus)
    } else {
        big::modexp(base, exponent, modulus)
    })
}

/// `base^exponent` in the field, in the order [`window`] gives the other rings: a bit at a
/// time for a short exponent, 4-bit windows for a long one (a 256-bit exponent takes at most
/// 77 products besides its squares, 14 of them for the table, instead of one per set bit).
fn pow<F: IntMod + Reduce>(base: &[u8], exponent: &[u8]) -> Vec<u8>
where
    for<'a> &'a F: core::ops::Mul<&'a F, Output = F>,
{
    // `reduce_be_bytes` takes whole limbs: left-pad to a multiple of the field's size.
    let padded_len = base.len().div_ceil(F::NUM_LIMBS).max(1) * F::NUM_LIMBS;
    let mut padded = alloc::vec![0u8; padded_len - base.len()];
    padded.extend_from_slice(base);
    let base = F::reduce_be_bytes(&padded);
    let acc = if window::windowed(exponent) {
        pow_by::<F, 4>(base, exponent)
    } else {
        pow_by::<F, 1>(base, exponent)
    };
    acc.assert_reduced();
    acc.to_be_bytes().as_ref().to_vec()
}

/// [`pow`] over `WIDTH`-bit digits.
fn pow_by<F: IntMod, const WIDTH: u32>(base: F, exponent: &[u8]) -> F
where
    for<'a> &'a F: core::ops::Mul<&'a F, Output = F>,
{
    // `table[d − 1] = base^d` for every non-zero digit `d`.
    let mut table = alloc::vec![base];
    for d in 1..(1 << WIDTH) - 1 {
        let next = &table[d - 1] * &table[0];
        table.push(next);
    }
    let mut acc = F::ONE;
    window::walk::<WIDTH>(exponent, |step| {
        acc = match step {
            window::Step::First(d) => table[d - 1].clone(),
            window::Step::Square => &acc * &acc,
            window::Step::Mul(d) => &acc * &table[d - 1],
        }
    });
    acc
}
