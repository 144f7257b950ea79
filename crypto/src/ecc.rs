//! The curve arithmetic the ECDSA routines share, written for the chips: each point addition
//! and doubling is one VM instruction, so what costs is the guest code around them.
//! `openvm-ecc-guest`'s general MSM allocates bucket vectors on every one-bit window and spends
//! about twice the curve operations for two points; these do the two-point case directly.

use openvm_algebra_guest::{IntMod, Reduce};
use openvm_ecc_guest::weierstrass::WeierstrassPoint;
use openvm_ecc_guest::Group;

/// a·P + b·Q (scalars as little-endian bytes, any representative mod the group order) by
/// Straus–Shamir: one doubling chain over the bits from the top, adding P, Q or P + Q where a
/// bit is set (for 256-bit scalars about 256 doublings and 192 additions), with no heap.
pub fn double_mul<P: Group>(a: &[u8], p: &P, b: &[u8], q: &P) -> P {
    debug_assert_eq!(a.len(), b.len());
    let mut both = p.clone();
    both += q;
    let mut acc = <P as Group>::IDENTITY;
    for i in (0..a.len() * 8).rev() {
        acc.double_assign();
        let bit = |k: &[u8]| (k[i / 8] >> (i % 8)) & 1;
        match (bit(a), bit(b)) {
            (1, 0) => acc += p,
            (0, 1) => acc += q,
            (1, 1) => acc += &both,
            _ => {}
        }
    }
    acc
}

/// ECDSA verification of `r ‖ s` (big-endian) over a 32-byte prehash under `key`, with
/// generator `g` and scalar field `S`: r and s in [1, n), then x(u1·G + u2·Q) ≡ r (mod n)
/// with u1 = z/s, u2 = r/s. High s is accepted.
pub fn ecdsa_verify<S, P>(key: &P, g: &P, prehash: &[u8; 32], rs: &[u8; 64]) -> bool
where
    S: IntMod + Reduce,
    P: Group + WeierstrassPoint,
    P::Coordinate: IntMod,
{
    ecdsa_point::<S, P>(key, g, prehash, rs)
        .is_some_and(|(point, r)| S::reduce_le_bytes(point.x().as_le_bytes()) == r)
}

/// The point u1·G + u2·Q of ECDSA verification (u1 = z/s, u2 = r/s), and r; `None` when r or s
/// is not in [1, n) or the point is the identity. For the key the signature recovers with recovery id
/// v, it is the signature's R itself (x = r, or r + n where r overflowed; y of parity v): the
/// other candidate's key gives −R.
pub fn ecdsa_point<S, P>(key: &P, g: &P, prehash: &[u8; 32], rs: &[u8; 64]) -> Option<(P, S)>
where
    S: IntMod + Reduce,
    P: Group + WeierstrassPoint,
    P::Coordinate: IntMod,
{
    let (Some(r), Some(s)) = (S::from_be_bytes(&rs[..32]), S::from_be_bytes(&rs[32..])) else {
        return None;
    };
    if r == S::ZERO || s == S::ZERO {
        return None;
    }
    // z: the prehash as an integer; a representative mod n is enough.
    let z = S::from_be_bytes_unchecked(prehash);
    let u1 = z.div_unsafe(&s);
    let u2 = r.clone().div_unsafe(&s);
    let point = double_mul(u1.as_le_bytes(), g, u2.as_le_bytes(), key);
    (!point.is_identity()).then_some((point, r))
}
