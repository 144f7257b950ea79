//! `P256VERIFY` (EIP-7951), keys and signatures built with the `p256` crate.
//!
//! Signatures: honest ones over edge prehashes (0, n, n + 1, p, 2²⁵⁶ − 1, random); their
//! high-s twins; signatures crafted by recovery for any chosen R and s (key Q = r⁻¹(sR − zG)),
//! including s = 1 and s = n − 1, and the other candidate key (which verifies too); R with
//! x in [n, p), so r = x − n (the x-overflow a verifier must reduce; r = x itself must fail);
//! keys making the verification point u1·G + u2·Q the identity (Q = −(z/r)·G), which must
//! fail. Mutations: r or s replaced by 0, 1, n − 1, n, n + 1, 2²⁵⁶ − 1; the prehash changed;
//! the key replaced by (0, 0) (the point at infinity's encoding, also where recovery gave
//! infinity), a coordinate ≥ p, an off-curve neighbour, the curve's point with x = 0, ±G, or
//! the negated key.

use alloy_primitives::{hex, U256};
use crypto::check::Tag;
use p256::ecdsa::{signature::hazmat::PrehashSigner, Signature, SigningKey};
use p256::elliptic_curve::ops::Reduce;
use p256::elliptic_curve::point::AffineCoordinates;
use p256::elliptic_curve::sec1::{FromEncodedPoint, ToEncodedPoint};
use p256::elliptic_curve::Field;
use p256::{AffinePoint, EncodedPoint, FieldBytes, ProjectivePoint, Scalar};
use rand::{rngs::SmallRng, Rng};

use super::{edge_u256, pick, rng, run, scale};

const P: U256 = U256::from_be_bytes(hex!(
    "FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF"
));
const N: U256 = U256::from_be_bytes(hex!(
    "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"
));

fn scalar(bytes: &[u8; 32]) -> Scalar {
    <Scalar as Reduce<p256::U256>>::reduce_bytes(&FieldBytes::from(*bytes))
}

fn random_scalar(rng: &mut SmallRng) -> Scalar {
    loop {
        let k = scalar(&rng.random());
        if !bool::from(k.is_zero()) {
            return k;
        }
    }
}

/// x ‖ y, (0, 0) for the identity.
fn xy(p: ProjectivePoint) -> [u8; 64] {
    let encoded = p.to_affine().to_encoded_point(false);
    encoded
        .as_bytes()
        .get(1..65)
        .map_or([0; 64], |b| b.try_into().unwrap())
}

/// The curve point with this x (even y), if there is one.
fn point_at(x: [u8; 32]) -> Option<ProjectivePoint> {
    let encoded = EncodedPoint::from_bytes([&[2u8][..], &x].concat()).ok()?;
    let point: Option<AffinePoint> = AffinePoint::from_encoded_point(&encoded).into();
    point.map(ProjectivePoint::from)
}

/// The key that signature (r = R.x mod n, s) recovers for prehash z with R: r⁻¹(sR − zG).
fn recovered(big_r: ProjectivePoint, r: Scalar, s: Scalar, z: Scalar) -> ProjectivePoint {
    (big_r * s - ProjectivePoint::GENERATOR * z) * r.invert().unwrap()
}

/// msg ‖ r ‖ s ‖ x ‖ y.
fn input(msg: &[u8; 32], r: U256, s: U256, key: &[u8; 64]) -> Vec<u8> {
    [
        &msg[..],
        &r.to_be_bytes::<32>(),
        &s.to_be_bytes::<32>(),
        key,
    ]
    .concat()
}

fn u256(s: Scalar) -> U256 {
    U256::from_be_slice(&s.to_bytes())
}

/// An R whose x is in [n, p) (p − n ≈ 2¹²⁸, so found by search from n + 1; r = 0 is no signature).
fn overflowing_r() -> ProjectivePoint {
    let mut x = N + U256::from(1);
    loop {
        if let Some(point) = point_at(x.to_be_bytes()) {
            return point;
        }
        x += U256::from(1);
    }
}

/// The `P256VERIFY` cases.
pub fn cases(rng: &mut SmallRng, n: usize) -> Vec<(Tag, Vec<u8>)> {
    let overflow = overflowing_r();
    let x0 = point_at([0; 32]);
    (0..n)
        .map(|_| {
            let msg: [u8; 32] = if rng.random_bool(0.3) {
                edge_u256(rng, N).to_be_bytes()
            } else {
                rng.random()
            };
            let z = scalar(&msg);
            // A valid (msg, r, s, key), most of the time.
            let (mut r, mut s, mut key) = match rng.random_range(0..8) {
                0..=2 => {
                    // Secrets ±1 and ±2 too: keys ±G and ±2G, where the double multiplication's
                    // G + Q is 2G, the identity, 3G or −G.
                    let secret = match rng.random_range(0..10) {
                        0 => pick(
                            rng,
                            &[
                                Scalar::ONE,
                                -Scalar::ONE,
                                Scalar::from(2u64),
                                -Scalar::from(2u64),
                            ],
                        ),
                        _ => random_scalar(rng),
                    };
                    let key = SigningKey::from_bytes(&secret.to_bytes()).unwrap();
                    let sig: Signature = key.sign_prehash(&msg).unwrap();
                    let (r, s) = (u256(*sig.r()), u256(*sig.s()));
                    let s = if rng.random_bool(0.3) { N - s } else { s };
                    (
                        r,
                        s,
                        xy(ProjectivePoint::from(*key.verifying_key().as_affine())),
                    )
                }
                // Recovery for a chosen R and s, and the other candidate (−R).
                3 | 4 => {
                    let big_r = ProjectivePoint::GENERATOR * random_scalar(rng);
                    let r = scalar(&big_r.to_affine().x().into());
                    let random = random_scalar(rng);
                    let s = pick(rng, &[Scalar::ONE, -Scalar::ONE, random, random]);
                    let signer = if rng.random_bool(0.5) { big_r } else { -big_r };
                    (u256(r), u256(s), xy(recovered(signer, r, s, z)))
                }
                // x(R) ≥ n: r = x − n verifies; r = x (not below n) does not.
                5 => {
                    let x = U256::from_be_slice(&overflow.to_affine().x());
                    let r = x - N;
                    let s = random_scalar(rng);
                    let key = xy(recovered(overflow, scalar(&r.to_be_bytes()), s, z));
                    (pick(rng, &[r, r, x]), u256(s), key)
                }
                // u1·G + u2·Q = O: refused.
                6 => {
                    let (r, s) = (random_scalar(rng), random_scalar(rng));
                    let key = -(ProjectivePoint::GENERATOR * (z * r.invert().unwrap()));
                    (u256(r), u256(s), xy(key))
                }
                _ => {
                    let key = xy(ProjectivePoint::GENERATOR * random_scalar(rng));
                    (edge_u256(rng, N), edge_u256(rng, N), key)
                }
            };
            let mut msg = msg;
            if rng.random_bool(0.4) {
                match rng.random_range(0..4) {
                    0 => r = edge_u256(rng, N),
                    1 => s = edge_u256(rng, N),
                    2 => msg[rng.random_range(0..32)] ^= 1 << rng.random_range(0..8),
                    _ => key = key_edge(rng, &key, x0),
                }
            }
            (Tag::P256Verify, input(&msg, r, s, &key))
        })
        .collect()
}

/// The keys an attacker would try in place of `key`.
fn key_edge(rng: &mut SmallRng, key: &[u8; 64], x0: Option<ProjectivePoint>) -> [u8; 64] {
    let mut out = *key;
    match rng.random_range(0..8) {
        0 => [0; 64],
        1 => {
            let i = rng.random_range(0..2);
            let bad = pick(rng, &[P, P + U256::from(1), U256::MAX]);
            out[32 * i..32 * i + 32].copy_from_slice(&bad.to_be_bytes::<32>());
            out
        }
        // The same point with x + p or y + p, where that fits in 32 bytes.
        2 => {
            let i = rng.random_range(0..2);
            let c = U256::from_be_slice(&key[32 * i..32 * i + 32]);
            if let Some(sum) = c.checked_add(P) {
                out[32 * i..32 * i + 32].copy_from_slice(&sum.to_be_bytes::<32>());
            }
            out
        }
        3 => {
            out[63] ^= 1;
            out
        }
        4 => x0.map_or(out, xy),
        5 => xy(pick(
            rng,
            &[ProjectivePoint::GENERATOR, -ProjectivePoint::GENERATOR],
        )),
        6 => {
            let y = U256::from_be_slice(&key[32..]);
            out[32..].copy_from_slice(&(P - y).to_be_bytes::<32>());
            out
        }
        _ => {
            let i = rng.random_range(0..2);
            out[32 * i..32 * i + 32].fill(0);
            out
        }
    }
}

#[test]
fn p256_verify() {
    let cases = cases(&mut rng("p256 verify"), 1000 * scale());
    run("P256VERIFY", &cases, 4, 200);
}
