//! One blockchain test, run statelessly block by block.
//!
//! The runner holds every state the chain has had as one set of trie nodes and codes, both
//! addressed by hash, and every valid header by hash. For each block it gives the validator the
//! whole set as the witness (every node and code, and the up to 256 ancestors its
//! `parent_hash` leads back to), validates with [`program::validate_block_over`], and, when the
//! block is valid, adds the post-state's new nodes, the deployed codes and the header. Nodes are
//! only ever added: a subtree a block did not touch is still referenced by hash and still in
//! the set, and the validator reaches only what lies under its parent's state root, so blocks
//! on side chains run as well as on the main one. A rejected block is not added; the head is
//! the last valid block imported, as a client that follows the fixture's order has it. A block
//! whose parent the chain does not have is rejected by the runner, as a client's import does
//! (rule `chain.unknown_parent`): no witness exists for it.

use std::collections::HashMap;

use alloy_primitives::{Bytes, B256};
use alloy_rlp::Decodable;
use program::{BlockOutput, ChainConfig, ExecutionWitness, ValidationError, Verdict};
use serde::Serialize;

use super::exception;
use super::fixtures::CaseJson;
use chaindata::fixtures::full_state_witness;

/// What one block of a case gave.
#[derive(Debug, Clone, Serialize)]
pub struct BlockResult {
    /// Its index in the case's `blocks`.
    pub index: usize,
    /// The exception the fixture expects (`None`: valid).
    pub expect_exception: Option<String>,
    /// Our verdict.
    pub verdict: &'static str,
    /// Our error, when not valid.
    pub error: Option<String>,
    /// Our rule, when not valid ([`exception::rule`]).
    pub rule: Option<&'static str>,
    /// Whether our rule is the one the fixture's exception names (`None`: no clear mapping).
    pub exception_match: Option<bool>,
    /// The standard guest's result on the block's standard input (EIP-8025), natively:
    /// `Some(valid)`, or `None` where the block has no such input (a fork without a schema, a
    /// witness item over the format's limits, an unknown parent).
    pub standard: Option<bool>,
}

/// How a case ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "lowercase")]
pub enum Outcome {
    /// Every block got the fixture's verdict and the head is `lastblockhash`.
    Passed,
    /// Why not.
    Failed(String),
    /// Not run (a pre-merge network), and why.
    Skipped(String),
}

/// A run case.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    /// The fixture file.
    pub file: String,
    /// The case's name (its key in the file).
    pub name: String,
    /// Its `network`.
    pub network: String,
    /// How it ended.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Per block, in order, up to the first failure.
    pub blocks: Vec<BlockResult>,
}

/// One block as the runner validated it: what the guest would be given, and the native result.
pub struct Validated<'a> {
    /// The block's RLP.
    pub block: &'a [u8],
    /// The witness it was validated against.
    pub witness: &'a ExecutionWitness,
    /// The chain config.
    pub chain: &'a ChainConfig,
    /// The native result.
    pub result: &'a Result<BlockOutput, ValidationError>,
    /// What the standard guest is given for it.
    pub standard: StandardInputs<'a>,
}

/// A block's inputs to the standard guest (EIP-8025), for the observer.
#[derive(Debug, Clone, Copy, Default)]
pub struct StandardInputs<'a> {
    /// The block's own standard input bytes (`None`: its fork's shape cannot carry it).
    pub ours: Option<&'a [u8]>,
    /// The fixture's `statelessInputBytes` and `statelessOutputBytes`, decoded.
    pub fixture: Option<(&'a [u8], &'a [u8])>,
}

/// Sees each block a case validates (the VM sample re-runs them in the guest).
pub type Observer<'o> = &'o mut dyn FnMut(Validated<'_>);

/// Every state and header the chain has had.
struct World {
    nodes: HashMap<B256, Bytes>,
    codes: HashMap<B256, Bytes>,
    /// Valid headers by hash: (header RLP, its parent's hash).
    headers: HashMap<B256, (Bytes, B256)>,
    /// The last valid block imported.
    head: B256,
}

impl World {
    /// The witness of a block whose parent is `parent`: every node and code, and the ancestors
    /// from `parent` back (at most 256, oldest first; none when `parent` is unknown).
    fn witness(&self, parent: B256) -> ExecutionWitness {
        let mut headers = Vec::new();
        let mut at = parent;
        while let Some((rlp, up)) = self.headers.get(&at) {
            if headers.len() == program::header::MAX_ANCESTORS {
                break;
            }
            headers.push(rlp.clone());
            at = *up;
        }
        headers.reverse();
        ExecutionWitness {
            state: self.nodes.values().cloned().collect(),
            codes: self.codes.values().cloned().collect(),
            headers,
        }
    }

    /// Adds a valid header (its RLP and its parent's hash) as the new head.
    fn add_header(&mut self, rlp: Bytes, parent: B256) {
        let hash = mpt::keccak256(&rlp);
        self.headers.insert(hash, (rlp, parent));
        self.head = hash;
    }

    fn add_codes(&mut self, codes: impl IntoIterator<Item = Bytes>) {
        for code in codes {
            self.codes.insert(mpt::keccak256(&code), code);
        }
    }
}

/// The header RLP of a block RLP.
fn header_rlp(block: &[u8]) -> Result<Bytes, alloy_rlp::Error> {
    let range = chaindata::blocks::first_item(block)?;
    Ok(Bytes::copy_from_slice(&block[range]))
}

/// The parent hash of a block RLP; `None` when its header does not decode (the validator then
/// names the error).
fn parent_of(block: &[u8]) -> Option<B256> {
    let header = header_rlp(block).ok()?;
    alloy_consensus::Header::decode(&mut header.as_ref())
        .ok()
        .map(|h| h.parent_hash)
}

/// A block's `rlp` field as bytes; `None` when it is not hex (a case about undecodable blocks).
fn block_bytes(value: &serde_json::Value) -> Option<Bytes> {
    value.as_str().and_then(|s| s.parse().ok())
}

/// Runs one case under `chain`.
pub(crate) fn run_case(
    case: &CaseJson,
    chain: &ChainConfig,
    observe: Observer<'_>,
) -> (Outcome, Vec<BlockResult>) {
    let mut results = Vec::new();
    let fail = |reason: String, results| (Outcome::Failed(reason), results);
    let genesis = match header_rlp(&case.genesis_rlp) {
        Ok(h) => h,
        Err(e) => return fail(format!("genesis RLP is malformed: {e}"), results),
    };
    let (root, witness) = match full_state_witness(&case.pre, Vec::new()) {
        Ok(built) => built,
        Err(e) => return fail(format!("building the pre-state: {e}"), results),
    };
    let genesis_header = match alloy_consensus::Header::decode(&mut genesis.as_ref()) {
        Ok(header) => header,
        Err(e) => return fail(format!("genesis header is malformed: {e}"), results),
    };
    if genesis_header.state_root != root {
        return fail(
            format!(
                "pre-state root {root} is not the genesis state root {}",
                genesis_header.state_root
            ),
            results,
        );
    }
    let mut world = World {
        nodes: witness
            .state
            .into_iter()
            .map(|n| (mpt::keccak256(&n), n))
            .collect(),
        codes: HashMap::new(),
        headers: HashMap::new(),
        head: B256::ZERO,
    };
    world.add_codes(witness.codes);
    world.add_header(genesis, genesis_header.parent_hash);

    for (index, block) in case.blocks.iter().enumerate() {
        let expect = block.expect_exception.clone();
        let fixture = match super::standard::fixture_bytes(
            block.stateless_input_bytes.as_deref(),
            block.stateless_output_bytes.as_deref(),
        ) {
            Ok(fixture) => fixture,
            Err(why) => return fail(format!("block {index}: {why}"), results),
        };
        // A block whose parent the chain does not have is rejected by the chain itself, as a
        // client's import rejects it: no witness can be made for it, so the stateless
        // validator is not asked (it could only say "insufficient").
        if let Some(parent) = block_bytes(&block.rlp)
            .and_then(|rlp| parent_of(&rlp))
            .filter(|parent| !world.headers.contains_key(parent))
        {
            results.push(BlockResult {
                index,
                verdict: Verdict::Invalid.name(),
                error: Some(format!(
                    "unknown parent {parent}: the chain has no such block"
                )),
                rule: Some("chain.unknown_parent"),
                exception_match: expect.as_ref().map(|e| e.contains("UNKNOWN_PARENT")),
                expect_exception: expect.clone(),
                standard: None,
            });
            match expect {
                Some(_) => continue,
                None => {
                    return fail(
                        format!("block {index}: expected valid, its parent {parent} is unknown"),
                        results,
                    )
                }
            }
        }
        // A list that does not parse is none: the standard input of a block that is not valid
        // then has no list to carry, and is not made.
        let list: Option<Vec<alloy_eips::eip7928::AccountChanges>> = block
            .block_access_list
            .as_ref()
            .or_else(|| block.rlp_decoded.as_ref()?.get("blockAccessList"))
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        let (verdict, standard) = match block_bytes(&block.rlp) {
            Some(rlp) => apply_block(
                &mut world,
                &rlp,
                chain,
                fixture.as_ref(),
                list.as_deref(),
                observe,
            ),
            None => (
                Err(ValidationError::BlockRlp(alloy_rlp::Error::Custom(
                    "the block's rlp is not hex",
                ))),
                None,
            ),
        };
        if let Some(standard) = standard.filter(|s| *s != verdict.is_ok()) {
            return fail(
                format!(
                    "block {index}: the standard guest says {}, the block guest {}",
                    if standard { "valid" } else { "not valid" },
                    verdict.as_ref().map_or_else(
                        |e| format!("{}: {e}", e.verdict().name()),
                        |_| "valid".into()
                    )
                ),
                results,
            );
        }
        let result = BlockResult {
            index,
            verdict: Verdict::of(&verdict).name(),
            error: verdict.as_ref().err().map(ToString::to_string),
            rule: verdict.as_ref().err().map(exception::rule),
            exception_match: match (&expect, &verdict) {
                (Some(expected), Err(e)) => exception::matches(expected, e),
                _ => None,
            },
            expect_exception: expect.clone(),
            standard,
        };
        results.push(result);
        match (expect, verdict) {
            (None, Ok(())) => {}
            (Some(_), Err(e)) if e.verdict() == Verdict::Invalid => {}
            (Some(expected), Err(e)) => {
                return fail(
                    format!(
                        "block {index}: expected {expected} (invalid), got {}: {e}",
                        e.verdict().name()
                    ),
                    results,
                )
            }
            (Some(expected), Ok(())) => {
                return fail(
                    format!("block {index}: expected {expected}, got valid"),
                    results,
                )
            }
            (None, Err(e)) => {
                return fail(
                    format!(
                        "block {index}: expected valid, got {}: {e}",
                        e.verdict().name()
                    ),
                    results,
                )
            }
        }
    }
    let head = world.head;
    if head != case.lastblockhash {
        return fail(
            format!(
                "head is {head}, the fixture's last block hash is {}",
                case.lastblockhash
            ),
            results,
        );
    }
    (Outcome::Passed, results)
}

/// Validates `rlp` on top of its parent; a valid block becomes the head. Also says what the
/// standard guest makes of it ([`standard`]).
fn apply_block(
    world: &mut World,
    rlp: &[u8],
    chain: &ChainConfig,
    fixture: Option<&super::standard::FixtureBytes>,
    list: Option<&[alloy_eips::eip7928::AccountChanges]>,
    observe: Observer<'_>,
) -> (Result<(), ValidationError>, Option<bool>) {
    let header = match header_rlp(rlp) {
        Ok(header) => header,
        Err(e) => return (Err(ValidationError::BlockRlp(e)), None),
    };
    let parent = match alloy_consensus::Header::decode(&mut header.as_ref()) {
        Ok(h) => h.parent_hash,
        Err(e) => return (Err(ValidationError::BlockRlp(e)), None),
    };
    let witness = world.witness(parent);
    let store = witness.store();
    let result = program::validate_block_over(rlp, &witness.headers, &store, chain);
    let standard = super::standard::agrees(rlp, &witness, chain, &result, list);
    let inputs = StandardInputs {
        ours: standard.as_ref().map(|s| s.bytes.as_slice()),
        fixture: fixture.map(|(i, o)| (i.as_slice(), o.as_slice())),
    };
    (
        apply_valid(
            world, rlp, header, parent, &witness, chain, inputs, observe, result,
        ),
        standard.map(|s| s.valid),
    )
}

#[allow(clippy::too_many_arguments)]
fn apply_valid(
    world: &mut World,
    rlp: &[u8],
    header: Bytes,
    parent: B256,
    witness: &ExecutionWitness,
    chain: &ChainConfig,
    standard: StandardInputs<'_>,
    observe: Observer<'_>,
    result: Result<program::ValidBlock<'_>, ValidationError>,
) -> Result<(), ValidationError> {
    observe(Validated {
        block: rlp,
        witness,
        chain,
        result: &result.as_ref().map(|v| v.output).map_err(Clone::clone),
        standard,
    });
    let mut valid = result?;
    let nodes = valid
        .post_state
        .encoded_nodes()
        .map_err(ValidationError::StateUpdate)?;
    for node in nodes {
        let node = Bytes::from(node);
        world.nodes.insert(mpt::keccak256(&node), node);
    }
    world.add_codes(valid.bundle.contracts.values().map(|c| c.original_bytes()));
    world.add_header(header, parent);
    Ok(())
}
