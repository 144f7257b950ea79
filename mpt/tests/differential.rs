//! The trie's fast paths against independent references, on hostile inputs (issue 51, part 3).
//!
//! Why: the trie's speed work can break a root without any error. A branch decoded from the
//! witness is rehashed as a patch of its witness RLP, trusting a changed-slot mask: a bit not
//! set is a forgotten change, and a wrong post-state root that a prover can then write into a
//! header. Branch slots are packed into one word each; a slot not rewritten keeps a stale
//! child. The witness store first offers the item at an in-order cursor: a claim made without
//! comparing hashes hands out the wrong node (or a tampered copy) as the node of a hash. The
//! guest's memo of short hashes answers a repeat from its table: a comparison of less than the
//! whole input answers a near twin with its twin's hash. None of these fail loudly, so every
//! step here is checked against code that shares none of them:
//!
//! - roots against alloy-trie's `HashBuilder` over the same key/value map, after every step
//!   (or every few, so changes also pile up between two root computations);
//! - the tries: random, with keys sharing prefixes, keys one nibble apart, short keys (nodes
//!   under 32 bytes, embedded in their parent), long values (nodes that stream into the
//!   sponge), and twin subtrees (the same subtree under two paths, one witness node decoded
//!   twice);
//! - the witness: every node alloy-trie's proof retainer keeps (not our encoder's), in the order
//!   the host writes it (the cursor's path), with tampered copies just before the real ones and
//!   duplicates, shuffled, reversed, or with nodes dropped (then a lookup may only fail naming a
//!   dropped node); each store is also asked directly for every hash, and must answer with the
//!   preimage (tiny-keccak's) or nothing;
//! - the changes: updates to the same value, a change then its revert, a delete then its
//!   reinsert, deletes that collapse branches, inserts that split leaves and extensions, absent
//!   deletes, edits of one twin; the trie reopened from the changed state's witness;
//! - `keccak::memo` against tiny-keccak and alloy's keccak, on repeats and near twins (inputs
//!   built to land in the same memo slot and differ only past any prefix).
//!
//! Each planted bug (`mpt`'s `plant-*` features, test-only mutants) makes this test fail:
//! `scripts/trie-mutants.sh` checks it. A run is seeded and sized from the environment:
//! `HOSTILE_CASES` multiplies the case counts (default 1, the CI size), `HOSTILE_SEED` picks the
//! seed (decimal or `0x` hex), and `HOSTILE_ONLY=N` replays case `N` alone, as a failure names it.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashSet};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use alloy_primitives::{keccak256 as alloy_keccak, B256};
use alloy_trie::proof::ProofRetainer;
use alloy_trie::{HashBuilder, Nibbles, EMPTY_ROOT_HASH};
use mpt::keccak::memo::{Memo, MAX_INPUT};
use mpt::{Trie, TrieError, WitnessStore};
use rand::rngs::SmallRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};

mod common;
use common::{reference_root, Model};

// ---------------------------------------------------------------------------------------------
// The harness: seeded cases, each failure caught and counted, never the first one alone.

/// The run's size and seed, from the environment.
struct Config {
    multiplier: usize,
    seed: u64,
    only: Option<usize>,
}

fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    let value = value.trim();
    let parsed = match value.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => value.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={value:?} is not a number")))
}

fn config() -> Config {
    Config {
        multiplier: env_number("HOSTILE_CASES").map_or(1, |n| n as usize),
        seed: env_number("HOSTILE_SEED").unwrap_or(0x51_0003),
        only: env_number("HOSTILE_ONLY").map(|n| n as usize),
    }
}

thread_local! {
    /// Set while a case runs: its panics are counted as failures, not printed one by one.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where the last quiet panic happened.
    static PANIC_AT: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Installs (once) a panic hook that stays silent on a thread running cases: a planted bug
/// can panic in every case, and the summary counts them instead.
fn quiet_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let at = info
                    .location()
                    .map_or_else(String::new, ToString::to_string);
                PANIC_AT.with(|p| *p.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
}

/// What the cases of one test covered, summed: checked at the end, so that a generator that
/// stops producing some shape fails the test instead of silently testing less.
#[derive(Debug, Default, Clone, Copy)]
struct Coverage {
    cases: usize,
    steps: usize,
    roots_compared: usize,
    splits: usize,
    collapses: usize,
    emptied: usize,
    same_value: usize,
    reverts: usize,
    reinserts: usize,
    absent_deletes: usize,
    twin_edits: usize,
    inline_nodes: usize,
    twin_nodes: usize,
    long_values: usize,
    tampered: usize,
    duplicates: usize,
    missing_named: usize,
    reopened: usize,
    shared_stores: usize,
    store_lookups: usize,
    cursor_traps: usize,
    memo_hits: usize,
    memo_twins: usize,
}

impl Coverage {
    fn add(&mut self, other: &Self) {
        macro_rules! sum {
            ($($field:ident),*) => { $(self.$field += other.$field;)* };
        }
        sum!(
            cases,
            steps,
            roots_compared,
            splits,
            collapses,
            emptied,
            same_value,
            reverts,
            reinserts,
            absent_deletes,
            twin_edits,
            inline_nodes,
            twin_nodes,
            long_values,
            tampered,
            duplicates,
            missing_named,
            reopened,
            shared_stores,
            store_lookups,
            cursor_traps,
            memo_hits,
            memo_twins
        );
    }
}

/// Runs `base * HOSTILE_CASES` cases of `case` (or the one `HOSTILE_ONLY` names), each from a
/// seed of its own, with its panics caught; prints one summary line
/// (`differential[NAME]: F of N cases failed`, which `scripts/trie-mutants.sh` reads) and the
/// first failures with how to replay them; fails if any case failed. Returns the coverage.
fn run_cases(
    name: &str,
    base: usize,
    case: impl Fn(&mut SmallRng, &mut Coverage) -> Result<(), String>,
) -> Option<Coverage> {
    quiet_panics();
    let config = config();
    let count = base * config.multiplier.max(1);
    let tag = alloy_keccak(name.as_bytes());
    let tag = u64::from_le_bytes(tag[..8].try_into().unwrap());
    let mut total = Coverage::default();
    let mut failures = Vec::new();
    let mut ran = 0;
    for index in 0..count {
        if config.only.is_some_and(|only| only != index) {
            continue;
        }
        ran += 1;
        let seed = config.seed ^ tag ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut coverage = Coverage::default();
        QUIET.with(|q| q.set(true));
        let result = panic::catch_unwind(AssertUnwindSafe(|| case(&mut rng, &mut coverage)));
        QUIET.with(|q| q.set(false));
        coverage.cases = 1;
        total.add(&coverage);
        let failure = match result {
            Ok(Ok(())) => continue,
            Ok(Err(message)) => message,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(ToString::to_string)
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let at = PANIC_AT.with(|p| p.borrow().clone());
                format!("panicked at {at}: {message}")
            }
        };
        failures.push((index, failure));
    }
    for (index, failure) in failures.iter().take(5) {
        println!(
            "differential[{name}] case {index} failed (replay: HOSTILE_SEED={:#x} \
             HOSTILE_CASES={} HOSTILE_ONLY={index}): {failure}",
            config.seed, config.multiplier
        );
    }
    let panics = failures
        .iter()
        .filter(|(_, f)| f.starts_with("panicked"))
        .count();
    println!(
        "differential[{name}]: {} of {ran} cases failed ({} by a check, {panics} by a panic), \
         seed {:#x}",
        failures.len(),
        failures.len() - panics,
        config.seed
    );
    println!("differential[{name}]: covered {total:?}");
    assert!(
        failures.is_empty(),
        "differential[{name}] failed in {} of {ran} cases",
        failures.len()
    );
    // Coverage is asserted over a whole run only: one replayed case covers what it covers.
    config.only.is_none().then_some(total)
}

// ---------------------------------------------------------------------------------------------
// Keys, values and the model.

fn unpack(key: &[u8]) -> Vec<u8> {
    key.iter().flat_map(|b| [b >> 4, b & 0xf]).collect()
}

fn pack(nibbles: &[u8]) -> Vec<u8> {
    nibbles.chunks(2).map(|p| (p[0] << 4) | p[1]).collect()
}

fn random_nibbles(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.random_range(0..16u8)).collect()
}

/// A value: mostly short (a leaf under 32 bytes where the key's rest is short: embedded),
/// sometimes long enough that its leaf streams into the sponge past the node buffer.
fn random_value(rng: &mut SmallRng) -> Vec<u8> {
    let len = match rng.random_range(0..40) {
        0..=15 => rng.random_range(1..=3),
        16..=30 => rng.random_range(4..=40),
        31..=38 => rng.random_range(41..=120),
        _ => rng.random_range(540..=700),
    };
    (0..len).map(|_| rng.random()).collect()
}

/// A key one nibble away from `key` (mostly near its end: a deep sibling, long shared paths,
/// extensions), sometimes with everything after that nibble redrawn.
fn near_key(rng: &mut SmallRng, key: &[u8]) -> Vec<u8> {
    let mut nibbles = unpack(key);
    let len = nibbles.len();
    let at = if rng.random_bool(0.5) {
        rng.random_range(0..len)
    } else {
        len - 1 - rng.random_range(0..len.min(4))
    };
    nibbles[at] = (nibbles[at] + rng.random_range(1..16)) % 16;
    if rng.random_bool(0.3) {
        for n in &mut nibbles[at + 1..] {
            *n = rng.random_range(0..16);
        }
    }
    pack(&nibbles)
}

/// How keys are drawn for one case: a key length and a pool of shared prefixes.
struct KeySpace {
    key_len: usize,
    prefixes: Vec<Vec<u8>>,
    /// Pairs of keys in twin subtrees: the same suffix under two prefixes.
    twins: Vec<(Vec<u8>, Vec<u8>)>,
}

impl KeySpace {
    fn new(rng: &mut SmallRng) -> Self {
        let key_len = *[1usize, 2, 3, 4, 8, 32, 32, 32, 32, 32]
            .choose(rng)
            .unwrap();
        let nibbles = 2 * key_len;
        let prefixes = (0..rng.random_range(1..=5))
            .map(|_| {
                let len = rng.random_range(1..nibbles);
                random_nibbles(rng, len)
            })
            .collect();
        Self {
            key_len,
            prefixes,
            twins: Vec::new(),
        }
    }

    /// A key: fully random, under a shared prefix, or near a key of `model`.
    fn key(&self, rng: &mut SmallRng, model: &Model) -> Vec<u8> {
        let nibbles = 2 * self.key_len;
        match rng.random_range(0..3) {
            0 => pack(&random_nibbles(rng, nibbles)),
            1 => {
                let mut key = self.prefixes.choose(rng).unwrap().clone();
                let rest = nibbles - key.len();
                key.extend(random_nibbles(rng, rest));
                pack(&key)
            }
            _ => match pick_key(rng, model) {
                Some(key) => near_key(rng, &key),
                None => pack(&random_nibbles(rng, nibbles)),
            },
        }
    }

    /// A key absent from `model`, or `None` when the key space is (nearly) full.
    fn fresh_key(&self, rng: &mut SmallRng, model: &Model) -> Option<Vec<u8>> {
        (0..32)
            .map(|_| self.key(rng, model))
            .find(|key| !model.contains_key(key))
    }

    /// A random model: `n` keys as [`KeySpace::key`] draws them, and sometimes twin subtrees
    /// (the same suffixes and values under two prefixes of one length).
    fn model(&mut self, rng: &mut SmallRng) -> Model {
        let n = match rng.random_range(0..12) {
            0 => 0,
            1 => 1,
            2 => rng.random_range(2..=4),
            3..=7 => rng.random_range(5..=40),
            _ => rng.random_range(41..=140),
        };
        let mut model = Model::new();
        for _ in 0..n {
            if let Some(key) = self.fresh_key(rng, &model) {
                model.insert(key, random_value(rng));
            }
        }
        let nibbles = 2 * self.key_len;
        if nibbles >= 3 && rng.random_bool(0.5) {
            // Twin prefixes of length `t`, then `m` shared suffixes: below the prefixes the two
            // subtrees are the same nodes, unless another key happens to share a prefix.
            let t = rng.random_range(1..nibbles - 1);
            let first = random_nibbles(rng, t);
            let mut second = first.clone();
            let at = rng.random_range(0..t);
            second[at] = (second[at] + rng.random_range(1..16)) % 16;
            for _ in 0..rng.random_range(2..=6) {
                let suffix = random_nibbles(rng, nibbles - t);
                let value = random_value(rng);
                let a = pack(&[&first[..], &suffix[..]].concat());
                let b = pack(&[&second[..], &suffix[..]].concat());
                model.insert(a.clone(), value.clone());
                model.insert(b.clone(), value);
                self.twins.push((a, b));
            }
        }
        model
    }
}

fn pick_key(rng: &mut SmallRng, model: &Model) -> Option<Vec<u8>> {
    (!model.is_empty()).then(|| {
        let at = rng.random_range(0..model.len());
        model.keys().nth(at).unwrap().clone()
    })
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The shape change writing a new `key` into `model` makes: whether it creates a branch (a
/// leaf or an extension split) rather than filling a slot of an existing one.
fn insert_splits(model: &Model, key: &[u8]) -> bool {
    let key = unpack(key);
    let others: Vec<Vec<u8>> = model.keys().map(|k| unpack(k)).collect();
    let Some(depth) = others.iter().map(|k| common_prefix(k, &key)).max() else {
        return false;
    };
    let below: HashSet<u8> = others
        .iter()
        .filter(|k| k[..depth] == key[..depth])
        .map(|k| k[depth])
        .collect();
    below.len() == 1
}

/// Whether deleting `key` (present) from `model` removes a branch (it had two children).
fn delete_collapses(model: &Model, key: &[u8]) -> bool {
    let key = unpack(key);
    let others: Vec<Vec<u8>> = model
        .keys()
        .map(|k| unpack(k))
        .filter(|k| *k != key)
        .collect();
    let Some(depth) = others.iter().map(|k| common_prefix(k, &key)).max() else {
        return false;
    };
    let below: HashSet<u8> = others
        .iter()
        .filter(|k| k[..depth] == key[..depth])
        .map(|k| k[depth])
        .chain([key[depth]])
        .collect();
    below.len() == 2
}

// ---------------------------------------------------------------------------------------------
// Witnesses: alloy-trie's nodes, in every order, with copies and forgeries.

fn tiny_keccak(data: &[u8]) -> B256 {
    use tiny_keccak::Hasher;
    let mut hasher = tiny_keccak::Keccak::v256();
    hasher.update(data);
    let mut out = [0u8; 32];
    hasher.finalize(&mut out);
    B256::new(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// Each hashed node once, in the order ascending reads first ask for them: the host's
    /// order, so lookups take the store's cursor path.
    Host,
    /// The host's order with tampered copies just before real nodes, duplicates just after,
    /// and the embedded nodes as extra items.
    HostNoisy,
    /// Everything, copies and forgeries too, shuffled.
    Shuffled,
    /// The host's order reversed, with duplicates.
    Reversed,
}

const ORDERS: [Order; 4] = [
    Order::Host,
    Order::HostNoisy,
    Order::Shuffled,
    Order::Reversed,
];

struct Witness {
    root: B256,
    /// The store's items, in order.
    items: Vec<Vec<u8>>,
    /// The real nodes the items hold (by hash), each once.
    nodes: BTreeMap<B256, Vec<u8>>,
    /// Real nodes left out (a thin witness): a lookup may fail naming one of these only.
    dropped: HashSet<B256>,
    /// Tampered copies among the items, by the hash of the node they copy.
    forged: Vec<(B256, Vec<u8>)>,
    order: Order,
}

/// A copy of `node` with one change that mostly keeps it a well-formed node (a byte of a child
/// hash, a path or a value), sometimes one byte more or less.
fn tamper(rng: &mut SmallRng, node: &[u8]) -> Vec<u8> {
    let mut copy = node.to_vec();
    match rng.random_range(0..8) {
        0 => copy.push(rng.random()),
        1 if copy.len() > 1 => {
            copy.pop();
        }
        _ => {
            let at = rng.random_range(0..copy.len());
            copy[at] ^= rng.random_range(1..=255u8);
        }
    }
    copy
}

/// `model`'s witness, made by alloy-trie's proof retainer (every node on every key's path, so
/// nothing of our encoder), ordered and salted as `order` says; `thin` leaves some out.
fn witness(
    rng: &mut SmallRng,
    model: &Model,
    order: Order,
    thin: bool,
    coverage: &mut Coverage,
) -> Result<Witness, String> {
    let targets: Vec<Nibbles> = model.keys().map(|k| Nibbles::unpack(k)).collect();
    let mut builder = HashBuilder::default().with_proof_retainer(ProofRetainer::new(targets));
    for (key, value) in model {
        builder.add_leaf(Nibbles::unpack(key), value);
    }
    let root = builder.root();
    let mut retained: Vec<(Vec<u8>, Vec<u8>)> = builder
        .take_proof_nodes()
        .into_inner()
        .into_iter()
        .map(|(path, node)| (path.to_vec(), node.to_vec()))
        .collect();
    // Path order with prefixes first: a depth-first walk, as reads of ascending keys reach them.
    retained.sort();
    if model.is_empty() {
        retained.clear();
    } else {
        let (_, root_node) = retained.first().ok_or("alloy retained no root node")?;
        if tiny_keccak(root_node) != root {
            return Err(format!(
                "alloy's root node does not hash to its root {root}"
            ));
        }
    }
    if root != reference_root(model) {
        return Err("alloy's retaining builder and the plain one disagree".into());
    }

    let mut seen = HashSet::new();
    let mut hashed = Vec::new();
    let mut inline = Vec::new();
    for (index, (_, node)) in retained.iter().enumerate() {
        if node.len() < 32 && index > 0 {
            coverage.inline_nodes += 1;
            inline.push(node.clone());
        } else if seen.insert(node.clone()) {
            hashed.push(node.clone());
        } else {
            coverage.twin_nodes += 1;
        }
    }
    coverage.long_values += model.values().filter(|v| v.len() > 500).count();

    let mut dropped = HashSet::new();
    if thin && hashed.len() > 1 {
        // Never the root: a trie opens on it.
        hashed = hashed
            .into_iter()
            .enumerate()
            .filter(|(index, node)| {
                let keep = *index == 0 || rng.random_bool(0.85);
                if !keep {
                    dropped.insert(tiny_keccak(node));
                }
                keep
            })
            .map(|(_, node)| node)
            .collect();
    }
    let nodes: BTreeMap<B256, Vec<u8>> =
        hashed.iter().map(|n| (tiny_keccak(n), n.clone())).collect();

    let mut forged = Vec::new();
    let forge = |rng: &mut SmallRng, node: &[u8], forged: &mut Vec<(B256, Vec<u8>)>| {
        let copy = tamper(rng, node);
        forged.push((tiny_keccak(node), copy.clone()));
        copy
    };
    let items = match order {
        Order::Host => hashed.clone(),
        Order::HostNoisy | Order::Reversed => {
            let mut items = Vec::new();
            for node in &hashed {
                if order == Order::HostNoisy && rng.random_bool(0.3) {
                    items.push(forge(rng, node, &mut forged));
                }
                items.push(node.clone());
                if rng.random_bool(0.15) {
                    items.push(node.clone());
                    coverage.duplicates += 1;
                }
            }
            if order == Order::HostNoisy {
                for node in inline {
                    let at = rng.random_range(0..=items.len());
                    items.insert(at, node);
                }
            } else {
                items.reverse();
            }
            items
        }
        Order::Shuffled => {
            let mut items = hashed.clone();
            items.extend(inline);
            for node in &hashed {
                if rng.random_bool(0.2) {
                    items.push(node.clone());
                    coverage.duplicates += 1;
                }
                if rng.random_bool(0.3) {
                    items.push(forge(rng, node, &mut forged));
                }
            }
            items.shuffle(rng);
            items
        }
    };
    // Forgeries of dropped nodes too: with the real one absent, a copy must not stand in.
    let mut items = items;
    if !dropped.is_empty() {
        for (_, node) in retained
            .iter()
            .filter(|(_, n)| dropped.contains(&tiny_keccak(n)))
        {
            if rng.random_bool(0.5) {
                let at = rng.random_range(0..=items.len());
                let copy = forge(rng, node, &mut forged);
                items.insert(at, copy);
            }
        }
    }
    coverage.tampered += forged.len();
    Ok(Witness {
        root,
        items,
        nodes,
        dropped,
        forged,
        order,
    })
}

/// Asks a fresh store of `witness`'s items for every hash it may be asked for, mostly in item
/// order (the cursor's path, with a forgery often just before the real node), some out of
/// order, repeated, forged or absent: every answer must be the preimage or nothing.
fn check_store(
    rng: &mut SmallRng,
    witness: &Witness,
    coverage: &mut Coverage,
) -> Result<(), String> {
    let store = WitnessStore::new(witness.items.iter().cloned());
    let forged: HashSet<&[u8]> = witness.forged.iter().map(|(_, f)| &f[..]).collect();
    let mut asks: Vec<B256> = Vec::new();
    for item in &witness.items {
        let hash = tiny_keccak(item);
        if forged.contains(&item[..]) {
            // The forgery's own hash is sometimes asked (it is its own preimage), mostly not.
            if rng.random_bool(0.2) {
                asks.push(hash);
            }
            continue;
        }
        asks.push(hash);
        if rng.random_bool(0.1) {
            asks.push(*asks.choose(rng).unwrap());
        }
    }
    asks.extend(witness.dropped.iter().copied());
    asks.push(B256::from(rng.random::<[u8; 32]>()));
    if rng.random_bool(0.3) {
        asks.shuffle(rng);
    }
    // A forgery just before its real node in the items: a cursor claiming without comparing
    // would hand it out here.
    coverage.cursor_traps += witness
        .items
        .windows(2)
        .filter(|w| forged.contains(&w[0][..]) && tiny_keccak(&w[0]) != tiny_keccak(&w[1]))
        .filter(|w| {
            witness
                .forged
                .iter()
                .any(|(h, f)| *f == w[0] && *h == tiny_keccak(&w[1]))
        })
        .count();
    for hash in asks {
        coverage.store_lookups += 1;
        let got = store.get(&hash);
        let expected = witness.nodes.get(&hash).map(|n| &n[..]).or_else(|| {
            witness
                .items
                .iter()
                .find(|i| tiny_keccak(i) == hash)
                .map(|i| &i[..])
        });
        if got != expected {
            return Err(format!(
                "store ({:?} order, {} items): get({hash}) gave {:02x?}, expected {:02x?}",
                witness.order,
                witness.items.len(),
                got.map(|g| &g[..g.len().min(48)]),
                expected.map(|e| &e[..e.len().min(48)]),
            ));
        }
        if let Some(bytes) = got {
            if tiny_keccak(bytes) != hash {
                return Err(format!(
                    "store: get({hash}) gave a node that does not hash to it"
                ));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Change sequences.

/// Why a step stopped: a check failed, or a lookup legitimately named a dropped node.
enum Stop {
    Fail(String),
    Missing,
}

impl From<String> for Stop {
    fn from(message: String) -> Self {
        Stop::Fail(message)
    }
}

/// One trie opened over a witness, with its model, checked step by step.
struct Run<'w, 's> {
    trie: Trie<'s>,
    model: Model,
    witness: &'w Witness,
    keys: &'w KeySpace,
    /// What the case is doing, for failure messages.
    context: String,
}

impl Run<'_, '_> {
    /// The trie's result, or a failure; a missing node is accepted only when the witness left
    /// it out.
    fn ok<T>(&self, what: &str, result: Result<T, TrieError>) -> Result<T, Stop> {
        match result {
            Ok(value) => Ok(value),
            Err(TrieError::MissingNode { hash, .. }) if self.witness.dropped.contains(&hash) => {
                Err(Stop::Missing)
            }
            Err(e) => Err(Stop::Fail(format!(
                "{}: {what}: unexpected error: {e}",
                self.context
            ))),
        }
    }

    fn check_root(&mut self, what: &str, coverage: &mut Coverage) -> Result<B256, Stop> {
        coverage.roots_compared += 1;
        let expected = reference_root(&self.model);
        let got = self.trie.root();
        if got != expected {
            return Err(Stop::Fail(format!(
                "{}: after {what}: root {got}, alloy-trie's {expected} ({} keys)",
                self.context,
                self.model.len()
            )));
        }
        Ok(got)
    }

    fn get(&mut self, key: &[u8]) -> Result<(), Stop> {
        let got = self.trie.get(key).map(|v| v.map(<[u8]>::to_vec));
        let got = self.ok(&format!("get {}", hex(key)), got)?;
        let expected = self.model.get(key);
        if got.as_ref() != expected {
            return Err(Stop::Fail(format!(
                "{}: get {} gave {:02x?}, expected {:02x?}",
                self.context,
                hex(key),
                got,
                expected
            )));
        }
        Ok(())
    }

    fn insert(&mut self, key: &[u8], value: Vec<u8>) -> Result<(), Stop> {
        let result = self.trie.insert(key, value.clone());
        self.ok(&format!("insert {}", hex(key)), result)?;
        self.model.insert(key.to_vec(), value);
        Ok(())
    }

    fn delete(&mut self, key: &[u8]) -> Result<(), Stop> {
        // An empty value deletes too: both spellings.
        let (present, what) = if self.model.contains_key(key) {
            (true, "delete")
        } else {
            (false, "absent delete")
        };
        let removed = if rand_bit(key) {
            let result = self.trie.delete(key);
            self.ok(&format!("{what} {}", hex(key)), result)?
        } else {
            let result = self.trie.insert(key, Vec::new());
            self.ok(&format!("{what} (empty insert) {}", hex(key)), result)?;
            present
        };
        if removed != present {
            return Err(Stop::Fail(format!(
                "{}: {what} {} returned {removed}",
                self.context,
                hex(key)
            )));
        }
        self.model.remove(key);
        Ok(())
    }

    /// One random step; `checked` says whether roots are compared after it (else they pile
    /// up until the next checked step).
    fn step(
        &mut self,
        rng: &mut SmallRng,
        checked: bool,
        coverage: &mut Coverage,
    ) -> Result<(), Stop> {
        coverage.steps += 1;
        let existing = pick_key(rng, &self.model);
        let what = match (rng.random_range(0..20), existing) {
            (0..=4, _) | (_, None) => {
                let Some(key) = self.keys.fresh_key(rng, &self.model) else {
                    return Ok(());
                };
                if insert_splits(&self.model, &key) {
                    coverage.splits += 1;
                }
                let value = random_value(rng);
                self.insert(&key, value)?;
                "insert"
            }
            (5..=6, Some(key)) => {
                let value = random_value(rng);
                self.insert(&key, value)?;
                "update"
            }
            (7, Some(key)) => {
                let before = self.trie.root();
                let value = self.model[&key].clone();
                self.insert(&key, value)?;
                coverage.same_value += 1;
                if self.trie.root() != before {
                    return Err(Stop::Fail(format!(
                        "{}: writing {}'s own value changed the root",
                        self.context,
                        hex(&key)
                    )));
                }
                "same-value update"
            }
            (8..=9, Some(key)) => {
                let before = self.trie.root();
                let old = self.model[&key].clone();
                let mut new = random_value(rng);
                if new == old {
                    new.push(0);
                }
                self.insert(&key, new)?;
                if checked {
                    self.check_root("a change (to revert)", coverage)?;
                }
                self.insert(&key, old)?;
                coverage.reverts += 1;
                if checked && self.trie.root() != before {
                    return Err(Stop::Fail(format!(
                        "{}: a change reverted did not restore the root",
                        self.context
                    )));
                }
                "change then revert"
            }
            (10..=11, Some(key)) => {
                let before = self.trie.root();
                let value = self.model[&key].clone();
                if delete_collapses(&self.model, &key) {
                    coverage.collapses += 1;
                }
                self.delete(&key)?;
                if checked {
                    self.check_root("a delete (to reinsert)", coverage)?;
                }
                self.insert(&key, value)?;
                coverage.reinserts += 1;
                if checked && self.trie.root() != before {
                    return Err(Stop::Fail(format!(
                        "{}: a delete reinserted did not restore the root",
                        self.context
                    )));
                }
                "delete then reinsert"
            }
            (12..=15, Some(key)) => {
                if delete_collapses(&self.model, &key) {
                    coverage.collapses += 1;
                }
                if self.model.len() == 1 {
                    coverage.emptied += 1;
                }
                self.delete(&key)?;
                "delete"
            }
            (16, Some(key)) => {
                let absent = near_key(rng, &key);
                if self.model.contains_key(&absent) {
                    return Ok(());
                }
                let before = self.trie.root();
                self.delete(&absent)?;
                coverage.absent_deletes += 1;
                if self.trie.root() != before {
                    return Err(Stop::Fail(format!(
                        "{}: deleting absent {} changed the root",
                        self.context,
                        hex(&absent)
                    )));
                }
                "absent delete"
            }
            (17, Some(key)) => {
                let other = near_key(rng, &key);
                self.get(&key)?;
                self.get(&other)?;
                "get"
            }
            (_, Some(_)) => {
                // One twin of a pair changed (or both, to the same value: twins again).
                let Some((a, b)) = self.keys.twins.choose(rng).cloned() else {
                    return Ok(());
                };
                let value = random_value(rng);
                if self.model.contains_key(&a) {
                    self.insert(&a, value.clone())?;
                    coverage.twin_edits += 1;
                }
                if rng.random_bool(0.5) && self.model.contains_key(&b) {
                    self.insert(&b, value)?;
                }
                "twin edit"
            }
        };
        if checked {
            self.check_root(what, coverage)?;
        }
        Ok(())
    }
}

/// A bit of `key` to pick between the two spellings of a delete, repeatably.
fn rand_bit(key: &[u8]) -> bool {
    key.iter().fold(0u8, |a, b| a ^ b) & 1 == 0
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `model` with a few changes: a second state sharing most of its nodes with the first.
fn drift(rng: &mut SmallRng, keys: &KeySpace, model: &Model) -> Model {
    let mut other = model.clone();
    for _ in 0..rng.random_range(1..=8) {
        match (rng.random_range(0..3), pick_key(rng, &other)) {
            (0, Some(key)) => {
                other.remove(&key);
            }
            (1, Some(key)) => {
                other.insert(key, random_value(rng));
            }
            _ => {
                if let Some(key) = keys.fresh_key(rng, &other) {
                    other.insert(key, random_value(rng));
                }
            }
        }
    }
    other
}

/// One store for two tries (as the account trie and the storage tries share one, or a state
/// and a nearby one): `a`'s items then `b`'s (in the host's order each node once), or all of
/// them shuffled. A node one witness dropped and the other holds is not missing.
fn merge(rng: &mut SmallRng, mut a: Witness, b: Witness) -> Witness {
    match a.order {
        Order::Host => {
            let seen: HashSet<Vec<u8>> = a.items.iter().cloned().collect();
            a.items
                .extend(b.items.into_iter().filter(|item| !seen.contains(item)));
        }
        Order::Shuffled => {
            a.items.extend(b.items);
            a.items.shuffle(rng);
        }
        Order::HostNoisy | Order::Reversed => a.items.extend(b.items),
    }
    a.nodes.extend(b.nodes);
    a.dropped.extend(b.dropped);
    let nodes = &a.nodes;
    a.dropped.retain(|hash| !nodes.contains_key(hash));
    a.forged.extend(b.forged);
    a
}

/// One case: a random model, then up to three phases, each opening the trie at the model's
/// root over a new witness of it and running a change sequence; in some phases a second trie,
/// at a nearby state, shares the store and takes every other step or so.
fn trie_case(rng: &mut SmallRng, coverage: &mut Coverage) -> Result<(), String> {
    let mut keys = KeySpace::new(rng);
    let mut model = keys.model(rng);
    let phases = rng.random_range(1..=3);
    for phase in 0..phases {
        let order = *ORDERS.choose(rng).unwrap();
        let thin = rng.random_bool(0.15);
        let mut models = vec![model.clone()];
        if rng.random_bool(0.25) {
            models.push(drift(rng, &keys, &model));
            coverage.shared_stores += 1;
        }
        let mut roots = Vec::new();
        let mut merged: Option<Witness> = None;
        for model in &models {
            let witness = witness(rng, model, order, thin, coverage)?;
            roots.push(witness.root);
            merged = Some(match merged {
                None => witness,
                Some(first) => merge(rng, first, witness),
            });
        }
        let witness = merged.expect("one model at least");
        if phase > 0 {
            coverage.reopened += 1;
        }
        let store = WitnessStore::new(witness.items.iter().cloned());
        let mut runs = Vec::new();
        for (index, (model, root)) in models.into_iter().zip(roots).enumerate() {
            let context = format!(
                "phase {phase}, trie {index}, key length {}, {:?} order{}, {} items, {} keys at \
                 open",
                keys.key_len,
                order,
                if thin { " (thin)" } else { "" },
                witness.items.len(),
                model.len()
            );
            let trie =
                Trie::open(&store, root).map_err(|e| format!("{context}: open at {root}: {e}"))?;
            runs.push(Run {
                trie,
                model,
                witness: &witness,
                keys: &keys,
                context,
            });
        }
        let result = (|| {
            if order != Order::Shuffled && rng.random_bool(0.5) {
                // Reads in key order: the lookups walk the items in the host's order.
                for run in &mut runs {
                    for key in run.model.keys().cloned().collect::<Vec<_>>() {
                        run.get(&key)?;
                    }
                }
            }
            let batched = rng.random_bool(0.3);
            let steps = rng.random_range(8..=36);
            for step in 0..steps {
                let checked = !batched || step % 4 == 3;
                let at = rng.random_range(0..runs.len());
                let run = &mut runs[at];
                run.context = format!(
                    "{} (step {step})",
                    run.context.split(" (step").next().unwrap()
                );
                run.step(rng, checked, coverage)?;
            }
            for run in &mut runs {
                run.check_root("the last step", coverage)?;
                for key in run.model.keys().cloned().collect::<Vec<_>>() {
                    run.get(&key)?;
                }
            }
            let run = &mut runs[0];
            if rng.random_bool(0.2) {
                // Everything deleted: the empty root.
                for key in run.model.keys().cloned().collect::<Vec<_>>() {
                    run.delete(&key)?;
                }
                run.check_root("deleting every key", coverage)?;
                if run.trie.root() != EMPTY_ROOT_HASH {
                    return Err(Stop::Fail(format!(
                        "{}: emptied, not the empty root",
                        run.context
                    )));
                }
            }
            Ok(())
        })();
        // A dropped node named is a right answer: the trie's state after a failed write is not
        // specified, so the next phase starts from the model as it was before that write.
        let missing = match result {
            Ok(()) => false,
            Err(Stop::Missing) => true,
            Err(Stop::Fail(message)) => return Err(message),
        };
        coverage.missing_named += usize::from(missing);
        model = runs.swap_remove(0).model;
        drop(runs);
        // The store asked directly, after the tries went through it: a wrong answer that the
        // tries' checks let pass is still caught here.
        check_store(rng, &witness, coverage)?;
    }
    Ok(())
}

#[test]
fn trie_roots_match_alloy_trie_over_hostile_witnesses() {
    let Some(coverage) = run_cases("trie", 600, trie_case) else {
        return;
    };
    // Each shape the generators aim at was produced, each kind of step taken.
    let c = coverage;
    for (what, count) in [
        ("splits", c.splits),
        ("collapses", c.collapses),
        ("tries emptied", c.emptied),
        ("same-value updates", c.same_value),
        ("reverts", c.reverts),
        ("reinserts", c.reinserts),
        ("absent deletes", c.absent_deletes),
        ("twin edits", c.twin_edits),
        ("embedded nodes", c.inline_nodes),
        ("twin nodes", c.twin_nodes),
        ("long values", c.long_values),
        ("tampered items", c.tampered),
        ("duplicate items", c.duplicates),
        ("dropped nodes named", c.missing_named),
        ("reopened tries", c.reopened),
        ("stores shared by two tries", c.shared_stores),
        ("cursor traps", c.cursor_traps),
    ] {
        assert!(count > 0, "no {what} in {} cases: {c:?}", c.cases);
    }
}

// ---------------------------------------------------------------------------------------------
// The memo of short hashes.

/// Inputs built to share a memo slot with `base`: the slot is drawn from the input's length,
/// its last four bytes and its bytes 28..32 (`keccak::memo`), so a twin of the same length
/// differing anywhere else lands in the same slot and only a full comparison tells them apart.
fn same_slot_twins(rng: &mut SmallRng, base: &[u8]) -> Vec<Vec<u8>> {
    let len = base.len();
    let free: Vec<usize> = (0..len.saturating_sub(4))
        .filter(|at| !(28..32).contains(at))
        .collect();
    let mut twins = Vec::new();
    for _ in 0..3 {
        let Some(&at) = free.choose(rng) else { break };
        let mut twin = base.to_vec();
        twin[at] ^= 1 << rng.random_range(0..8);
        twins.push(twin);
    }
    // The last free byte: a comparison of all but a few bytes misses only this one.
    if let Some(&last) = free.last() {
        let mut twin = base.to_vec();
        twin[last] ^= 0x80;
        twins.push(twin);
    }
    twins
}

fn memo_case(rng: &mut SmallRng, coverage: &mut Coverage) -> Result<(), String> {
    // Families: a base input and its near twins (same slot, one byte or one length apart).
    let mut families: Vec<Vec<Vec<u8>>> = Vec::new();
    for _ in 0..24 {
        let base: Vec<u8> = match rng.random_range(0..4) {
            // A mapping slot's preimage: a left-padded address, then a small slot number.
            0 => {
                let mut input = vec![0u8; 12];
                input.extend(rng.random::<[u8; 20]>());
                let mut slot = [0u8; 32];
                slot[31] = rng.random_range(0..8);
                input.extend(slot);
                input
            }
            1 => {
                let len = *[0usize, 1, 4, 20, 31, 32, 33, 36, 40, 52, 63, 64]
                    .choose(rng)
                    .unwrap();
                (0..len).map(|_| rng.random()).collect()
            }
            2 => {
                let len = rng.random_range(0..=MAX_INPUT);
                (0..len).map(|_| rng.random()).collect()
            }
            _ => {
                let len = rng.random_range(MAX_INPUT + 1..=MAX_INPUT + 40);
                (0..len).map(|_| rng.random()).collect()
            }
        };
        let mut family = vec![base.clone()];
        family.extend(same_slot_twins(rng, &base));
        if let Some((_, shorter)) = base.split_last() {
            family.push(shorter.to_vec());
            let mut last = base.clone();
            *last.last_mut().unwrap() ^= 1;
            family.push(last);
        }
        let mut longer = base.clone();
        longer.push(rng.random());
        family.push(longer);
        families.push(family);
    }
    let mut memo = Memo::new();
    let mut previous: Option<Vec<u8>> = None;
    for _ in 0..1500 {
        // Mostly a few recent families, members back to back, as a contract's hashes come.
        let family = if rng.random_range(0..4) == 0 {
            families.choose(rng).unwrap()
        } else {
            &families[rng.random_range(0..3)]
        };
        let input = family.choose(rng).unwrap().clone();
        let expected = tiny_keccak(&input);
        let mut computed = false;
        let got = memo.hash(&input, |i| {
            computed = true;
            mpt::keccak256(i)
        });
        if !computed {
            coverage.memo_hits += 1;
        }
        if let Some(previous) = &previous {
            let twin = previous.len() == input.len()
                && *previous != input
                && previous.len() >= 8
                && previous[previous.len() - 4..] == input[input.len() - 4..];
            if twin && input.len() <= MAX_INPUT {
                coverage.memo_twins += 1;
            }
        }
        if got != expected || got != alloy_keccak(&input) {
            return Err(format!(
                "memo: {} bytes {} gave {got}, tiny-keccak {expected}{}",
                input.len(),
                hex(&input),
                match &previous {
                    Some(p) => format!(", just after {}", hex(p)),
                    None => String::new(),
                }
            ));
        }
        previous = Some(input);
    }
    Ok(())
}

#[test]
fn memo_answers_each_input_with_its_own_hash() {
    let Some(c) = run_cases("memo", 64, memo_case) else {
        return;
    };
    assert!(c.memo_hits > 0, "the memo never answered: {c:?}");
    assert!(
        c.memo_twins > 0,
        "no same-slot twin looked up after its twin: {c:?}"
    );
}
