//! BLS12-381 for the KZG point evaluation (`0x0A`, EIP-4844) and the EIP-2537 precompiles: G1
//! on the modular-arithmetic and short-Weierstrass chips (48-byte coordinates), G2 ([`g2`])
//! and the pairing ([`pairing`]) on the modular and Fp2 chips, the proof check ([`kzg`]) and
//! the precompiles' decoding and arithmetic ([`eip2537`]).
//!
//! In software one point evaluation costs ~140 M guest instructions (arkworks): 60% of
//! mainnet block 21882667.
//!
//! G1 points arrive compressed (48 bytes, the ZCash encoding arkworks and c-kzg read): the
//! square root is an exponentiation by `(p + 1)/4` on the chip (p ≡ 3 mod 4), so it runs the
//! same natively, where the tests compare it with arkworks; the subgroup check is `[r]P = O`.
#![allow(missing_docs)] // the macros generate undocumented items

pub mod eip2537;
pub mod g2;
mod iso;
pub mod kzg;
pub mod map;
pub mod pairing;

use core::ops::Neg;
use openvm_algebra_guest::IntMod;
use openvm_algebra_moduli_macros::moduli_declare;
use openvm_ecc_guest::weierstrass::WeierstrassPoint;
use openvm_ecc_guest::Group;
use openvm_ecc_sw_macros::sw_declare;

use crate::{be, le};

/// p, the coordinate field's modulus (big-endian hex, as `moduli_init!` takes it).
pub const COORDINATE_MODULUS: &str = "0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB";

/// r, the group order (big-endian hex).
pub const ORDER: &str = "0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001";

moduli_declare! {
    Bls12381Coord { modulus = "0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB" },
}

/// b = 4.
const CURVE_B: Bls12381Coord = Bls12381Coord::from_const_bytes(le::<48>(
    b"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004",
));

sw_declare! {
    Bls12381G1Affine { mod_type = Bls12381Coord, b = CURVE_B },
}

/// r, big-endian.
pub(crate) const ORDER_BE: [u8; 32] =
    be::<32>(b"73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");

/// (p + 1)/4, big-endian: `a^((p+1)/4)` is a square root of a when one exists.
const SQRT_EXPONENT: [u8; 48] = be::<48>(
    b"0680447a8e5ff9a692c6e9ed90d2eb35d91dd2e13ce144afd9cc34a83dac3d8907aaffffac54ffffee7fbfffffffeaab",
);

/// (p − 1)/2, big-endian: y is "lexicographically largest" when above it.
const HALF_P: [u8; 48] = be::<48>(
    b"0d0088f51cbff34d258dd3db21a5d66bb23ba5c279c2895fb39869507b587b120f55ffff58a9ffffdcff7fffffffd555",
);

/// The G1 generator.
pub fn generator() -> Bls12381G1Affine {
    // SAFETY: the standard generator is on the curve.
    unsafe {
        Bls12381G1Affine::from_xy_unchecked(
        Bls12381Coord::from_const_bytes(le::<48>(
            b"17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb",
        )),
        Bls12381Coord::from_const_bytes(le::<48>(
            b"08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1",
        )),
        )
    }
}

/// Why a compressed G1 point was refused (arkworks' `deserialize_compressed` refuses the same
/// inputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum G1Error {
    /// The compression flag is clear, or the sort flag is set on an infinity or uncompressed
    /// encoding.
    Flags,
    /// The infinity flag is set but x is not zero.
    NonZeroInfinity,
    /// x is not below p.
    NotAFieldElement,
    /// x³ + 4 is not a square.
    NotOnCurve,
    /// The point is not in the order-r subgroup.
    NotInG1,
}

/// Decodes a compressed G1 point (flags in the top three bits: compressed, infinity, y is the
/// larger root) and checks it is in G1; infinity is the identity.
pub fn read_compressed(bytes: &[u8; 48]) -> Result<Bls12381G1Affine, G1Error> {
    let (compressed, infinity, largest) = (
        bytes[0] >> 7 == 1,
        bytes[0] >> 6 & 1 == 1,
        bytes[0] >> 5 & 1 == 1,
    );
    if !compressed || (largest && infinity) {
        return Err(G1Error::Flags);
    }
    let mut x_bytes = *bytes;
    x_bytes[0] &= 0x1f;
    if infinity {
        return if x_bytes == [0; 48] {
            Ok(<Bls12381G1Affine as WeierstrassPoint>::IDENTITY)
        } else {
            Err(G1Error::NonZeroInfinity)
        };
    }
    let x = Bls12381Coord::from_be_bytes(&x_bytes).ok_or(G1Error::NotAFieldElement)?;
    let rhs = &(&x * &x) * &x + &CURVE_B;
    let mut y = sqrt(&rhs).ok_or(G1Error::NotOnCurve)?;
    y.assert_reduced();
    if (y.to_be_bytes().as_ref() > HALF_P.as_slice()) != largest {
        y = y.neg();
    }
    // SAFETY: y² = x³ + 4 was checked above.
    let point = unsafe { Bls12381G1Affine::from_xy_unchecked(x, y) };
    if !mul_be(&point, &ORDER_BE).is_identity() {
        return Err(G1Error::NotInG1);
    }
    Ok(point)
}

/// The point as x ‖ y, 48 bytes big-endian each, zeros for the identity (for tests).
pub fn to_uncompressed(point: &Bls12381G1Affine) -> [u8; 96] {
    let mut out = [0u8; 96];
    if !point.is_identity() {
        point.x.assert_reduced();
        point.y.assert_reduced();
        out[..48].copy_from_slice(point.x.to_be_bytes().as_ref());
        out[48..].copy_from_slice(point.y.to_be_bytes().as_ref());
    }
    out
}

/// A square root of `a`, `None` for a non-square: `a^((p+1)/4)` when it squares to `a`.
pub(crate) fn sqrt(a: &Bls12381Coord) -> Option<Bls12381Coord> {
    let s = pow_be(a, &SQRT_EXPONENT);
    (&s * &s == *a).then_some(s)
}

/// `a^e` for a big-endian exponent.
fn pow_be(a: &Bls12381Coord, exponent: &[u8]) -> Bls12381Coord {
    let mut acc = Bls12381Coord::ONE;
    for byte in exponent {
        for bit in (0..8).rev() {
            acc = &acc * &acc;
            if (byte >> bit) & 1 == 1 {
                acc *= a;
            }
        }
    }
    acc
}

/// `k · p` for a big-endian scalar (any bits): double-and-add on the chips, complete.
pub fn mul_be(point: &Bls12381G1Affine, scalar: &[u8]) -> Bls12381G1Affine {
    let mut acc = <Bls12381G1Affine as WeierstrassPoint>::IDENTITY;
    for byte in scalar {
        for bit in (0..8).rev() {
            acc.double_assign();
            if (byte >> bit) & 1 == 1 {
                acc += point;
            }
        }
    }
    acc
}
