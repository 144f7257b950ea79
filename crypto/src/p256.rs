//! secp256r1 (P-256) ECDSA verification, the `P256VERIFY` precompile (0x100, EIP-7951 in
//! Osaka), on the modular-arithmetic and short-Weierstrass chips.
#![allow(missing_docs)] // the macros generate undocumented items

use core::ops::Neg;
use openvm_algebra_guest::IntMod;
use openvm_algebra_moduli_macros::moduli_declare;
use openvm_ecc_guest::weierstrass::WeierstrassPoint;
use openvm_ecc_guest::{CyclicGroup, Group};
use openvm_ecc_sw_macros::sw_declare;

use crate::ecc::ecdsa_verify;
use crate::le_bytes;

/// p, the coordinate field's modulus (big-endian hex, as `moduli_init!` takes it).
pub const COORDINATE_MODULUS: &str =
    "0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF";
/// n, the group order (the scalar field's modulus).
pub const SCALAR_MODULUS: &str =
    "0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551";

moduli_declare! {
    P256Coord { modulus = "0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF" },
    P256Scalar { modulus = "0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551" },
}

/// a = p − 3.
const CURVE_A: P256Coord = P256Coord::from_const_bytes(le_bytes(
    b"FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFC",
));
const CURVE_B: P256Coord = P256Coord::from_const_bytes(le_bytes(
    b"5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B",
));

sw_declare! {
    P256Point { mod_type = P256Coord, a = CURVE_A, b = CURVE_B },
}

const GX: [u8; 32] = le_bytes(b"6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296");
const GY: [u8; 32] = le_bytes(b"4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5");
/// p − G.y.
const NEG_GY: [u8; 32] =
    le_bytes(b"B01CBD1C01E58065711814B583F061E9D431CCA994CEA1313449BF97C840AE0A");

impl CyclicGroup for P256Point {
    const GENERATOR: Self = P256Point {
        x: P256Coord::from_const_bytes(GX),
        y: P256Coord::from_const_bytes(GY),
    };
    const NEG_GENERATOR: Self = P256Point {
        x: P256Coord::from_const_bytes(GX),
        y: P256Coord::from_const_bytes(NEG_GY),
    };
}

/// Whether `r ‖ s` signs `prehash` under the public key `x ‖ y` (all big-endian), as
/// `P256VERIFY` decides: r and s in [1, n), the key a point of the curve other than
/// infinity; high s is accepted.
pub fn verify(prehash: &[u8; 32], rs: &[u8; 64], xy: &[u8; 64]) -> bool {
    let (Some(x), Some(y)) = (
        P256Coord::from_be_bytes(&xy[..32]),
        P256Coord::from_be_bytes(&xy[32..]),
    ) else {
        return false;
    };
    // SAFETY: `from_xy_nonidentity` checks the point is on the curve and not infinity; it
    // skips only the subgroup check, which P-256 (cofactor 1) does not need.
    let Some(point) = (unsafe { P256Point::from_xy_nonidentity(x, y) }) else {
        return false;
    };
    ecdsa_verify::<P256Scalar, _>(&point, &P256Point::GENERATOR, prehash, rs)
}
