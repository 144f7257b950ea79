//! A standard input's block validated in the order its input arrives: what needs the headers
//! and the public keys, which come last, is checked at the end, before any verdict.
//!
//! The block validator ([`crate::validate`]) checks, in order: the block's size; the ancestors
//! and the header against its parent; the body's roots; the senders; then it executes over the
//! parent's state root, with BLOCKHASH from the ancestors. Here:
//!
//! 1. **Before the tail.** The size and the body, as there (less the roots the header was
//!    built from, [`crate::body::validate_built_body`]). Nothing is executed under a header
//!    that fails a check of its own that needs no parent
//!    ([`crate::header::plausible_alone`]): the block validator refuses such a header before
//!    executing, and execution must never see one (a gas limit over `i64::MAX`, say). Each signature's key is recovered
//!    ([`recover_keys`]) and its address is the sender. The pre-state root is taken to be the
//!    hash of the witness's first node: in need order, the first lookup is the root, so the
//!    input's first node is it. Execution and every check after it run over that root;
//!    BLOCKHASH, if executed, reads the rest of the input to reach the headers
//!    ([`Ancestors`]).
//! 2. **The tail** ([`Stream::tail`]): every item left is read and kept, then the headers and
//!    the keys. A fault anywhere in the input ends here: the input does not decode, and no
//!    verdict on the block stands.
//! 3. **The deferred checks, in the block validator's order**: the ancestors and the header
//!    against its parent ([`check_parent`]), then the body's result, then the keys against
//!    the recovered ones ([`check_keys`]: the count, each prefix, each key byte for byte).
//! 4. **The root.** If the parent's state root is the hash taken in step 1, step 1's result
//!    stands. If not (an input in another order, or a hostile one), the block is validated
//!    again, by [`validate_checked`], over what is now all in memory: the same verdict as any
//!    order gives, only dearer.
//!
//! Why each deferred check binds what it replaced:
//! - **Keys.** Execution ran with the senders of the recovered keys; step 3 accepts the input
//!   only if each given key is byte for byte its recovered one, so the senders are the given
//!   keys' addresses, exactly those the block validator's [`crate::body::verify_senders`]
//!   would have executed with, and a key it refuses is refused with the same error.
//! - **Pre-state root.** Execution read the state under the root taken in step 1; step 4 lets
//!   that result stand only when it equals the parent's `state_root`, so it is the result of
//!   executing over the parent's state, as before. Otherwise it is discarded unread.
//! - **Parent and header.** Nothing in execution depends on them (the header's own fields are
//!   the block's), so checking them after execution changes no value execution computed; they
//!   come first in step 3 so an input wrong in several places is refused for the same reason.
//! - **BLOCKHASH.** The hashes come from the same headers, chained by [`decode_ancestors`] up to
//!   a parent whose hash is the block's `parent_hash` ([`Ancestors`] answers nothing
//!   otherwise); step 3 checks the same chain again before the verdict.
//! - **Decoding.** Every byte is read in step 2 whatever the outcome, and a fault there
//!   overrides it ([`super::Standard`]'s `UNDECODABLE`), as when the whole input was decoded
//!   first.

use alloc::rc::Rc;
use alloy_consensus::{Block, TxEnvelope};
use alloy_primitives::{map::HashMap, B256};
use mpt::WitnessStore;
use stateless_ssz::Source;

use super::stream::{Stream, Tail};
use super::StandardError;
use crate::body::{check_keys, recover_keys, Recovery};
use crate::chain::ChainConfig;
use crate::db::BlockHashes;
use crate::header::decode_ancestors;
use crate::validate::{
    check_parent, check_size, execute_over, validate_checked, BlockOutput, Signers,
};
use crate::ValidationError;

/// BLOCKHASH before the tail is read: the first call reads it ([`Stream::tail`]) and takes the
/// ancestors' hashes, if they chain up to the block's parent; none otherwise (the verdict then
/// comes from the same checks, in step 3).
pub(crate) struct Ancestors<S> {
    stream: Stream<S>,
    parent_hash: B256,
    hashes: Option<HashMap<u64, B256>>,
}

impl<S> core::fmt::Debug for Ancestors<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ancestors")
            .field("parent_hash", &self.parent_hash)
            .field("hashes", &self.hashes)
            .finish()
    }
}

impl<S: Source + 'static> BlockHashes for Ancestors<S> {
    fn block_hash(&mut self, number: u64) -> Option<B256> {
        let hashes = self.hashes.get_or_insert_with(|| {
            let chained = self.stream.tail().ok().and_then(|tail| {
                let (ancestors, hashes) = decode_ancestors(&tail.headers).ok()?;
                let parent = ancestors.last()?;
                (hashes.get(&parent.number) == Some(&self.parent_hash)).then_some(hashes)
            });
            chained.unwrap_or_default()
        });
        hashes.get(&number).copied()
    }
}

/// Validates `block` (its RLP `rlp_len` bytes long, `chain` checked, no sidecar) over the
/// witness `stream` holds, through `store` (the stream's).
pub(crate) fn validate_streamed<S: Source + 'static>(
    block: &Block<TxEnvelope>,
    rlp_len: usize,
    stream: &Stream<S>,
    store: &WitnessStore,
    chain: &ChainConfig,
) -> Result<BlockOutput, StandardError> {
    let txs = &block.body.transactions;
    let header = &block.header;
    check_size(header, rlp_len, chain).map_err(StandardError::Validation)?;

    // 1. Before the tail.
    let body = crate::body::validate_built_body(block, chain);
    let recovery = match body {
        Ok(()) => recover_keys(txs),
        Err(_) => Recovery::default(),
    };
    // Executed only under a header the block validator would execute under, as far as the
    // header alone tells (the rest waits for the parent, step 3).
    let plausible = crate::header::plausible_alone(header, chain);
    let root = match body {
        Ok(()) if plausible && recovery.is_complete(txs) => store.first_hash(),
        _ => None,
    };
    let executed = root.map(|root| {
        let senders = recovery.senders(txs);
        let ancestors = Ancestors {
            stream: stream.clone(),
            parent_hash: header.parent_hash,
            hashes: None,
        };
        let valid = execute_over(block, &senders, store, root, ancestors, chain);
        let output = valid.map(|valid| {
            let output = valid.output;
            crate::discard(valid);
            output
        });
        crate::discard(senders);
        output
    });

    // 2. The tail.
    let tail: Rc<Tail> = stream.tail().map_err(StandardError::Decode)?;

    // 3. The deferred checks, in the block validator's order.
    let deferred = || -> Result<B256, ValidationError> {
        let parent = check_parent(header, &tail.headers, chain)?;
        body.clone()?;
        check_keys(txs, &tail.public_keys, &recovery)?;
        Ok(parent.state_root)
    };
    let parent_root = deferred().map_err(StandardError::Validation)?;

    // 4. The root.
    match executed {
        Some(output) if root == Some(parent_root) => output.map_err(StandardError::Validation),
        _ => {
            let valid = validate_checked(
                block.clone(),
                rlp_len,
                &tail.headers,
                store,
                chain,
                Signers::PublicKeys(&tail.public_keys),
            )
            .map_err(StandardError::Validation)?;
            let output = valid.output;
            crate::discard(valid);
            Ok(output)
        }
    }
}
