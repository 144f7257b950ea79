//! BLS12-381's G2: the M-type sextic twist `y² = x³ + 4ξ` over `Fp2 = Fp[u]/(u² + 1)`,
//! `ξ = 1 + u`. The KZG check needs only the generator, the trusted setup's `[τ]G2` and
//! scalar multiples of the generator, so no G2 input is ever decoded or subgroup-checked.
//!
//! `Bls12381Fp2` is declared with `complex_declare!`: each `Fp2` operation is one Fp2-chip
//! instruction (48-byte coordinates).
#![allow(missing_docs)] // the macro generates undocumented items

use openvm_algebra_guest::complex_macros::complex_declare;
use openvm_algebra_guest::IntMod;

use super::Bls12381Coord;
use crate::tower::{Fp2Arith, Frobenius};
use crate::twist::Affine;
use crate::{be, le};

complex_declare! {
    Bls12381Fp2 { mod_type = Bls12381Coord },
}

crate::tower::impl_fp2_arith!(
    Bls12381Fp2,
    XI,
    complex_add_extern_func_Bls12381Fp2,
    complex_sub_extern_func_Bls12381Fp2,
    complex_mul_extern_func_Bls12381Fp2,
    complex_div_extern_func_Bls12381Fp2
);

/// An `Fp` constant from 96 hex digits.
pub(super) const fn fp(hex: &[u8; 96]) -> Bls12381Coord {
    Bls12381Coord::from_const_bytes(le::<48>(hex))
}

/// An `Fp2` constant, `c0 + c1·u`.
pub(super) const fn fp2(c0: &[u8; 96], c1: &[u8; 96]) -> Bls12381Fp2 {
    Bls12381Fp2::new(fp(c0), fp(c1))
}

/// ξ = 1 + u.
pub const XI: Bls12381Fp2 = fp2(
    b"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
    b"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
);

/// (p − 1)/6, big-endian: `ξ^((p − 1)/6)` generates the Frobenius constants.
const FROBENIUS_EXPONENT: [u8; 48] = be::<48>(
    b"045582fc5eeaa66f0c849bf3b5e1f223e613e1eb7deb831fe688231ad3c82906051caaaa72e3555549aa7ffffffff1c7",
);

/// The Frobenius constants `ξ^(j(p^k − 1)/6)` (computed on the chip: ~570 `Fp2` operations).
pub fn frobenius() -> Frobenius<Bls12381Fp2> {
    Frobenius::new(XI.pow_be(&FROBENIUS_EXPONENT))
}

/// An affine point of the twist.
pub type G2Affine = Affine<Bls12381Fp2>;

/// The G2 generator.
pub fn generator() -> G2Affine {
    Affine {
        x: fp2(
            b"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
            b"13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e",
        ),
        y: fp2(
            b"0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
            b"0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be",
        ),
    }
}

/// `[τ]G2` of the Ethereum KZG trusted setup (revm's `TRUSTED_SETUP_TAU_G2_BYTES`,
/// decompressed; a test checks the two agree).
pub fn tau() -> G2Affine {
    Affine {
        x: fp2(
            b"185cbfee53492714734429b7b38608e23926c911cceceac9a36851477ba4c60b087041de621000edc98edada20c1def2",
            b"15bfd7dd8cdeb128843bc287230af38926187075cbfbefa81009a2ce615ac53d2914e5870cb452d2afaaab24f3499f72",
        ),
        y: fp2(
            b"014353bdb96b626dd7d5ee8599d1fca2131569490e28de18e82451a496a9c9794ce26d105941f383ee689bfbbb832a99",
            b"1666c54b0a32529503432fcae0181b4bef79de09fc63671fda5ed1ba9bfa07899495346f3d7ac9cd23048ef30d0a154f",
        ),
    }
}

/// A point's coordinates, `x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1`, 48 bytes big-endian each (for tests).
pub fn from_be_bytes(bytes: &[u8; 192]) -> Option<G2Affine> {
    let c = |i: usize| Bls12381Coord::from_be_bytes(&bytes[48 * i..48 * (i + 1)]);
    Some(Affine {
        x: Bls12381Fp2::new(c(0)?, c(1)?),
        y: Bls12381Fp2::new(c(2)?, c(3)?),
    })
}
