//! Hostile standard inputs: valid inputs mutated, each held to a native reference.
//!
//! Why: the standard guest reads whatever a prover hands it, and a proof of `true` is only as
//! good as every check between the bytes and the verdict. So valid inputs (the generated devnet
//! blocks of several forks and shapes, one with random transactions drawn from the seed, the
//! project's Amsterdam block, and a mainnet block) are mutated where a prover controls them:
//! the public keys, the signatures inside the transactions, the payload's fields (resealed or
//! not: with the block hash recomputed, a change reaches the checks past it), the body, the
//! execution requests, the Amsterdam block access list, the witness's nodes, codes and
//! ancestor headers, the chain id and schema, and the SSZ bytes themselves (offsets, lengths,
//! bytes). On every mutation `program::standard::validate` must not panic and must give the
//! result the reference gives (`fuzz/src/reference.rs`, which says what it is and why it is
//! independent): a `true` the reference calls `false` is a soundness failure, and a `false`
//! it calls `true` fails too.
//!
//! Fixed seed; `HOSTILE_SEED=0x…` draws others, `HOSTILE_CASES=N` runs N times as many
//! mutations (a long run). A failure names the seed, the base input, the case and the
//! mutation. A few mutations also run in the VM (`run_standard` holds the VM's result to the
//! native one), where the guest's own secp256k1 check is the one that decides.

#[path = "../../../fuzz/src/reference.rs"]
mod reference;

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use alloy_consensus::{Signed, TxEip1559, TxEip2930, TxEnvelope, TxLegacy};
use alloy_eips::eip2718::{Decodable2718, Encodable2718};
use alloy_primitives::{Address, Bytes, Signature, TxKind, U256};
use blockgen::{address_of, default_block, seal_as, signed, small_block, Devnet, Fork as Devfork};
use k256::ecdsa::{RecoveryId, SigningKey, VerifyingKey};
use program::standard::{validate, StandardError};
use program::ChainConfig;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reference::Expected;
use stateless_ssz::{
    encode_input, Fork, NewPayloadRequest, Sha2Hasher, StatelessInput, StatelessValidationResult,
};

/// The seed of the CI run.
const SEED: u64 = 0x8025_0051_0003;

/// The secp256k1 group order.
const N: U256 = U256::from_be_bytes([
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
    0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
]);

fn seed() -> u64 {
    match std::env::var("HOSTILE_SEED") {
        Ok(s) => {
            let s = s.trim();
            let parsed = match s.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => s.parse(),
            };
            parsed.unwrap_or_else(|e| panic!("HOSTILE_SEED={s}: {e}"))
        }
        Err(_) => SEED,
    }
}

fn factor() -> usize {
    std::env::var("HOSTILE_CASES").map_or(1, |s| {
        s.trim()
            .parse()
            .unwrap_or_else(|e| panic!("HOSTILE_CASES={s}: {e}"))
    })
}

/// SplitMix64: one case's seed from the run's, the base's index and the case's.
fn mix(seed: u64, base: usize, case: usize) -> u64 {
    let mut z = seed ^ ((base as u64) << 40) ^ (case as u64);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A valid input the mutations start from.
struct Base {
    name: String,
    input: StatelessInput,
    bytes: Vec<u8>,
    /// How many mutations of it the CI-size run makes.
    cases: usize,
}

impl Base {
    fn new(name: &str, input: StatelessInput, cases: usize) -> Self {
        let bytes = encode_input(&input);
        let out = validate(&bytes, &Sha2Hasher);
        assert!(
            out.result.successful_validation,
            "{name}: {:?}",
            out.error()
        );
        let expected = reference::expected(&bytes);
        assert_eq!(expected.result(), out.result, "{name}: {expected:?}");
        Base {
            name: name.to_owned(),
            input,
            bytes,
            cases,
        }
    }
}

fn input_of(
    block_rlp: &[u8],
    witness: &program::ExecutionWitness,
    chain: &ChainConfig,
) -> StatelessInput {
    prover::standard::stateless_input(block_rlp, witness, chain).unwrap()
}

fn devnet_input(fork: Devfork, small: bool) -> StatelessInput {
    let devnet = Devnet::of(fork).unwrap();
    let block = if small {
        small_block(&devnet)
    } else {
        default_block(&devnet)
    }
    .unwrap();
    input_of(&block.block_rlp, &block.witness, &devnet.chain)
}

/// A devnet block of 2 to 6 transactions drawn from `seed`: ETH and token transfers from
/// random accounts, as legacy (with and without EIP-155), EIP-2930 and EIP-1559 transactions.
fn random_input(seed: u64) -> StatelessInput {
    const GWEI: u128 = 1_000_000_000;
    let devnet = Devnet::new().unwrap();
    let chain_id = devnet.chain.chain_id;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut nonces = vec![0u64; devnet.keys.len()];
    let mut txs = Vec::new();
    let mut senders = Vec::new();
    for _ in 0..rng.random_range(2..=6) {
        let from = rng.random_range(0..devnet.keys.len());
        let nonce = nonces[from];
        nonces[from] += 1;
        let (to, input, gas_limit) = if rng.random_bool(0.3) {
            let mut data = [0u8; 64];
            data[12..32].copy_from_slice(&rng.random::<[u8; 20]>());
            data[63] = rng.random();
            (blockgen::TOKEN, Bytes::from(data.to_vec()), 100_000)
        } else {
            (
                Address::from(rng.random::<[u8; 20]>()),
                Bytes::new(),
                21_000,
            )
        };
        let to = TxKind::Call(to);
        let value = U256::from(rng.random_range(0..1_000_000_000_000u64));
        let key = &devnet.keys[from];
        let tx: TxEnvelope = match rng.random_range(0..4) {
            0 | 1 => signed(
                TxLegacy {
                    chain_id: rng.random_bool(0.7).then_some(chain_id),
                    nonce,
                    gas_price: 2 * GWEI,
                    gas_limit,
                    to,
                    value,
                    input,
                },
                key,
            )
            .into(),
            2 => signed(
                TxEip2930 {
                    chain_id,
                    nonce,
                    gas_price: 2 * GWEI,
                    gas_limit: gas_limit + 10_000,
                    to,
                    value,
                    input,
                    ..Default::default()
                },
                key,
            )
            .into(),
            _ => signed(
                TxEip1559 {
                    chain_id,
                    nonce,
                    gas_limit,
                    max_fee_per_gas: 10 * GWEI,
                    max_priority_fee_per_gas: GWEI,
                    to,
                    value,
                    input,
                    ..Default::default()
                },
                key,
            )
            .into(),
        };
        txs.push(tx);
        senders.push(address_of(key));
    }
    let withdrawal = alloy_eips::eip4895::Withdrawal {
        index: 0,
        validator_index: 3,
        address: Address::from(rng.random::<[u8; 20]>()),
        amount: rng.random_range(1..1_000_000_000),
    };
    let (block, _) = seal_as(&devnet, txs, vec![withdrawal], &senders).unwrap();
    input_of(&alloy_rlp::encode(&block), &devnet.witness, &devnet.chain)
}

// ---------------------------------------------------------------------------------------
// Editing an input.

/// `$body` on the request's payload, whatever its shape (the fields every shape has).
macro_rules! payload {
    ($request:expr, $p:ident => $body:expr) => {
        match $request {
            NewPayloadRequest::V1(r) => {
                let $p = &mut r.execution_payload;
                $body
            }
            NewPayloadRequest::V2(r) => {
                let $p = &mut r.execution_payload;
                $body
            }
            NewPayloadRequest::V3(r) => {
                let $p = &mut r.execution_payload;
                $body
            }
            NewPayloadRequest::V4(r) => {
                let $p = &mut r.execution_payload;
                $body
            }
            NewPayloadRequest::V5(r) => {
                let $p = &mut r.execution_payload;
                $body
            }
        }
    };
}

/// `$body` on the payload of a request from Cancun on (`None` before).
macro_rules! blob_payload {
    ($request:expr, $r:ident, $p:ident => $body:expr) => {
        match $request {
            NewPayloadRequest::V1(_) | NewPayloadRequest::V2(_) => None,
            NewPayloadRequest::V3($r) => {
                let $p = &mut $r.execution_payload;
                Some($body)
            }
            NewPayloadRequest::V4($r) => {
                let $p = &mut $r.execution_payload;
                Some($body)
            }
            NewPayloadRequest::V5($r) => {
                let $p = &mut $r.execution_payload;
                Some($body)
            }
        }
    };
}

fn transactions(input: &StatelessInput) -> Vec<Vec<u8>> {
    let mut request = input.new_payload_request.clone();
    payload!(&mut request, p => p.transactions.iter().map(|t| t.to_vec()).collect())
}

fn set_transactions(input: &mut StatelessInput, txs: Vec<Vec<u8>>) {
    let txs: Vec<stateless_ssz::ProgressiveByteList> = txs.into_iter().map(Into::into).collect();
    payload!(&mut input.new_payload_request, p => p.transactions = txs.into());
}

fn decoded_transactions(input: &StatelessInput) -> Vec<TxEnvelope> {
    transactions(input)
        .iter()
        .map(|t| TxEnvelope::decode_2718_exact(t).unwrap())
        .collect()
}

/// The payload's block hash set to its rebuilt header's (what a prover who changes the payload
/// sends so that the change reaches the checks past the hash); false when no header rebuilds.
fn reseal(input: &mut StatelessInput) -> bool {
    match reference::header_of(&input.new_payload_request) {
        Ok((header, ..)) => {
            let hash = header.hash_slow().0;
            payload!(&mut input.new_payload_request, p => p.block_hash = hash);
            true
        }
        Err(_) => false,
    }
}

fn sec1(key: &VerifyingKey) -> [u8; 65] {
    key.to_encoded_point(false).as_bytes().try_into().unwrap()
}

/// The key `tx`'s signature recovers with its parity flipped: the other recovery candidate.
fn other_candidate(tx: &TxEnvelope) -> Option<[u8; 65]> {
    let signature = tx.signature();
    let sig = k256::ecdsa::Signature::from_scalars(
        signature.r().to_be_bytes::<32>(),
        signature.s().to_be_bytes::<32>(),
    )
    .ok()?;
    let id = RecoveryId::new(!signature.v(), false);
    VerifyingKey::recover_from_prehash(&tx.signature_hash()[..], &sig, id)
        .ok()
        .map(|k| sec1(&k))
}

/// `-Q` for `Q = key` (`None` when `key` is no point).
fn negated(key: &[u8; 65]) -> Option<[u8; 65]> {
    let q = VerifyingKey::from_sec1_bytes(key).ok()?;
    let minus = -*q.as_affine();
    let minus = VerifyingKey::from_affine(minus).ok()?;
    Some(sec1(&minus))
}

fn random_key(rng: &mut StdRng) -> [u8; 65] {
    loop {
        if let Ok(k) = SigningKey::from_slice(&rng.random::<[u8; 32]>()) {
            return sec1(k.verifying_key());
        }
    }
}

/// `tx` with `signature` in place of its own.
fn resigned(tx: &TxEnvelope, signature: Signature) -> TxEnvelope {
    match tx {
        TxEnvelope::Legacy(s) => Signed::new_unhashed(s.tx().clone(), signature).into(),
        TxEnvelope::Eip2930(s) => Signed::new_unhashed(s.tx().clone(), signature).into(),
        TxEnvelope::Eip1559(s) => Signed::new_unhashed(s.tx().clone(), signature).into(),
        TxEnvelope::Eip4844(s) => Signed::new_unhashed(s.tx().clone(), signature).into(),
        TxEnvelope::Eip7702(s) => Signed::new_unhashed(s.tx().clone(), signature).into(),
    }
}

fn flip_bit(rng: &mut StdRng, bytes: &mut [u8]) -> usize {
    let at = rng.random_range(0..bytes.len());
    bytes[at] ^= 1 << rng.random_range(0..8);
    at
}

fn random_bytes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.random()).collect()
}

fn shuffle<T>(rng: &mut StdRng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.random_range(0..=i));
    }
}

/// A change to a list of byte strings (witness nodes, codes, headers, transactions): one item
/// with a bit flipped, dropped, duplicated, truncated or emptied, junk added, or the list's
/// order changed. Returns what it did.
fn edit_list(rng: &mut StdRng, items: &mut Vec<Vec<u8>>, max: usize, what: &str) -> String {
    let n = items.len();
    let pick = rng.random_range(0..if n == 0 { 1 } else { 8 });
    let i = if n == 0 { 0 } else { rng.random_range(0..n) };
    match pick {
        1 if !items[i].is_empty() => {
            let at = flip_bit(rng, &mut items[i]);
            format!("{what} {i} of {n}: a bit of byte {at} flipped")
        }
        2 => {
            items.remove(i);
            format!("{what} {i} of {n} dropped")
        }
        3 => {
            let copy = items[i].clone();
            let to = rng.random_range(0..=n);
            items.insert(to, copy);
            format!("{what} {i} of {n} duplicated at {to}")
        }
        4 if n > 1 => {
            shuffle(rng, items);
            format!("the {n} {what}s shuffled")
        }
        5 if !items[i].is_empty() => {
            let keep = rng.random_range(0..items[i].len());
            items[i].truncate(keep);
            format!("{what} {i} of {n} truncated to {keep} bytes")
        }
        6 => {
            items[i].clear();
            format!("{what} {i} of {n} emptied")
        }
        _ => {
            let len = rng.random_range(0..=max.min(600));
            let mut junk = random_bytes(rng, len);
            // Half the time junk that looks like an RLP list.
            if len > 2 && rng.random_bool(0.5) {
                junk[0] = 0xf8;
                junk[1] = (len - 2).min(255) as u8;
            }
            let to = rng.random_range(0..=n);
            items.insert(to, junk);
            format!("a junk {what} of {len} bytes inserted at {to} of {n}")
        }
    }
}

fn lists<T: std::ops::Deref<Target = [u8]>>(items: &[T]) -> Vec<Vec<u8>> {
    items.iter().map(|i| i.to_vec()).collect()
}

fn byte_lists<const M: usize>(items: Vec<Vec<u8>>) -> Vec<stateless_ssz::ByteList<M>> {
    items
        .into_iter()
        .map(|i| i.try_into().expect("within the limit"))
        .collect()
}

// ---------------------------------------------------------------------------------------
// The mutations.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Key,
    Signature,
    PayloadField,
    Body,
    Requests,
    AccessList,
    WitnessNode,
    Code,
    AncestorHeader,
    Chain,
    Offset,
    Length,
    Byte,
    Schema,
}

const CLASSES: [(Class, u32); 14] = [
    (Class::Key, 14),
    (Class::Signature, 10),
    (Class::PayloadField, 12),
    (Class::Body, 8),
    (Class::Requests, 3),
    (Class::AccessList, 5),
    (Class::WitnessNode, 10),
    (Class::Code, 5),
    (Class::AncestorHeader, 5),
    (Class::Chain, 6),
    (Class::Offset, 8),
    (Class::Length, 6),
    (Class::Byte, 6),
    (Class::Schema, 2),
];

fn draw_class(rng: &mut StdRng) -> Class {
    let total: u32 = CLASSES.iter().map(|(_, w)| w).sum();
    let mut x = rng.random_range(0..total);
    for (class, w) in CLASSES {
        if x < w {
            return class;
        }
        x -= w;
    }
    unreachable!()
}

/// One mutation of `base`: its class (the one drawn, or the one it fell back to where the
/// drawn one does not apply), what it did, and the bytes.
fn mutate(rng: &mut StdRng, base: &Base) -> (Class, String, Vec<u8>) {
    let mut class = draw_class(rng);
    loop {
        let mut input = base.input.clone();
        let done = match class {
            Class::Key => Some(mutate_key(rng, &mut input)),
            Class::Signature => mutate_signature(rng, &mut input),
            Class::PayloadField => mutate_field(rng, &mut input),
            Class::Body => Some(mutate_body(rng, &mut input)),
            Class::Requests => mutate_requests(rng, &mut input),
            Class::AccessList => mutate_access_list(rng, &mut input),
            Class::WitnessNode => {
                let mut items = lists(&input.witness.state);
                let what = edit_list(rng, &mut items, 1 << 10, "trie node");
                input.witness.state = byte_lists(items).into();
                Some(what)
            }
            Class::Code => {
                let mut items = lists(&input.witness.codes);
                let what = edit_list(rng, &mut items, 1 << 16, "code");
                input.witness.codes = byte_lists(items).into();
                Some(what)
            }
            Class::AncestorHeader => {
                let mut items = lists(&input.witness.headers);
                let what = edit_list(rng, &mut items, 1 << 10, "ancestor header");
                input.witness.headers = byte_lists(items).try_into().unwrap();
                Some(what)
            }
            Class::Chain => Some(mutate_chain(rng, &mut input)),
            Class::Offset => {
                let (what, bytes) = mutate_offset(rng, &base.bytes);
                return (class, what, bytes);
            }
            Class::Length => {
                let (what, bytes) = mutate_length(rng, &base.bytes);
                return (class, what, bytes);
            }
            Class::Byte => {
                let mut bytes = base.bytes.clone();
                let flips = rng.random_range(1..=3);
                let at: Vec<usize> = (0..flips).map(|_| flip_bit(rng, &mut bytes)).collect();
                return (class, format!("bits flipped at bytes {at:?}"), bytes);
            }
            Class::Schema => {
                let mut bytes = base.bytes.clone();
                let id = match rng.random_range(0..4) {
                    0 => Fork::ALL[rng.random_range(0..Fork::ALL.len())].schema_id(),
                    1 => 0,
                    2 => 0xffff,
                    _ => rng.random(),
                };
                let id = if id == base.input.fork.schema_id() {
                    id ^ 1
                } else {
                    id
                };
                bytes[..2].copy_from_slice(&id.to_be_bytes());
                return (class, format!("schema id {id:#06x}"), bytes);
            }
        };
        match done {
            Some(what) => return (class, what, encode_input(&input)),
            // Not applicable to this base (no transaction, no access list, no requests).
            None => class = Class::Key,
        }
    }
}

fn mutate_key(rng: &mut StdRng, input: &mut StatelessInput) -> String {
    let mut keys = input.public_keys.to_vec();
    let txs = decoded_transactions(input);
    let n = keys.len();
    let what = if n == 0 {
        let key = if rng.random_bool(0.5) {
            random_key(rng)
        } else {
            let mut zero = [0u8; 65];
            zero[0] = 4;
            zero
        };
        keys.push(key);
        "a key given for a block without transactions".to_owned()
    } else {
        let i = rng.random_range(0..n);
        match rng.random_range(0..11) {
            0 => {
                let at = flip_bit(rng, &mut keys[i]);
                format!("key {i}: a bit of byte {at} flipped")
            }
            1 if n > 1 => {
                let j = (i + rng.random_range(1..n)) % n;
                let same = keys[i] == keys[j];
                keys.swap(i, j);
                format!("keys {i} and {j} swapped (same signer: {same})")
            }
            2 => {
                keys[i] = [0u8; 65];
                keys[i][0] = 4;
                format!("key {i}: the zero key 0x04 ‖ 0^64")
            }
            3 => {
                keys[i] = [0u8; 65];
                format!("key {i}: 65 zero bytes")
            }
            4 => {
                let prefix = [0x00, 0x02, 0x03, 0x05, 0x06, 0x07, 0xff][rng.random_range(0..7)];
                keys[i][0] = prefix;
                format!("key {i}: prefix {prefix:#04x}")
            }
            5 => match other_candidate(&txs[i]) {
                Some(other) => {
                    keys[i] = other;
                    format!("key {i}: its signature's other recovery candidate")
                }
                None => {
                    keys[i][64] ^= 1;
                    format!("key {i}: y's low bit flipped (no other candidate)")
                }
            },
            6 => {
                keys[i] = negated(&keys[i]).unwrap();
                format!("key {i}: negated (x, p - y)")
            }
            7 => {
                keys[i] = random_key(rng);
                format!("key {i}: a random key")
            }
            8 => {
                keys[i][64] ^= 1;
                format!("key {i}: y's low bit flipped (off the curve)")
            }
            9 => match rng.random_range(0..4) {
                0 => {
                    keys.remove(i);
                    format!("key {i} of {n} dropped")
                }
                1 => {
                    keys.insert(i, keys[i]);
                    format!("key {i} of {n} duplicated")
                }
                2 => {
                    keys.push(random_key(rng));
                    format!("a random key appended to {n}")
                }
                _ => {
                    keys.clear();
                    format!("all {n} keys dropped")
                }
            },
            _ => {
                // The generator, or the right key's x in compressed form.
                if rng.random_bool(0.5) {
                    let g = sec1(&VerifyingKey::from_affine(k256::AffinePoint::GENERATOR).unwrap());
                    keys[i] = g;
                    format!("key {i}: the generator G")
                } else {
                    let parity = keys[i][64] & 1;
                    keys[i][0] = 0x02 | parity;
                    keys[i][33..].fill(0);
                    format!("key {i}: compressed, zero-padded to 65 bytes")
                }
            }
        }
    };
    input.public_keys = keys.into();
    what
}

fn mutate_signature(rng: &mut StdRng, input: &mut StatelessInput) -> Option<String> {
    let txs = decoded_transactions(input);
    if txs.is_empty() {
        return None;
    }
    let i = rng.random_range(0..txs.len());
    let tx = &txs[i];
    let sig = *tx.signature();
    let (r, s, v) = (sig.r(), sig.s(), sig.v());
    let bit = |rng: &mut StdRng| U256::from(1u8) << rng.random_range(0..256usize);
    let (new, what) = match rng.random_range(0..5) {
        0 => (Signature::new(r ^ bit(rng), s, v), "a bit of r flipped"),
        1 => (Signature::new(r, s ^ bit(rng), v), "a bit of s flipped"),
        2 => (Signature::new(r, s, !v), "y-parity flipped"),
        3 => (
            Signature::new(r, N.wrapping_sub(s), !v),
            "s malleated to n - s, parity flipped (the same key recovers, with high s)",
        ),
        _ => match rng.random_range(0..5) {
            0 => (Signature::new(U256::ZERO, s, v), "r = 0"),
            1 => (Signature::new(r, U256::ZERO, v), "s = 0"),
            2 => (Signature::new(N, s, v), "r = n"),
            3 => (Signature::new(N + U256::from(1u8), s, v), "r = n + 1"),
            _ => (Signature::new(U256::MAX, s, v), "r = 2^256 - 1"),
        },
    };
    let mut new_tx = resigned(tx, new).encoded_2718();
    // A legacy transaction's v is written from its parity: decode what a block would carry.
    if TxEnvelope::decode_2718_exact(&new_tx).is_err() {
        new_tx = tx.encoded_2718();
    }
    let mut all = transactions(input);
    all[i] = new_tx;
    set_transactions(input, all);
    let mut what = format!("transaction {i}: {what}");
    if rng.random_bool(0.5) {
        let new_tx = &decoded_transactions(input)[i];
        if let Ok(key) = reference::recovered_key(new_tx) {
            let mut keys = input.public_keys.to_vec();
            keys[i] = key;
            input.public_keys = keys.into();
            what += ", its key the one it now recovers";
        }
    }
    if rng.random_bool(0.85) && reseal(input) {
        what += ", resealed";
    }
    Some(what)
}

fn mutate_field(rng: &mut StdRng, input: &mut StatelessInput) -> Option<String> {
    let request = &mut input.new_payload_request;
    let delta = |rng: &mut StdRng, x: &mut u64| -> String {
        let old = *x;
        *x = match rng.random_range(0..4) {
            0 => old.wrapping_add(1),
            1 => old.wrapping_sub(1),
            2 => old ^ (1 << rng.random_range(0..64)),
            _ => rng.random(),
        };
        format!("{old} -> {}", *x)
    };
    let field = rng.random_range(0..17);
    let what = match field {
        0..=5 | 12 => {
            let (name, at) = payload!(request, p => {
                let (name, bytes): (&str, &mut [u8]) = match field {
                    0 => ("parent_hash", &mut p.parent_hash),
                    1 => ("fee_recipient", &mut p.fee_recipient),
                    2 => ("state_root", &mut p.state_root),
                    3 => ("receipts_root", &mut p.receipts_root),
                    4 => ("logs_bloom", &mut p.logs_bloom),
                    5 => ("prev_randao", &mut p.prev_randao),
                    _ => ("block_hash", &mut p.block_hash),
                };
                (name, flip_bit(rng, bytes))
            });
            format!("{name}: a bit of byte {at} flipped")
        }
        6..=9 => payload!(request, p => {
            let (name, x) = match field {
                6 => ("block_number", &mut p.block_number),
                7 => ("gas_limit", &mut p.gas_limit),
                8 => ("gas_used", &mut p.gas_used),
                _ => ("timestamp", &mut p.timestamp),
            };
            format!("{name} {}", delta(rng, x))
        }),
        10 => {
            let len = rng.random_range(0..=32);
            let data = random_bytes(rng, len);
            payload!(request, p => p.extra_data = data.try_into().unwrap());
            format!("extra_data: {len} random bytes")
        }
        11 => payload!(request, p => {
            let old = U256::from_le_bytes(p.base_fee_per_gas);
            let new = match rng.random_range(0..3) {
                0 => old + U256::from(1u8),
                1 => old.saturating_sub(U256::from(1u8)),
                _ => old + (U256::from(1u8) << 64),
            };
            p.base_fee_per_gas = new.to_le_bytes();
            format!("base_fee_per_gas {old} -> {new}")
        }),
        13 | 14 => blob_payload!(request, _r, p => {
            let (name, x) = if field == 13 {
                ("blob_gas_used", &mut p.blob_gas_used)
            } else {
                ("excess_blob_gas", &mut p.excess_blob_gas)
            };
            format!("{name} {}", delta(rng, x))
        })?,
        15 => blob_payload!(request, r, _p => {
            let at = flip_bit(rng, &mut r.parent_beacon_block_root);
            format!("parent_beacon_block_root: a bit of byte {at} flipped")
        })?,
        _ => blob_payload!(request, r, _p => {
            let mut hashes = r.versioned_hashes.to_vec();
            let what = if hashes.is_empty() || rng.random_bool(0.5) {
                hashes.push(rng.random());
                "a versioned hash added"
            } else {
                let i = rng.random_range(0..hashes.len());
                flip_bit(rng, &mut hashes[i]);
                "a versioned hash changed"
            };
            r.versioned_hashes = hashes.into();
            what.to_owned()
        })?,
    };
    // Resealed, the change reaches the checks past the block hash.
    let resealed = field != 12 && rng.random_bool(0.8) && reseal(input);
    Some(if resealed { what + ", resealed" } else { what })
}

fn mutate_body(rng: &mut StdRng, input: &mut StatelessInput) -> String {
    let mut what = if rng.random_bool(0.4) {
        let request = &mut input.new_payload_request;
        let edited = blob_payload!(request, _r, p => {
            let mut ws = p.withdrawals.to_vec();
            let what = if ws.is_empty() || rng.random_bool(0.3) {
                ws.push(stateless_ssz::Withdrawal {
                    index: rng.random_range(0..4),
                    validator_index: rng.random(),
                    address: rng.random(),
                    amount: rng.random_range(0..1 << 40),
                });
                "a withdrawal added".to_owned()
            } else {
                let i = rng.random_range(0..ws.len());
                match rng.random_range(0..4) {
                    0 => {
                        ws.remove(i);
                        format!("withdrawal {i} dropped")
                    }
                    1 => {
                        ws.insert(i, ws[i].clone());
                        format!("withdrawal {i} duplicated")
                    }
                    2 => {
                        ws[i].amount = ws[i].amount.wrapping_add(1);
                        format!("withdrawal {i}: amount + 1")
                    }
                    _ => {
                        ws[i].address[19] ^= 1;
                        format!("withdrawal {i}: address changed")
                    }
                }
            };
            p.withdrawals = ws.into();
            what
        });
        match edited {
            Some(what) => what,
            None => "nothing (no withdrawals in this shape)".to_owned(),
        }
    } else {
        let mut txs = transactions(input);
        let mut keys = input.public_keys.to_vec();
        let n = txs.len();
        let follow = rng.random_bool(0.7);
        let what = match rng.random_range(0..4) {
            0 if n > 0 => {
                let i = rng.random_range(0..n);
                txs.remove(i);
                if follow {
                    keys.remove(i);
                }
                format!("transaction {i} of {n} dropped (its key too: {follow})")
            }
            1 if n > 0 => {
                let i = rng.random_range(0..n);
                txs.insert(i, txs[i].clone());
                if follow {
                    keys.insert(i, keys[i]);
                }
                format!("transaction {i} of {n} duplicated (its key too: {follow})")
            }
            2 if n > 1 => {
                let i = rng.random_range(0..n);
                let j = (i + rng.random_range(1..n)) % n;
                txs.swap(i, j);
                if follow {
                    keys.swap(i, j);
                }
                format!("transactions {i} and {j} swapped (their keys too: {follow})")
            }
            _ => {
                let what = edit_list(rng, &mut txs, 300, "transaction");
                if txs.len() > keys.len() && follow {
                    keys.push(random_key(rng));
                }
                what
            }
        };
        set_transactions(input, txs);
        input.public_keys = keys.into();
        what
    };
    if rng.random_bool(0.9) && reseal(input) {
        what += ", resealed";
    }
    what
}

fn mutate_requests(rng: &mut StdRng, input: &mut StatelessInput) -> Option<String> {
    use stateless_ssz::{ConsolidationRequest, DepositRequest, WithdrawalRequest};
    let kind = rng.random_range(0..3);
    let deposit = |rng: &mut StdRng| DepositRequest {
        pubkey: std::array::from_fn(|_| rng.random()),
        withdrawal_credentials: rng.random(),
        amount: rng.random(),
        signature: std::array::from_fn(|_| rng.random()),
        index: rng.random(),
    };
    let withdrawal = |rng: &mut StdRng| WithdrawalRequest {
        source_address: rng.random(),
        validator_pubkey: std::array::from_fn(|_| rng.random()),
        amount: rng.random(),
    };
    let consolidation = |rng: &mut StdRng| ConsolidationRequest {
        source_address: rng.random(),
        source_pubkey: std::array::from_fn(|_| rng.random()),
        target_pubkey: std::array::from_fn(|_| rng.random()),
    };
    macro_rules! add {
        ($q:expr) => {{
            let q = $q;
            match kind {
                0 => {
                    let mut v = q.deposits.to_vec();
                    v.push(deposit(rng));
                    q.deposits = v.into();
                }
                1 => {
                    let mut v = q.withdrawals.to_vec();
                    v.push(withdrawal(rng));
                    q.withdrawals = v.into();
                }
                _ => {
                    let mut v = q.consolidations.to_vec();
                    v.push(consolidation(rng));
                    q.consolidations = v.into();
                }
            }
        }};
    }
    match &mut input.new_payload_request {
        NewPayloadRequest::V4(r) => add!(&mut r.execution_requests),
        NewPayloadRequest::V5(r) => add!(&mut r.execution_requests),
        _ => return None,
    }
    let mut what = format!(
        "a random {} request added",
        ["deposit", "withdrawal", "consolidation"][kind]
    );
    if rng.random_bool(0.9) && reseal(input) {
        what += ", resealed";
    }
    Some(what)
}

fn mutate_access_list(rng: &mut StdRng, input: &mut StatelessInput) -> Option<String> {
    let NewPayloadRequest::V5(r) = &mut input.new_payload_request else {
        return None;
    };
    let p = &mut r.execution_payload;
    let mut list = p.block_access_list.to_vec();
    let what = match rng.random_range(0..6) {
        0 if !list.is_empty() => {
            let at = flip_bit(rng, &mut list);
            format!("block access list: a bit of byte {at} flipped")
        }
        1 if !list.is_empty() => {
            let keep = rng.random_range(0..list.len());
            list.truncate(keep);
            format!("block access list truncated to {keep} bytes")
        }
        2 => {
            list.push(rng.random());
            "block access list: a byte appended".to_owned()
        }
        3 => {
            list = vec![0xc0];
            "block access list: the empty list".to_owned()
        }
        4 if !list.is_empty() => {
            let mut accounts: Vec<alloy_eips::eip7928::AccountChanges> =
                alloy_rlp::decode_exact(&list).unwrap();
            if accounts.is_empty() {
                return None;
            }
            let i = rng.random_range(0..accounts.len());
            accounts.remove(i);
            list.clear();
            alloy_rlp::encode_list(&accounts, &mut list);
            format!("block access list: account {i} dropped")
        }
        _ => {
            let old = p.slot_number;
            p.slot_number = if rng.random_bool(0.5) {
                old + 1
            } else {
                old.wrapping_sub(1)
            };
            format!("slot_number {old} -> {}", p.slot_number)
        }
    };
    p.block_access_list = list.into();
    let mut what = what;
    if rng.random_bool(0.9) && reseal(input) {
        what += ", resealed";
    }
    Some(what)
}

fn mutate_chain(rng: &mut StdRng, input: &mut StatelessInput) -> String {
    let same_shape: Vec<Fork> = Fork::ALL
        .into_iter()
        .filter(|f| f.shape() == input.fork.shape() && *f != input.fork)
        .collect();
    if !same_shape.is_empty() && rng.random_bool(0.4) {
        let fork = same_shape[rng.random_range(0..same_shape.len())];
        let what = format!("schema {} -> {}", input.fork.name(), fork.name());
        input.fork = fork;
        return what;
    }
    let old = input.chain_id;
    let others: Vec<u64> = reference::KNOWN_CHAIN_IDS
        .into_iter()
        .filter(|id| *id != old)
        .collect();
    input.chain_id = match rng.random_range(0..5) {
        0 | 1 => others[rng.random_range(0..others.len())],
        2 => 0,
        3 => u64::MAX,
        _ => rng.random(),
    };
    format!("chain id {old} -> {}", input.chain_id)
}

fn u32_at(bytes: &[u8], at: usize) -> Option<usize> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().unwrap()) as usize)
}

/// Where the input's SSZ offsets are: the outer container's three, the witness's three, the
/// first offsets of its three lists, the request's own and its payload's (`extra_data`,
/// `transactions`, `withdrawals`, Amsterdam's `block_access_list`), and the first
/// transactions' offsets.
fn offset_positions(bytes: &[u8]) -> Vec<(String, usize)> {
    let mut out = vec![
        ("request".to_owned(), 2),
        ("witness".to_owned(), 6),
        ("public_keys".to_owned(), 18),
    ];
    let at = |rel: usize| u32_at(bytes, rel).map(|o| 2 + o);
    // The first offsets of a list of byte strings at `start..end` (none when it is empty).
    let items = |out: &mut Vec<(String, usize)>, name: &str, start: usize, end: usize| {
        if start < end {
            let count = u32_at(bytes, start).map_or(0, |first| first / 4);
            for j in 0..count.min(3) {
                out.push((format!("{name}[{j}]"), start + 4 * j));
            }
        }
    };
    if let (Some(w), Some(keys)) = (at(6), at(18)) {
        let starts: Vec<Option<usize>> = (0..3).map(|k| u32_at(bytes, w + 4 * k)).collect();
        for (k, name) in ["state", "codes", "headers"].iter().enumerate() {
            out.push((format!("witness.{name}"), w + 4 * k));
            let end = if k < 2 {
                starts[k + 1].map(|o| w + o)
            } else {
                Some(keys)
            };
            if let (Some(start), Some(end)) = (starts[k].map(|o| w + o), end) {
                items(&mut out, &format!("witness.{name}"), start, end);
            }
        }
    }
    if let Some(q) = at(2) {
        let shape = u16::from_be_bytes([bytes[0], bytes[1]]);
        out.push(("request.execution_payload".to_owned(), q));
        if shape >= Fork::Cancun.schema_id() {
            out.push(("request.versioned_hashes".to_owned(), q + 4));
        }
        if shape >= Fork::Prague.schema_id() {
            out.push(("request.execution_requests".to_owned(), q + 40));
        }
        if let Some(p) = u32_at(bytes, q).map(|o| q + o) {
            out.push(("payload.extra_data".to_owned(), p + 436));
            out.push(("payload.transactions".to_owned(), p + 504));
            if shape >= Fork::Shanghai.schema_id() {
                out.push(("payload.withdrawals".to_owned(), p + 508));
                let start = u32_at(bytes, p + 504).map(|o| p + o);
                let end = u32_at(bytes, p + 508).map(|o| p + o);
                if let (Some(start), Some(end)) = (start, end) {
                    items(&mut out, "payload.transactions", start, end);
                }
            }
            if shape >= Fork::Amsterdam.schema_id() {
                out.push(("payload.block_access_list".to_owned(), p + 528));
            }
        }
    }
    out.retain(|(_, at)| at + 4 <= bytes.len());
    out
}

/// One SSZ offset changed: to its neighbours, to zero, to the input's length and past it.
fn mutate_offset(rng: &mut StdRng, bytes: &[u8]) -> (String, Vec<u8>) {
    let positions = offset_positions(bytes);
    let (name, at) = positions[rng.random_range(0..positions.len())].clone();
    let old = u32_at(bytes, at).unwrap() as u32;
    let len = bytes.len() as u32;
    let new = match rng.random_range(0..9) {
        0 => old.wrapping_add(1),
        1 => old.wrapping_sub(1),
        2 => old.wrapping_add(4),
        3 => old.wrapping_sub(4),
        4 => 0,
        5 => len,
        6 => len + 1,
        7 => u32::MAX,
        _ => rng.random_range(0..len),
    };
    let new = if new == old { old ^ 1 } else { new };
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(&new.to_le_bytes());
    (format!("offset {name} (byte {at}): {old} -> {new}"), out)
}

fn mutate_length(rng: &mut StdRng, bytes: &[u8]) -> (String, Vec<u8>) {
    let mut out = bytes.to_vec();
    let len = out.len();
    let k = match rng.random_range(0..6) {
        0 => 1,
        1 => 4,
        2 => 64,
        3 => 65,
        4 => 130,
        _ => rng.random_range(1..=200),
    };
    let what = match rng.random_range(0..4) {
        0 => {
            out.truncate(len.saturating_sub(k));
            format!("the last {k} bytes cut")
        }
        1 => {
            out.extend(random_bytes(rng, k));
            format!("{k} random bytes appended (public keys run to the end)")
        }
        2 => {
            let at = rng.random_range(0..len);
            let junk = random_bytes(rng, k);
            out.splice(at..at, junk);
            format!("{k} random bytes inserted at byte {at}")
        }
        _ => {
            let at = rng.random_range(0..len);
            let end = (at + k).min(len);
            out.drain(at..end);
            format!("bytes {at}..{end} removed")
        }
    };
    (what, out)
}

// ---------------------------------------------------------------------------------------
// The differential.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Undecodable,
    Invalid,
    Valid,
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

/// `validate` and the reference on `bytes`: the outcome they agree on, or how they differ.
fn differential(bytes: &[u8]) -> Result<(Outcome, Expected), String> {
    let subject = catch_unwind(AssertUnwindSafe(|| validate(bytes, &Sha2Hasher)))
        .map_err(|p| format!("PANIC in program::standard::validate: {}", panic_message(p)))?;
    let expected = catch_unwind(AssertUnwindSafe(|| reference::expected(bytes)))
        .map_err(|p| format!("the reference panicked: {}", panic_message(p)))?;
    let result = expected.result();
    let agree = subject.result == result
        && match &expected {
            Expected::Undecodable(_) => matches!(subject.error(), Some(StandardError::Decode(_))),
            Expected::Decoded { .. } => !matches!(subject.error(), Some(StandardError::Decode(_))),
        };
    if !agree {
        let soundness = subject.result.successful_validation && !result.successful_validation;
        let why = match &expected {
            Expected::Undecodable(why) => format!("undecodable: {why}"),
            Expected::Decoded { why_not: None, .. } => "valid".to_owned(),
            Expected::Decoded {
                why_not: Some(why), ..
            } => why.clone(),
        };
        return Err(format!(
            "{}validate gives {} ({:?}); the reference {} ({why})",
            if soundness { "SOUNDNESS: " } else { "" },
            show(&subject.result),
            subject.error(),
            show(&result),
        ));
    }
    let outcome = match &expected {
        Expected::Undecodable(_) => Outcome::Undecodable,
        Expected::Decoded { why_not: None, .. } => Outcome::Valid,
        Expected::Decoded { .. } => Outcome::Invalid,
    };
    Ok((outcome, expected))
}

fn show(result: &StatelessValidationResult) -> String {
    format!(
        "{} (chain {}, schema {:#06x}, root 0x{})",
        result.successful_validation,
        result.chain_id,
        result.schema_id,
        alloy_primitives::hex::encode(&result.new_payload_request_root[..4])
    )
}

/// The bases and their CI-size counts: mostly the devnet-size blocks (a mutation of one costs up
/// to 15 ms in the test build, both runs), a few of two mainnet blocks (Cancun with blob
/// transactions, and BPO1: 0.1 to 0.3 s each). About 30 s in all.
fn bases(seed: u64) -> Vec<Base> {
    let (amsterdam, amsterdam_chain) = super::project_block("devnet-amsterdam");
    let mainnet = |number| super::input_of(&tests::mainnet_block(number), &ChainConfig::mainnet());
    vec![
        Base::new("devnet (Osaka)", devnet_input(Devfork::Osaka, false), 600),
        Base::new(
            "devnet-small (Osaka)",
            devnet_input(Devfork::Osaka, true),
            300,
        ),
        Base::new("devnet-prague", devnet_input(Devfork::Prague, false), 300),
        Base::new(
            &format!("devnet random transactions (seed {seed:#x})"),
            random_input(seed),
            500,
        ),
        Base::new(
            "devnet-amsterdam (blocks/)",
            super::input_of(&amsterdam, &amsterdam_chain),
            450,
        ),
        Base::new("mainnet 24171384 (BPO1)", mainnet(24171384), 40),
        Base::new("mainnet 21882667 (Cancun, blobs)", mainnet(21882667), 20),
    ]
}

#[test]
fn mutated_standard_inputs_validate_as_the_reference_says() {
    let seed = seed();
    let factor = factor();
    let start = Instant::now();
    let bases = bases(seed);
    println!(
        "seed {seed:#x}, {factor}x; bases built in {:.1?}",
        start.elapsed()
    );
    let mut tally: BTreeMap<Class, [usize; 3]> = BTreeMap::new();
    // Per class, the first mutation that left the input valid: what "valid after mutation" is.
    let mut still_valid: BTreeMap<Class, String> = BTreeMap::new();
    let mut failures = Vec::new();
    for (b, base) in bases.iter().enumerate() {
        let base_start = Instant::now();
        let cases = base.cases * factor;
        let mut outcomes = [0usize; 3];
        for case in 0..cases {
            let case_seed = mix(seed, b, case);
            let mut rng = StdRng::seed_from_u64(case_seed);
            let (class, what, bytes) = mutate(&mut rng, base);
            match differential(&bytes) {
                Ok((outcome, _)) => {
                    tally.entry(class).or_default()[outcome as usize] += 1;
                    outcomes[outcome as usize] += 1;
                    if outcome == Outcome::Valid {
                        still_valid
                            .entry(class)
                            .or_insert_with(|| format!("{}: {what}", base.name));
                    }
                }
                Err(e) => failures.push(format!(
                    "HOSTILE_SEED={seed:#x} base `{}` case {case} (case seed {case_seed:#x}), \
                     {class:?}: {what}: {e}",
                    base.name
                )),
            }
        }
        println!(
            "{}: {cases} mutations in {:.1?} ({} undecodable, {} false, {} true)",
            base.name,
            base_start.elapsed(),
            outcomes[0],
            outcomes[1],
            outcomes[2]
        );
    }
    println!(
        "{:<16} {:>11} {:>8} {:>6}",
        "class", "undecodable", "false", "true"
    );
    let mut totals = [0usize; 3];
    for (class, counts) in &tally {
        println!(
            "{:<16} {:>11} {:>8} {:>6}",
            format!("{class:?}"),
            counts[0],
            counts[1],
            counts[2]
        );
        for (t, c) in totals.iter_mut().zip(counts) {
            *t += c;
        }
    }
    println!(
        "{:<16} {:>11} {:>8} {:>6}   ({:.1?} in all)",
        "all",
        totals[0],
        totals[1],
        totals[2],
        start.elapsed()
    );
    for (class, example) in &still_valid {
        println!("still valid, {class:?}: {example}");
    }
    assert!(
        failures.is_empty(),
        "{} of the mutations differ from the reference:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The run reached every verdict, and every class ran.
    assert!(totals.iter().all(|&t| t > 0), "{totals:?}");
    assert_eq!(tally.len(), CLASSES.len(), "{:?}", tally.keys());
}

/// A few mutations in the VM, where the standard guest checks keys on the secp256k1 chips
/// (`crypto::secp256k1::is_signer`) rather than by k256's recovery: the zero key, a high-`s`
/// twin of a signature (the signer's own key recovers from it), a signature changed with the
/// key it now recovers given (the keys all match; execution refuses the unfunded sender), a
/// payload change that leaves the block valid once resealed, a junk trie node, and an offset
/// that leaves nothing to decode. `run_standard` holds the VM's result to the native run's;
/// each is also the reference's, and what the case says it is.
#[test]
fn mutations_in_the_vm_give_the_reference_result() {
    use prover::guest::{GuestSpec, Keccak, Program};
    let base = Base::new("devnet (Osaka)", devnet_input(Devfork::Osaka, false), 0);
    let small = Base::new(
        "devnet-small (Osaka)",
        devnet_input(Devfork::Osaka, true),
        0,
    );
    let keys = base.input.public_keys.to_vec();
    let txs = decoded_transactions(&base.input);
    let mut cases: Vec<(&str, Vec<u8>, Outcome)> = Vec::new();

    let mut zero = base.input.clone();
    let mut k = keys.clone();
    k[0] = [0u8; 65];
    k[0][0] = 4;
    zero.public_keys = k.into();
    cases.push((
        "devnet, key 0 the zero key 0x04 ‖ 0^64",
        encode_input(&zero),
        Outcome::Invalid,
    ));

    let mut high_s = base.input.clone();
    let sig = *txs[0].signature();
    let twin = resigned(&txs[0], Signature::new(sig.r(), N - sig.s(), !sig.v()));
    let mut all = transactions(&high_s);
    all[0] = twin.encoded_2718();
    set_transactions(&mut high_s, all);
    assert!(reseal(&mut high_s));
    cases.push((
        "devnet, transaction 0's s malleated to n - s (the same key), resealed",
        encode_input(&high_s),
        Outcome::Invalid,
    ));

    let mut other_sender = base.input.clone();
    let sig = *txs[1].signature();
    let changed = resigned(
        &txs[1],
        Signature::new(sig.r() ^ U256::from(1u8), sig.s(), sig.v()),
    );
    let mut all = transactions(&other_sender);
    all[1] = changed.encoded_2718();
    set_transactions(&mut other_sender, all);
    let mut k = keys.clone();
    k[1] = reference::recovered_key(&changed).expect("a key recovers");
    other_sender.public_keys = k.into();
    assert!(reseal(&mut other_sender));
    cases.push((
        "devnet, transaction 1's r changed, the key it now recovers given, resealed",
        encode_input(&other_sender),
        Outcome::Invalid,
    ));

    let mut extra = base.input.clone();
    payload!(&mut extra.new_payload_request, p => {
        p.extra_data = b"hostile but valid".to_vec().try_into().unwrap()
    });
    assert!(reseal(&mut extra));
    cases.push((
        "devnet, extra_data changed and resealed (still valid)",
        encode_input(&extra),
        Outcome::Valid,
    ));

    let mut junk = small.input.clone();
    let mut nodes = lists(&junk.witness.state);
    nodes.insert(0, vec![0xc2, 0x80, 0x80]);
    junk.witness.state = byte_lists(nodes).into();
    cases.push((
        "devnet-small, a junk trie node first (still valid)",
        encode_input(&junk),
        Outcome::Valid,
    ));

    let mut offset = small.bytes.clone();
    offset[18] = offset[18].wrapping_add(1);
    cases.push((
        "devnet-small, the public keys' offset + 1",
        offset,
        Outcome::Undecodable,
    ));

    let spec = GuestSpec::program(Program::Standard, Keccak::Ours);
    for (what, bytes, claimed) in cases {
        let (outcome, expected) = differential(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(outcome, claimed, "{what}: {expected:?}");
        let start = Instant::now();
        let run = prover::standard::run_standard(&bytes, Some(spec))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let (result, _) = run.vm.expect("the VM ran");
        assert_eq!(result, expected.result(), "{what}");
        println!(
            "{what}: VM {} in {:.1?} ({:?})",
            show(&result),
            start.elapsed(),
            run.native.error()
        );
    }
}
