//! The KZG point-evaluation check of EIP-4844 (`0x0A`), as revm's `verify_kzg_proof`:
//! `e(C − y·G1, −G2) · e(π, [τ]G2 − z·G2) = 1`, false for a commitment or proof that does not
//! decode to a G1 point, or z or y not below r.

use core::ops::Neg;

use super::g2::{self, G2Affine};
use super::{generator, mul_be, read_compressed, ORDER_BE};
use crate::twist;

/// Whether `proof` shows that the polynomial committed to by `commitment` is `y` at `z`.
pub fn verify_kzg_proof(
    z: &[u8; 32],
    y: &[u8; 32],
    commitment: &[u8; 48],
    proof: &[u8; 48],
) -> bool {
    let (Ok(c), Ok(pi)) = (read_compressed(commitment), read_compressed(proof)) else {
        return false;
    };
    if z.as_slice() >= ORDER_BE.as_slice() || y.as_slice() >= ORDER_BE.as_slice() {
        return false;
    }
    // C − y·G1, on the G1 chips.
    let mut lhs = mul_be(&generator(), y).neg();
    lhs += &c;
    // [τ]G2 − z·G2, on the Fp2 chip.
    let z_g2: Option<G2Affine> = g2::generator().mul_be(z).map(|p| p.neg());
    let rhs = twist::add(&Some(g2::tau()), &z_g2);
    super::pairing::product_is_one(&[(lhs, Some(g2::generator().neg())), (pi, rhs)])
}
