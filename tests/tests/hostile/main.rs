//! Hostile inputs for every function of crate `crypto` that reads prover-influenced bytes,
//! compared with the references revm and alloy use natively.
//!
//! Why: two forged-VALID bugs were found in review where prover-given points entered
//! verification equations unchecked (OpenVM's `WeierstrassPoint::from_xy` maps (0, 0) to the
//! identity). Reading each decoder is not enough; this harness makes finding such things a
//! machine's job. Each family generates, from a fixed seed, the inputs an attacker would try:
//! the identity and (0, 0) encodings, points off the curve, on the curve but outside the
//! subgroup, coordinates and scalars at and above the modulus, zero and out-of-range
//! signature values, crafted signatures whose verification point is the identity or whose R
//! overflowed the order, empty, short and long variable-length inputs, mixed with valid ones
//! (so that both outcomes are exercised). Every case runs
//!
//! 1. through the `revm::precompile::Crypto` method on `crypto::OpenVmPrecompiles` (the call
//!    the guest makes, by way of `crypto::check::outcome`, which the `crypto_check` VM probe
//!    also runs) and on `DefaultCrypto`, revm's own (k256 and alloy's k256 backend for
//!    secp256k1, [`secp256k1`]); off the zkVM the field macros compile the guest's code to
//!    software arithmetic, so this is the guest's exact code path;
//! 2. where the function is a precompile, through revm's whole precompile (its length checks,
//!    padding, gas and output encoding) twice, with revm's global crypto routed to the guest's
//!    and to revm's ([`Switch`]).
//!
//! Two outcomes agree when their bytes are equal or both failed. The kind of failure may
//! differ: revm's `precompile_output_to_interpreter_result` (revm-handler 43,
//! `precompile_provider.rs`) turns every halt but out-of-gas into `PrecompileError` (and
//! out-of-gas into `PrecompileOOG`), spends all the call's gas and returns no bytes; the
//! halt's name reaches only the error context of a top-level call (`set_precompile_error_context`),
//! which no receipt, log or state root contains. The guest's methods never report
//! out-of-gas (gas is checked before they are called). Kind differences are counted and
//! printed, not failed.
//!
//! Scale: `HOSTILE_CASES` multiplies every family's count (default 1, the CI size: the whole
//! binary in about a minute of the debug test build on two cores), `HOSTILE_SEED` replaces the
//! seed (default [`DEFAULT_SEED`]). A failure prints the family, the case and its input in
//! hex, with both outcomes.
//!
//! The harness is its own test binary because revm's crypto is a process-wide `OnceLock`:
//! [`Switch`] must be installed before anything in the process runs a precompile, which a
//! test binary that also executes blocks (`tests/tests/crypto`) cannot promise.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;
use std::time::Instant;

use alloy_primitives::{hex, U256, U512};
use crypto::check::{outcome, Tag};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use revm::precompile::bls12_381::{G1Point, G1PointScalar, G2Point, G2PointScalar};
use revm::precompile::{
    u64_to_address, Crypto, DefaultCrypto, PrecompileHalt, PrecompileSpecId, PrecompileStatus,
    Precompiles,
};

mod arith;
mod bls;
mod bn254;
mod p256;
mod secp256k1;
mod vm;

/// The seed when `HOSTILE_SEED` is not set.
pub const DEFAULT_SEED: u64 = 0x4057_11e5;

/// `HOSTILE_CASES`: the multiplier of every family's case count.
pub fn scale() -> usize {
    std::env::var("HOSTILE_CASES")
        .ok()
        .map(|s| s.parse().expect("HOSTILE_CASES: a whole number"))
        .unwrap_or(1)
}

/// `HOSTILE_SEED` (decimal or 0x-hex), or [`DEFAULT_SEED`].
pub fn seed() -> u64 {
    std::env::var("HOSTILE_SEED")
        .ok()
        .map(|s| match s.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => s.parse(),
        })
        .map(|r| r.expect("HOSTILE_SEED: a u64"))
        .unwrap_or(DEFAULT_SEED)
}

/// A family's generator: the seed mixed with the family's name, so families are independent
/// and adding one changes no other's cases.
pub fn rng(family: &str) -> SmallRng {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in family.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    SmallRng::seed_from_u64(seed() ^ h)
}

/// One of `items`.
pub fn pick<T: Clone>(rng: &mut SmallRng, items: &[T]) -> T {
    items[rng.random_range(0..items.len())].clone()
}

/// `len` random bytes.
pub fn bytes(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.random()).collect()
}

/// A 256-bit value for a field or scalar with modulus `m`: half the time uniform below m, else
/// an edge: 0, 1, 2, m − 2, m − 1, m, m + 1, 2m − 1, m + a small value, j·m + t for small j
/// and t (a double-and-add over such a scalar meets ±P and the identity on its way: its
/// prefixes are m, m + 2, ...), the largest values, 2²⁵⁵, a small value, or 256 random bits.
pub fn edge_u256(rng: &mut SmallRng, m: U256) -> U256 {
    if rng.random_bool(0.5) {
        return U256::from_be_bytes(rng.random::<[u8; 32]>()) % m;
    }
    if rng.random_bool(0.15) {
        let (j, t) = (rng.random_range(1..=4u64), rng.random_range(0..6u64));
        if let Some(x) = m
            .checked_mul(U256::from(j))
            .and_then(|x| x.checked_add(U256::from(t)))
            .and_then(|x| x.checked_sub(U256::from(2)))
        {
            return x;
        }
    }
    let small = U256::from(rng.random_range(0u64..1000));
    let random = U256::from_be_bytes(rng.random::<[u8; 32]>());
    pick(
        rng,
        &[
            U256::ZERO,
            U256::from(1),
            U256::from(2),
            m - U256::from(2),
            m - U256::from(1),
            m,
            m.saturating_add(U256::from(1)),
            m.saturating_add(m - U256::from(1)),
            m.saturating_add(small),
            U256::MAX,
            U256::MAX - U256::from(1),
            U256::from(1) << 255,
            small,
            random,
        ],
    )
}

/// A point of small order, a power of the prime ℓ (ℓ dividing the curve's cofactor h):
/// [r·m]·P for a curve point P of the full group, with m the part of h prime to ℓ (the ℓ-part
/// may be Z/ℓ × Z/ℓ, whose points all have order ℓ: multiplying by h·r/ℓ would give the
/// identity for every P). `None` when that is the identity (P had no ℓ-part). Subgroup checks
/// and complete additions meet the identity all the way through its multiples.
pub fn small_order<A: ark_ec::AffineRepr>(p: A, cofactor: U512, ell: u64, r: &[u64]) -> Option<A> {
    use ark_ec::CurveGroup;
    let ell = U512::from(ell);
    let mut m = cofactor;
    while (m % ell).is_zero() {
        m /= ell;
    }
    let q = p.mul_bigint(m.as_limbs()).into_affine();
    let q = q.mul_bigint(r).into_affine();
    (!q.is_zero()).then_some(q)
}

/// Big-endian `a + b` in `a`'s length; `None` when it does not fit.
pub fn add_be(a: &[u8], b: &[u8]) -> Option<Vec<u8>> {
    let mut out = a.to_vec();
    let mut carry = 0u16;
    for i in 0..out.len() {
        let (ai, bi) = (out.len() - 1 - i, b.len().checked_sub(1 + i));
        let sum = u16::from(out[ai]) + bi.map_or(0, |j| u16::from(b[j])) + carry;
        out[ai] = sum as u8;
        carry = sum >> 8;
    }
    let rest_of_b = b.len().saturating_sub(out.len());
    (carry == 0 && b[..rest_of_b].iter().all(|x| *x == 0)).then_some(out)
}

// ---------------------------------------------------------------------------------------------
// Routing revm's global crypto.

thread_local! {
    /// Whether this thread's precompile calls go to the guest's crypto.
    static GUEST: Cell<bool> = const { Cell::new(false) };
}

/// revm's crypto, installed once for the process: each call goes to `crypto::OpenVmPrecompiles`
/// or to `DefaultCrypto`, as the calling thread's [`GUEST`] says (each test runs on its own
/// thread, so tests in parallel do not see each other's choice).
#[derive(Debug)]
pub struct Switch;

impl Switch {
    fn to(&self) -> &'static dyn Crypto {
        if GUEST.get() {
            &crypto::OpenVmPrecompiles
        } else {
            &DefaultCrypto
        }
    }

    /// Installs it; panics if revm's crypto was already chosen.
    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            assert!(
                revm::precompile::install_crypto(Switch),
                "revm's crypto was chosen before the switch was installed"
            )
        });
    }
}

impl Crypto for Switch {
    fn sha256(&self, input: &[u8]) -> [u8; 32] {
        self.to().sha256(input)
    }
    fn ripemd160(&self, input: &[u8]) -> [u8; 32] {
        self.to().ripemd160(input)
    }
    fn bn254_g1_add(&self, p1: &[u8], p2: &[u8]) -> Result<[u8; 64], PrecompileHalt> {
        self.to().bn254_g1_add(p1, p2)
    }
    fn bn254_g1_mul(&self, point: &[u8], scalar: &[u8]) -> Result<[u8; 64], PrecompileHalt> {
        self.to().bn254_g1_mul(point, scalar)
    }
    fn bn254_pairing_check(&self, pairs: &[(&[u8], &[u8])]) -> Result<bool, PrecompileHalt> {
        self.to().bn254_pairing_check(pairs)
    }
    fn secp256k1_ecrecover(
        &self,
        sig: &[u8; 64],
        recid: u8,
        msg: &[u8; 32],
    ) -> Result<[u8; 32], PrecompileHalt> {
        self.to().secp256k1_ecrecover(sig, recid, msg)
    }
    fn modexp(&self, base: &[u8], exp: &[u8], modulus: &[u8]) -> Result<Vec<u8>, PrecompileHalt> {
        self.to().modexp(base, exp, modulus)
    }
    fn blake2_compress(&self, rounds: u32, h: &mut [u64; 8], m: &[u64; 16], t: &[u64; 2], f: bool) {
        self.to().blake2_compress(rounds, h, m, t, f)
    }
    fn secp256r1_verify_signature(&self, msg: &[u8; 32], sig: &[u8; 64], pk: &[u8; 64]) -> bool {
        self.to().secp256r1_verify_signature(msg, sig, pk)
    }
    fn verify_kzg_proof(
        &self,
        z: &[u8; 32],
        y: &[u8; 32],
        commitment: &[u8; 48],
        proof: &[u8; 48],
    ) -> Result<(), PrecompileHalt> {
        self.to().verify_kzg_proof(z, y, commitment, proof)
    }
    fn bls12_381_g1_add(&self, a: G1Point, b: G1Point) -> Result<[u8; 96], PrecompileHalt> {
        self.to().bls12_381_g1_add(a, b)
    }
    fn bls12_381_g1_msm(
        &self,
        pairs: &mut dyn Iterator<Item = Result<G1PointScalar, PrecompileHalt>>,
    ) -> Result<[u8; 96], PrecompileHalt> {
        self.to().bls12_381_g1_msm(pairs)
    }
    fn bls12_381_g2_add(&self, a: G2Point, b: G2Point) -> Result<[u8; 192], PrecompileHalt> {
        self.to().bls12_381_g2_add(a, b)
    }
    fn bls12_381_g2_msm(
        &self,
        pairs: &mut dyn Iterator<Item = Result<G2PointScalar, PrecompileHalt>>,
    ) -> Result<[u8; 192], PrecompileHalt> {
        self.to().bls12_381_g2_msm(pairs)
    }
    fn bls12_381_pairing_check(
        &self,
        pairs: &[(G1Point, G2Point)],
    ) -> Result<bool, PrecompileHalt> {
        self.to().bls12_381_pairing_check(pairs)
    }
    fn bls12_381_fp_to_g1(&self, fp: &[u8; 48]) -> Result<[u8; 96], PrecompileHalt> {
        self.to().bls12_381_fp_to_g1(fp)
    }
    fn bls12_381_fp2_to_g2(&self, fp2: ([u8; 48], [u8; 48])) -> Result<[u8; 192], PrecompileHalt> {
        self.to().bls12_381_fp2_to_g2(fp2)
    }
}

/// The gas every precompile call is given: enough for any case here, so a difference in gas
/// accounting shows as a difference in output, not as an out-of-gas on both sides.
const GAS: u64 = 1 << 40;

/// One call of a whole precompile.
#[derive(Debug, Clone)]
pub struct Call {
    /// The fork whose precompile set is used.
    pub spec: PrecompileSpecId,
    /// The precompile's address (its low bytes).
    pub address: u64,
    /// The call data.
    pub input: Vec<u8>,
}

impl Call {
    /// At `address` under Osaka (every precompile the guest accelerates, EIP-7823's bounds).
    pub fn osaka(address: u64, input: Vec<u8>) -> Self {
        Self {
            spec: PrecompileSpecId::OSAKA,
            address,
            input,
        }
    }

    /// `Ok((output, gas used))` or `Err(the halt)`, with revm's crypto the guest's or revm's.
    fn run(&self, guest: bool) -> Result<(Vec<u8>, u64), String> {
        Switch::install();
        let precompile = Precompiles::new(self.spec)
            .get(&u64_to_address(self.address))
            .unwrap_or_else(|| panic!("no precompile {:#x} in {:?}", self.address, self.spec));
        GUEST.set(guest);
        let result = catch_unwind(AssertUnwindSafe(|| precompile.execute(&self.input, GAS, 0)));
        GUEST.set(false);
        let output = match result {
            Ok(Ok(output)) => output,
            Ok(Err(fatal)) => return Err(format!("fatal {fatal:?}")),
            Err(panic) => return Err(format!("panic: {}", panic_message(&panic))),
        };
        match output.status {
            PrecompileStatus::Success => Ok((output.bytes.to_vec(), output.gas_used)),
            PrecompileStatus::Revert => Err(format!("revert {}", hex::encode(&output.bytes))),
            PrecompileStatus::Halt(halt) => Err(format!("halt {halt:?}")),
        }
    }
}

/// The precompile call a `crypto::check` case makes through revm, if it is a precompile's
/// (the call data encodes the same arguments, as revm's precompile decodes them).
pub fn call_of(tag: Tag, input: &[u8]) -> Option<Call> {
    /// Each 48-byte field element padded to EIP-2537's 64 bytes; `scalar` bytes after every
    /// `chunk` bytes of field elements kept as they are.
    fn pad_fp(input: &[u8], chunk: usize, scalar: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for item in input.chunks(chunk + scalar) {
            for fp in item[..chunk].chunks(48) {
                out.extend_from_slice(&[0; 16]);
                out.extend_from_slice(fp);
            }
            out.extend_from_slice(&item[chunk..]);
        }
        out
    }
    let call = |address: u64, data: Vec<u8>| Some(Call::osaka(address, data));
    match tag {
        Tag::Sha256 => call(0x02, input.to_vec()),
        Tag::Ecrecover if input[64] < 2 => {
            let mut data = input[65..97].to_vec();
            data.extend_from_slice(&[0; 31]);
            data.push(input[64] + 27);
            data.extend_from_slice(&input[..64]);
            call(0x01, data)
        }
        Tag::Ecrecover | Tag::Secp256k1Verify => None,
        Tag::Bn254Add => call(0x06, input.to_vec()),
        Tag::Bn254Mul => call(0x07, input.to_vec()),
        Tag::Bn254Pairing => call(0x08, input.to_vec()),
        Tag::P256Verify => call(0x100, input.to_vec()),
        Tag::KzgPointEvaluation => {
            let mut hash = DefaultCrypto.sha256(&input[64..112]);
            hash[0] = 1;
            call(0x0a, [&hash[..], input].concat())
        }
        Tag::Modexp => {
            let base_len = usize::from(u16::from_be_bytes([input[0], input[1]]));
            let exp_len = usize::from(u16::from_be_bytes([input[2], input[3]]));
            let mod_len = input.len() - 4 - base_len - exp_len;
            let mut data = Vec::new();
            for len in [base_len, exp_len, mod_len] {
                data.extend_from_slice(&U256::from(len).to_be_bytes::<32>());
            }
            data.extend_from_slice(&input[4..]);
            let spec = if base_len.max(exp_len).max(mod_len) > 1024 {
                // Over EIP-7823's bounds: a pre-Osaka block's call.
                PrecompileSpecId::PRAGUE
            } else {
                PrecompileSpecId::OSAKA
            };
            Some(Call {
                spec,
                address: 0x05,
                input: data,
            })
        }
        Tag::Blake2f => call(0x09, input.to_vec()),
        Tag::Bls12G1Add => call(0x0b, pad_fp(input, 96, 0)),
        Tag::Bls12G1Msm => call(0x0c, pad_fp(input, 96, 32)),
        Tag::Bls12G2Add => call(0x0d, pad_fp(input, 192, 0)),
        Tag::Bls12G2Msm => call(0x0e, pad_fp(input, 192, 32)),
        Tag::Bls12Pairing => call(0x0f, pad_fp(input, 288, 0)),
        Tag::Bls12MapFpToG1 => call(0x10, pad_fp(input, 48, 0)),
        Tag::Bls12MapFp2ToG2 => call(0x11, pad_fp(input, 96, 0)),
    }
}

/// The reference answer to a case, in `crypto::check::outcome`'s form: revm's `DefaultCrypto`,
/// or k256 for secp256k1 verification (not a `Crypto` method).
pub fn reference(tag: Tag, input: &[u8]) -> Vec<u8> {
    match tag {
        Tag::Secp256k1Verify => vec![1, u8::from(secp256k1::k256_verifies(input))],
        _ => outcome(&DefaultCrypto, tag, input).expect("a well-formed case"),
    }
}

/// The guest's answer, a panic reported as a failure (`0 ‖ "panic: ..."`).
pub fn guest(tag: Tag, input: &[u8]) -> Vec<u8> {
    match catch_unwind(AssertUnwindSafe(|| {
        outcome(&crypto::OpenVmPrecompiles, tag, input)
    })) {
        Ok(got) => got.expect("a well-formed case"),
        Err(panic) => [
            &[0u8][..],
            format!("panic: {}", panic_message(&panic)).as_bytes(),
        ]
        .concat(),
    }
}

/// A caught panic's message.
pub fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Whether two outcomes agree: equal, or both failures of whatever kind (see the module
/// docs); a panic never agrees.
pub fn agree(a: &[u8], b: &[u8]) -> bool {
    let panicked = |o: &[u8]| o.starts_with(b"\0panic");
    a == b || (a[0] == 0 && b[0] == 0 && !panicked(a) && !panicked(b))
}

/// One family's tally.
pub struct Family {
    name: &'static str,
    start: Instant,
    cases: usize,
    calls: usize,
    /// Cases that succeeded (with a non-false answer) and that failed or answered false.
    successes: usize,
    refusals: usize,
    /// Both failed, with different halts.
    kinds: Vec<String>,
    failures: Vec<String>,
}

impl Family {
    /// A new tally.
    pub fn new(name: &'static str) -> Self {
        Self {
            name,
            start: Instant::now(),
            cases: 0,
            calls: 0,
            successes: 0,
            refusals: 0,
            kinds: Vec::new(),
            failures: Vec::new(),
        }
    }

    /// One case: the `Crypto` method on both, then revm's precompile with each.
    pub fn case(&mut self, tag: Tag, input: &[u8]) {
        self.compare(tag, input);
        if let Some(call) = call_of(tag, input) {
            self.call(&call);
        }
    }

    /// One case at the `Crypto` level only.
    pub fn compare(&mut self, tag: Tag, input: &[u8]) {
        let (got, want) = (guest(tag, input), reference(tag, input));
        self.judge(&format!("{tag:?}"), input, &got, &want);
    }

    /// Tallies one comparison of outcomes (in `crypto::check::outcome`'s form) of the call
    /// `what` on `input`.
    pub fn judge(&mut self, what: &str, input: &[u8], got: &[u8], want: &[u8]) {
        let k = self.cases;
        self.cases += 1;
        if want[0] == 1 && want[1..] != [0] {
            self.successes += 1;
        } else {
            self.refusals += 1;
        }
        if !agree(got, want) {
            self.failures.push(format!(
                "case {k} ({what}) input {}\n  guest     {}\n  reference {}",
                hex::encode(input),
                show(got),
                show(want)
            ));
        } else if got != want {
            self.kinds.push(format!("{} / {}", show(got), show(want)));
        }
    }

    /// revm's precompile with the guest's crypto and with revm's.
    pub fn call(&mut self, call: &Call) {
        self.calls += 1;
        let (got, want) = (call.run(true), call.run(false));
        if !calls_agree(&got, &want) {
            self.failures.push(format!(
                "precompile {:#x} ({:?}) input {}\n  guest     {got:?}\n  reference {want:?}",
                call.address,
                call.spec,
                hex::encode(&call.input)
            ));
        }
    }

    /// Prints the tally; fails with every difference.
    pub fn finish(self) {
        let mut kinds = self.kinds.clone();
        kinds.sort();
        kinds.dedup();
        println!(
            "{}: {} cases ({} successes, {} refusals), {} precompile calls, {:.1} s; \
             halt kinds differing in {} cases: {kinds:?}",
            self.name,
            self.cases,
            self.successes,
            self.refusals,
            self.calls,
            self.start.elapsed().as_secs_f64(),
            self.kinds.len(),
        );
        assert!(
            self.failures.is_empty(),
            "{}: {} differences (seed {:#x}):\n{}",
            self.name,
            self.failures.len(),
            seed(),
            self.failures.join("\n")
        );
    }

    /// Requires at least `min` of each outcome, so a family cannot pass by refusing (or
    /// accepting) everything.
    pub fn both_outcomes(&self, min: usize) {
        assert!(
            self.successes >= min && self.refusals >= min,
            "{}: {} successes and {} refusals, {min} of each wanted",
            self.name,
            self.successes,
            self.refusals
        );
    }
}

/// Whether two precompile calls agree: the same output and gas, or both halted (of whatever
/// kind; see the module docs); a panic never agrees.
pub fn calls_agree(a: &Result<(Vec<u8>, u64), String>, b: &Result<(Vec<u8>, u64), String>) -> bool {
    match (a, b) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => !a.starts_with("panic") && !b.starts_with("panic"),
        _ => false,
    }
}

fn show(outcome: &[u8]) -> String {
    match outcome.split_first() {
        Some((1, rest)) => format!("Ok {}", hex::encode(rest)),
        Some((_, rest)) => format!("Err {}", String::from_utf8_lossy(rest)),
        None => "(empty)".into(),
    }
}

/// Runs `cases` as one family: every case compared at the `Crypto` level, every
/// `entry_every`-th also through revm's precompile (which adds only decoding and padding
/// around the same call: the expensive families sample it), then the tally checked.
pub fn run(name: &'static str, cases: &[(Tag, Vec<u8>)], entry_every: usize, min_each: usize) {
    let mut family = Family::new(name);
    for (k, (tag, input)) in cases.iter().enumerate() {
        family.compare(*tag, input);
        if k % entry_every == 0 {
            if let Some(call) = call_of(*tag, input) {
                family.call(&call);
            }
        }
    }
    family.both_outcomes(min_each);
    family.finish();
}

/// The harness can fail: an answer that differs, a success against a failure, a panic, at the
/// `Crypto` level and at the precompile's (in output or gas), fails the family; two failures
/// of different kinds do not. (Against the crypto of 43c3c27, before the zero-key fix, the
/// secp256k1 family `verify_and_compute_signer_unchecked` fails with 13 differences: the
/// guest's Ok 0x3f17…ba5fb5, keccak(0⁶⁴)'s address, where k256 refuses.)
#[test]
fn a_difference_fails_the_family() {
    let mut family = Family::new("self-check");
    family.judge("a", b"", &[1, 1], &[1, 2]);
    family.judge("b", b"", &[1, 1], &[0, b'x']);
    family.judge("c", b"", &[0, b'x'], &[0, b'y']);
    assert_eq!(family.failures.len(), 2);
    assert_eq!(family.kinds.len(), 1);
    assert!(!agree(b"\0panic: boom", b"\0Bn254PairLength"));
    assert!(catch_unwind(AssertUnwindSafe(|| family.finish())).is_err());
    let ok = |bytes: &[u8], gas| Ok::<_, String>((bytes.to_vec(), gas));
    assert!(calls_agree(&ok(b"a", 5), &ok(b"a", 5)));
    assert!(!calls_agree(&ok(b"a", 5), &ok(b"b", 5)));
    assert!(!calls_agree(&ok(b"a", 5), &ok(b"a", 6)));
    assert!(!calls_agree(&ok(b"", 5), &Err("halt OutOfGas".into())));
    assert!(calls_agree(&Err("halt A".into()), &Err("halt B".into())));
    assert!(!calls_agree(&Err("panic: x".into()), &Err("halt B".into())));
    // The switch routes each thread's calls where it is told.
    let call = Call::osaka(0x02, b"abc".to_vec());
    assert_eq!(call.run(true), call.run(false));
    GUEST.set(true);
    assert_eq!(format!("{:?}", Switch.to()), "OpenVmPrecompiles");
    GUEST.set(false);
    assert_eq!(format!("{:?}", Switch.to()), "DefaultCrypto");
}
