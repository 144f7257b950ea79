//! secp256k1: `ECRECOVER` (`OpenVmPrecompiles::secp256k1_ecrecover`, against revm's
//! `DefaultCrypto`) and alloy's two provider hooks on `OpenVmSecp256k1`,
//! `recover_signer_unchecked` (transaction senders, EIP-7702 authorities) and
//! `verify_and_compute_signer_unchecked`, against alloy's own k256 backend (replicated here:
//! it is private to alloy-consensus), keys and signatures built with k256.
//!
//! Signatures: honest ones (secrets ±1, ±2 among them) over edge prehashes, with the other
//! parity, high s and both; signatures crafted by recovery for any chosen R and s; R with x in
//! [n, p), so r = x − n with recovery ids 2 and 3 (the x-overflow; r + n must stay below p);
//! R = (z/s)·G, whose recovered key is the point at infinity; keys making the verification
//! point the identity (Q = −(z/r)·G). Mutations: r or s replaced by 0, 1, n − 1, n, n + 1,
//! p − 1, p, 2²⁵⁶ − 1; every recovery id 0–3; the prehash changed. Keys for verification:
//! the signer, the other recovery candidate (which verifies too), the crafted zero key
//! 0x04 ‖ 0⁶⁴ beside the R = (z/s)·G signature that verified under it before the lead's fix
//! (must be refused, as k256 refuses it), coordinates p and 2²⁵⁶ − 1, off-curve neighbours, the
//! negated key, ±G, and SEC1 prefixes other than 0x04 (compressed, hybrid, identity).
//! Recovery ids from 4 up are refused (alloy's k256 backend and revm's panic on them, so they
//! are checked on the guest alone).

use alloy_consensus::crypto::backend::CryptoProvider;
use alloy_primitives::{hex, keccak256, Address, U256};
use crypto::check::Tag;
use k256::ecdsa::{RecoveryId, Signature, SigningKey, VerifyingKey};
use k256::elliptic_curve::ops::Reduce;
use k256::elliptic_curve::point::AffineCoordinates;
use k256::elliptic_curve::sec1::{FromEncodedPoint, ToEncodedPoint};
use k256::{AffinePoint, EncodedPoint, FieldBytes, ProjectivePoint, Scalar};
use rand::{rngs::SmallRng, Rng};
use revm::precompile::Crypto;

use super::{edge_u256, panic_message, pick, rng, scale, Family};

const P: U256 = U256::from_be_bytes(hex!(
    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F"
));
const N: U256 = U256::from_be_bytes(hex!(
    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"
));

fn scalar(bytes: &[u8; 32]) -> Scalar {
    <Scalar as Reduce<k256::U256>>::reduce_bytes(&FieldBytes::from(*bytes))
}

fn random_scalar(rng: &mut SmallRng) -> Scalar {
    loop {
        let k = scalar(&rng.random());
        if !bool::from(k.is_zero()) {
            return k;
        }
    }
}

fn u256(s: Scalar) -> U256 {
    U256::from_be_slice(&s.to_bytes())
}

/// x ‖ y, (0, 0) for the identity.
fn xy(p: ProjectivePoint) -> [u8; 64] {
    let encoded = p.to_affine().to_encoded_point(false);
    encoded
        .as_bytes()
        .get(1..65)
        .map_or([0; 64], |b| b.try_into().unwrap())
}

/// The curve point with this x and y's parity, if there is one.
fn point_at(x: U256, odd: bool) -> Option<ProjectivePoint> {
    let tag = if odd { 3u8 } else { 2 };
    let encoded = EncodedPoint::from_bytes([&[tag][..], &x.to_be_bytes::<32>()].concat()).ok()?;
    let point: Option<AffinePoint> = AffinePoint::from_encoded_point(&encoded).into();
    point.map(ProjectivePoint::from)
}

/// (x(R) as an integer, y(R) odd).
fn coordinates(p: ProjectivePoint) -> (U256, bool) {
    let affine = p.to_affine();
    (
        U256::from_be_slice(&affine.x()),
        bool::from(affine.y_is_odd()),
    )
}

/// The key a signature (r, s) recovers from R for prehash z: r⁻¹(sR − zG).
fn recovered(big_r: ProjectivePoint, r: Scalar, s: Scalar, z: Scalar) -> ProjectivePoint {
    (big_r * s - ProjectivePoint::GENERATOR * z) * r.invert().unwrap()
}

/// One case: a signature (r, s, recovery id v), a prehash, and a key offered for
/// verification (65 bytes, SEC1 prefix first).
#[derive(Clone)]
pub struct Case {
    r: U256,
    s: U256,
    v: u8,
    msg: [u8; 32],
    key: [u8; 65],
}

impl Case {
    fn rs(&self) -> [u8; 64] {
        [self.r.to_be_bytes::<32>(), self.s.to_be_bytes::<32>()]
            .concat()
            .try_into()
            .unwrap()
    }

    fn sig65(&self) -> [u8; 65] {
        [&self.rs()[..], &[self.v]].concat().try_into().unwrap()
    }

    /// `crypto::check`'s `ECRECOVER` layout: r ‖ s ‖ v ‖ msg.
    fn ecrecover_input(&self) -> Vec<u8> {
        [&self.rs()[..], &[self.v], &self.msg].concat()
    }
}

fn with_prefix(xy: [u8; 64]) -> [u8; 65] {
    [&[4u8][..], &xy].concat().try_into().unwrap()
}

/// An R whose x is in [n, p) (p − n ≈ 2¹²⁸, so found by search from n + 1; r = 0 is no signature), and its x.
fn overflowing_r() -> (ProjectivePoint, U256) {
    let mut x = N + U256::from(1);
    loop {
        if let Some(point) = point_at(x, false) {
            return (point, x);
        }
        x += U256::from(1);
    }
}

/// The cases.
pub fn cases(rng: &mut SmallRng, n: usize) -> Vec<Case> {
    let (overflow, overflow_x) = overflowing_r();
    (0..n)
        .map(|_| {
            let msg: [u8; 32] = if rng.random_bool(0.3) {
                edge_u256(rng, N).to_be_bytes()
            } else {
                rng.random()
            };
            let z = scalar(&msg);
            let mut case = match rng.random_range(0..9) {
                0..=2 => {
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
                    let (sig, id) = key.sign_prehash_recoverable(&msg).unwrap();
                    let (r, s) = (u256(*sig.r()), u256(*sig.s()));
                    let signer = xy(ProjectivePoint::from(*key.verifying_key().as_affine()));
                    // The other candidate: the key the other parity recovers.
                    let other = VerifyingKey::recover_from_prehash(
                        &msg,
                        &sig,
                        RecoveryId::new(!id.is_y_odd(), id.is_x_reduced()),
                    )
                    .map(|k| xy(ProjectivePoint::from(*k.as_affine())))
                    .unwrap_or([0; 64]);
                    let v = id.to_byte();
                    let (s, v) = match rng.random_range(0..4) {
                        0 => (N - s, v ^ 1),
                        1 => (N - s, v),
                        2 => (s, v ^ 1),
                        _ => (s, v),
                    };
                    let key = with_prefix(if rng.random_bool(0.7) { signer } else { other });
                    Case { r, s, v, msg, key }
                }
                // Recovery for a chosen R and s.
                3 | 4 => {
                    let big_r = ProjectivePoint::GENERATOR * random_scalar(rng);
                    let (x, odd) = coordinates(big_r);
                    let r = scalar(&x.to_be_bytes());
                    let random = random_scalar(rng);
                    let s = pick(rng, &[Scalar::ONE, -Scalar::ONE, random, random]);
                    let key = with_prefix(xy(recovered(big_r, r, s, z)));
                    Case {
                        r: u256(r),
                        s: u256(s),
                        v: u8::from(odd),
                        msg,
                        key,
                    }
                }
                // x(R) ≥ n: r = x − n with ids 2 and 3 (and 0, 1, and r = x, which fail).
                5 => {
                    let odd = rng.random_bool(0.5);
                    let big_r = if odd { -overflow } else { overflow };
                    let r = overflow_x - N;
                    let s = random_scalar(rng);
                    let key = with_prefix(xy(recovered(big_r, scalar(&r.to_be_bytes()), s, z)));
                    let v = 2 + u8::from(odd);
                    let (r, v) = pick(
                        rng,
                        &[(r, v), (r, v), (r, v ^ 1), (r, v - 2), (overflow_x, v)],
                    );
                    Case {
                        r,
                        s: u256(s),
                        v,
                        msg,
                        key,
                    }
                }
                // R = (z/s)·G: the recovered key is the point at infinity; offered as the key,
                // 0x04 ‖ 0⁶⁴ (the forgery OpenVM's from_xy let through).
                6 => {
                    let s = random_scalar(rng);
                    let big_r = ProjectivePoint::GENERATOR * (z * s.invert().unwrap());
                    let (x, odd) = coordinates(big_r);
                    Case {
                        r: x,
                        s: u256(s),
                        v: u8::from(odd),
                        msg,
                        key: with_prefix([0; 64]),
                    }
                }
                // u1·G + u2·Q = O.
                7 => {
                    let (r, s) = (random_scalar(rng), random_scalar(rng));
                    let key = -(ProjectivePoint::GENERATOR * (z * r.invert().unwrap()));
                    Case {
                        r: u256(r),
                        s: u256(s),
                        v: rng.random_range(0..4),
                        msg,
                        key: with_prefix(xy(key)),
                    }
                }
                _ => Case {
                    r: edge_r(rng),
                    s: edge_r(rng),
                    v: rng.random_range(0..4),
                    msg,
                    key: with_prefix(xy(ProjectivePoint::GENERATOR * random_scalar(rng))),
                },
            };
            if rng.random_bool(0.4) {
                match rng.random_range(0..6) {
                    0 => case.r = edge_r(rng),
                    1 => case.s = edge_r(rng),
                    2 => case.v = rng.random_range(0..4),
                    3 => case.msg[rng.random_range(0..32)] ^= 1 << rng.random_range(0..8),
                    _ => case.key = key_edge(rng, &case.key),
                }
            }
            case
        })
        .collect()
}

/// An r or s: the scalar edges, p − 1, p, p + 1 (x-coordinates at the field's end), and
/// p − n − 1, p − n (the largest r whose r + n is below p, for ids 2 and 3, and the first
/// that is not).
fn edge_r(rng: &mut SmallRng) -> U256 {
    match rng.random_range(0..6) {
        0 => pick(
            rng,
            &[
                P - U256::from(1),
                P,
                P + U256::from(1),
                P - N - U256::from(1),
                P - N,
            ],
        ),
        _ => edge_u256(rng, N),
    }
}

/// The keys an attacker would try in place of `key`.
fn key_edge(rng: &mut SmallRng, key: &[u8; 65]) -> [u8; 65] {
    let mut out = *key;
    match rng.random_range(0..9) {
        0 | 1 => with_prefix([0; 64]),
        2 => {
            let i = 1 + 32 * rng.random_range(0..2);
            let bad = pick(rng, &[P, P + U256::from(1), U256::MAX]);
            out[i..i + 32].copy_from_slice(&bad.to_be_bytes::<32>());
            out
        }
        3 => {
            out[64] ^= 1;
            out
        }
        4 => {
            let y = U256::from_be_slice(&key[33..]);
            out[33..].copy_from_slice(&(P - y).to_be_bytes::<32>());
            out
        }
        5 => with_prefix(xy(pick(
            rng,
            &[ProjectivePoint::GENERATOR, -ProjectivePoint::GENERATOR],
        ))),
        6 => {
            out[0] = pick(rng, &[0, 2, 3, 5, 6, 7]);
            out
        }
        7 => {
            let i = 1 + 32 * rng.random_range(0..2);
            out[i..i + 32].fill(0);
            out
        }
        _ => {
            out[1..].copy_from_slice(&[rng.random::<[u8; 32]>(), rng.random()].concat());
            out
        }
    }
}

fn address(key: &VerifyingKey) -> Address {
    Address::from_slice(&keccak256(&key.to_encoded_point(false).as_bytes()[1..])[12..])
}

/// alloy-consensus's `impl_k256::recover_signer_unchecked` (v ≤ 3: it panics above).
fn k256_recover(sig: &[u8; 65], msg: &[u8; 32]) -> Option<Address> {
    let mut signature = Signature::from_slice(&sig[..64]).ok()?;
    let mut recid = sig[64];
    if let Some(normalized) = signature.normalize_s() {
        signature = normalized;
        recid ^= 1;
    }
    let recid = RecoveryId::from_byte(recid).expect("recovery ID is valid");
    VerifyingKey::recover_from_prehash(msg, &signature, recid)
        .ok()
        .map(|key| address(&key))
}

/// alloy-consensus's `impl_k256::verify_and_compute_signer_unchecked`.
fn k256_verify_and_compute(pubkey: &[u8; 65], sig: &[u8; 64], msg: &[u8; 32]) -> Option<Address> {
    use k256::ecdsa::signature::hazmat::PrehashVerifier;
    let key = VerifyingKey::from_sec1_bytes(pubkey).ok()?;
    let signature = Signature::from_slice(sig).ok()?;
    let signature = signature.normalize_s().unwrap_or(signature);
    key.verify_prehash(msg, &signature).ok()?;
    Some(address(&key))
}

/// k256's verdict on `crypto::check`'s msg ‖ r ‖ s ‖ x ‖ y (high s accepted, as alloy's hook
/// does): the reference of `Tag::Secp256k1Verify`.
pub fn k256_verifies(input: &[u8]) -> bool {
    let key: [u8; 65] = with_prefix(input[96..160].try_into().unwrap());
    let msg: [u8; 32] = input[..32].try_into().unwrap();
    k256_verify_and_compute(&key, input[32..96].try_into().unwrap(), &msg).is_some()
}

/// An alloy hook's answer in `crypto::check::outcome`'s form; a panic is `0 ‖ "panic: ..."`.
fn outcome(f: impl FnOnce() -> Option<Address>) -> Vec<u8> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Some(address)) => [&[1u8][..], address.as_slice()].concat(),
        Ok(None) => b"\0RecoveryError".to_vec(),
        Err(panic) => [&b"\0panic: "[..], panic_message(&panic).as_bytes()].concat(),
    }
}

#[test]
fn secp256k1_ecrecover() {
    let mut family = Family::new("ECRECOVER");
    for (k, case) in cases(&mut rng("secp256k1 ecrecover"), 300 * scale())
        .iter()
        .enumerate()
    {
        family.compare(Tag::Ecrecover, &case.ecrecover_input());
        if k % 4 == 0 {
            if let Some(call) = super::call_of(Tag::Ecrecover, &case.ecrecover_input()) {
                family.call(&call);
            }
        }
    }
    // At the precompile: v other than 27 and 28 (no recovery), v's high bytes set, short
    // inputs (padded with zeros).
    let mut rng = rng("secp256k1 ecrecover calls");
    for case in cases(&mut rng, 50) {
        let mut call =
            super::call_of(Tag::Ecrecover, &[&case.rs()[..], &[0], &case.msg].concat()).unwrap();
        match rng.random_range(0..3) {
            0 => call.input[63] = pick(&mut rng, &[0, 1, 26, 29, 255]),
            1 => call.input[32 + rng.random_range(0..31)] = 1,
            _ => call.input.truncate(rng.random_range(0..128)),
        }
        family.call(&call);
    }
    family.both_outcomes(60);
    family.finish();
}

#[test]
fn secp256k1_recover_signer_unchecked() {
    let mut family = Family::new("recover_signer_unchecked");
    for case in cases(&mut rng("secp256k1 recover signer"), 250 * scale()) {
        let (sig, msg) = (case.sig65(), case.msg);
        let got = outcome(|| {
            crypto::OpenVmSecp256k1
                .recover_signer_unchecked(&sig, &msg)
                .ok()
        });
        let want = outcome(|| k256_recover(&sig, &msg));
        family.judge(
            "recover_signer_unchecked",
            &[&sig[..], &msg].concat(),
            &got,
            &want,
        );
    }
    family.both_outcomes(40);
    family.finish();
}

#[test]
fn secp256k1_verify_and_compute_signer_unchecked() {
    let mut family = Family::new("verify_and_compute_signer_unchecked");
    let mut zero_key_forgeries = 0;
    for case in cases(&mut rng("secp256k1 verify"), 150 * scale()) {
        let (key, rs, msg) = (case.key, case.rs(), case.msg);
        zero_key_forgeries += usize::from(key == with_prefix([0; 64]));
        let got = outcome(|| {
            crypto::OpenVmSecp256k1
                .verify_and_compute_signer_unchecked(&key, &rs, &msg)
                .ok()
        });
        let want = outcome(|| k256_verify_and_compute(&key, &rs, &msg));
        let input = [&key[..], &rs, &msg].concat();
        family.judge("verify_and_compute_signer_unchecked", &input, &got, &want);
    }
    assert!(
        zero_key_forgeries >= 5,
        "{zero_key_forgeries} zero-key cases"
    );
    family.both_outcomes(25);
    family.finish();
}

/// The zero-key forgery of issue 51, exactly: key 0x04 ‖ 0⁶⁴, R = (z/s)·G, r = x(R), v the
/// parity of y(R). Before the fix, OpenVM's `from_xy` read the key as the point at infinity,
/// under which u1·G + u2·O = (z/s)·G = R verified. k256 refuses it; so must the guest, for
/// every prehash.
#[test]
fn the_zero_key_forgery_is_refused() {
    let mut rng = rng("zero key");
    for _ in 0..8 {
        let msg: [u8; 32] = rng.random();
        let s = random_scalar(&mut rng);
        let big_r = ProjectivePoint::GENERATOR * (scalar(&msg) * s.invert().unwrap());
        let (x, _) = coordinates(big_r);
        let rs: [u8; 64] = [x.to_be_bytes::<32>(), u256(s).to_be_bytes::<32>()]
            .concat()
            .try_into()
            .unwrap();
        let key = with_prefix([0; 64]);
        assert_eq!(k256_verify_and_compute(&key, &rs, &msg), None);
        assert!(crypto::OpenVmSecp256k1
            .verify_and_compute_signer_unchecked(&key, &rs, &msg)
            .is_err());
    }
}

/// Recovery ids from 4 up are refused by the guest (alloy's k256 backend and revm's panic on
/// them; libsecp256k1 refuses them).
#[test]
fn recovery_ids_above_3_are_refused() {
    let mut rng = rng("high ids");
    for case in cases(&mut rng, 20) {
        let v = rng.random_range(4..=255u8);
        let mut sig = case.sig65();
        sig[64] = v;
        assert!(crypto::OpenVmSecp256k1
            .recover_signer_unchecked(&sig, &case.msg)
            .is_err());
        assert!(crypto::OpenVmPrecompiles
            .secp256k1_ecrecover(&case.rs(), v, &case.msg)
            .is_err());
    }
}

/// The VM sample's secp256k1 cases: `ECRECOVER` and the verification behind alloy's hook.
pub fn vm_cases(rng: &mut SmallRng) -> Vec<(Tag, Vec<u8>)> {
    cases(rng, 16)
        .into_iter()
        .flat_map(|case| {
            let verify = [&case.msg[..], &case.rs(), &case.key[1..]].concat();
            [
                (Tag::Ecrecover, case.ecrecover_input()),
                (Tag::Secp256k1Verify, verify),
            ]
        })
        .collect()
}
