//! BN254's G2: points on the sextic twist `y² = x³ + 3/ξ` over `Fp2 = Fp[u]/(u² + 1)`,
//! `ξ = 9 + u`, decoded and checked exactly as revm's `ECPAIRING` does (EIP-197): each
//! coordinate below p, (0, 0) is the point at infinity, anything else must be on the twist
//! and in the order-r subgroup.
//!
//! `Bn254Fp2` is declared with `complex_declare!`, so each `Fp2` product or quotient is one
//! instruction of OpenVM's Fp2 chip. The subgroup check is the one arkworks uses (Section 4.3
//! of <https://eprint.iacr.org/2022/352>): Q is in G2 iff `ψ(Q) = [6x²]Q`, with ψ the
//! untwist-Frobenius-twist endomorphism, a 127-bit scalar multiplication instead of a 254-bit
//! one, with [`crate::twist`]'s complete arithmetic (the twist has points of small order).
#![allow(missing_docs)] // the macro generates undocumented items

use openvm_algebra_guest::complex_macros::complex_declare;
use openvm_algebra_guest::IntMod;

use super::Bn254Coord;
use crate::le_bytes;
use crate::tower::{Fp2Arith, Frobenius};
use crate::twist::Affine;

complex_declare! {
    Bn254Fp2 { mod_type = Bn254Coord },
}

crate::tower::impl_fp2_arith!(
    Bn254Fp2,
    XI,
    complex_add_extern_func_Bn254Fp2,
    complex_sub_extern_func_Bn254Fp2,
    complex_mul_extern_func_Bn254Fp2,
    complex_div_extern_func_Bn254Fp2
);

/// ξ = 9 + u.
pub const XI: Bn254Fp2 = Bn254Fp2::new(
    Bn254Coord::from_const_bytes(le_bytes(
        b"0000000000000000000000000000000000000000000000000000000000000009",
    )),
    Bn254Coord::from_const_bytes(le_bytes(
        b"0000000000000000000000000000000000000000000000000000000000000001",
    )),
);

/// (p − 1)/6, big-endian: `ξ^((p − 1)/6)` generates the Frobenius constants.
const FROBENIUS_EXPONENT: [u8; 32] = be(le_bytes(
    b"0810b7bdd032f006f40d60f3c0403964ee9591c2e6bda1c234b017592414d4e1",
));

/// BN254's parameter x (positive).
pub const SEED: u64 = 0x44e9_92b4_4a69_09f1;

/// 6x², the scalar of the subgroup check.
const SIX_X_SQUARED: u128 = 6 * (SEED as u128) * (SEED as u128);

const fn be(mut bytes: [u8; 32]) -> [u8; 32] {
    let mut i = 0;
    while i < 16 {
        let t = bytes[i];
        bytes[i] = bytes[31 - i];
        bytes[31 - i] = t;
        i += 1;
    }
    bytes
}

/// The Frobenius constants `ξ^(j(p^k − 1)/6)` (computed on the chip: ~400 `Fp2` operations).
pub fn frobenius() -> Frobenius<Bn254Fp2> {
    Frobenius::new(XI.pow_be(&FROBENIUS_EXPONENT))
}

/// An affine point of the twist.
pub type G2Affine = Affine<Bn254Fp2>;

/// An affine point of the twist, `None` for the point at infinity.
pub type G2 = Option<G2Affine>;

/// Why a G2 input was refused (revm's `PrecompileHalt` of the same name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum G2Error {
    /// A coordinate is not below p.
    NotAFieldElement,
    /// The point is not (0, 0), and not on the twist or not in the order-r subgroup.
    NotInG2,
}

/// Reads a G2 point from 128 bytes, `x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0`, each 32 bytes big-endian
/// (EIP-197's order: the imaginary part first).
pub fn read(bytes: &[u8; 128], frob: &Frobenius<Bn254Fp2>) -> Result<G2, G2Error> {
    let coord = |i: usize| {
        Bn254Coord::from_be_bytes(&bytes[32 * i..32 * (i + 1)]).ok_or(G2Error::NotAFieldElement)
    };
    let (x1, x0, y1, y0) = (coord(0)?, coord(1)?, coord(2)?, coord(3)?);
    let point = G2Affine {
        x: Bn254Fp2::new(x0, x1),
        y: Bn254Fp2::new(y0, y1),
    };
    if point.x == Bn254Fp2::ZERO && point.y == Bn254Fp2::ZERO {
        return Ok(None);
    }
    // The twist's b is 3/ξ.
    if !point.is_on_curve(&THREE.div(&XI)) || !is_in_subgroup(&point, frob) {
        return Err(G2Error::NotInG2);
    }
    Ok(Some(point))
}

/// `ψ(Q) = [6x²]Q`; assumes the point is on the twist.
pub fn is_in_subgroup(q: &G2Affine, frob: &Frobenius<Bn254Fp2>) -> bool {
    q.mul_be(&SIX_X_SQUARED.to_be_bytes()) == Some(psi(q, frob))
}

/// ψ(x, y) = (x̄·ξ^((p−1)/3), ȳ·ξ^((p−1)/2)): untwist, p-power Frobenius, twist.
pub fn psi(q: &G2Affine, frob: &Frobenius<Bn254Fp2>) -> G2Affine {
    let mut r = q.clone();
    r.x.conj_assign();
    r.x.mul_assign(frob.coeff(1, 2));
    r.y.conj_assign();
    r.y.mul_assign(frob.coeff(1, 3));
    r
}

/// 3.
pub(crate) const THREE: Bn254Fp2 = Bn254Fp2::new(
    Bn254Coord::from_const_bytes(le_bytes(
        b"0000000000000000000000000000000000000000000000000000000000000003",
    )),
    Bn254Coord::from_const_bytes(le_bytes(
        b"0000000000000000000000000000000000000000000000000000000000000000",
    )),
);

#[cfg(test)]
mod tests {
    #[test]
    fn six_x_squared_has_127_bits() {
        assert_eq!(super::SIX_X_SQUARED >> 126, 1);
    }
}
