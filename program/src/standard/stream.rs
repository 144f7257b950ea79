//! The standard input as validation reads it: once, front to back, each part when it is first
//! needed ([`Stream`]).
//!
//! The input's order is the format's: the request, the trie nodes, the codes, the ancestor
//! headers, the public keys. Validation needs them in another: the request, then nodes and
//! codes as execution reaches them (the order `host stateless-input` writes each list in), then
//! the headers and the keys, whose checks wait for the end ([`super::deferred`]). So:
//!
//! - the store ([`Stream::store`]) pulls nodes and codes from the stream as lookups need
//!   them, each read into the item region on a word boundary, a code with revm's padding
//!   ([`crate::region::read_item`]): no buffer of the whole input, and an item read when first
//!   needed is first written in the segment that uses it. The codes come after every node, so
//!   the first code a lookup needs (a system contract's, before the first transaction) makes the
//!   store pull, hash and keep every node on its way: the format's order, which no reader can
//!   change;
//! - the headers and the keys come last ([`Stream::tail`]): reaching them reads every item
//!   left (kept, unhashed, for the store to pull later: a second validation over what is in
//!   memory sees the whole witness), which also tells whether the input decodes at all: until
//!   then, no verdict.
//!
//! Nothing else may read the VM's hint stream while the input is read from it: a hint (OpenVM's
//! square-root hint, say) replaces the stream, so the guest's cryptography computes what it
//! would hint (`crypto::secp256k1::allow_hints` is the block guest's alone).

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::RefCell;

use alloy_primitives::Bytes;
use mpt::trie::Item;
use mpt::WitnessStore;
use stateless_ssz::{InputError, InputStream, NewPayloadRequest, Source, PUBLIC_KEY_BYTES};

use crate::code::CODE_PADDING;
use crate::region::read_item;

/// The headers and the public keys: what follows the witness's items.
#[derive(Debug)]
pub struct Tail {
    /// RLP ancestor headers, oldest first, the parent last.
    pub headers: Vec<Bytes>,
    /// The signers' public keys, in payload order.
    pub public_keys: Vec<[u8; PUBLIC_KEY_BYTES]>,
}

struct Inner<S> {
    input: InputStream<S>,
    /// Items read past on the way to something later, not yet pulled by the store.
    passed: VecDeque<Item>,
    /// The tail once read, or why the input does not decode.
    tail: Option<Result<Rc<Tail>, InputError>>,
}

impl<S: Source> Inner<S> {
    fn next_item(&mut self) -> Option<Item> {
        self.input.next_item(|source, len, code| {
            read_item(source, len, if code { CODE_PADDING } else { 0 })
        })
    }
}

/// The input being read, shared by the store and the checks that wait for the tail.
pub struct Stream<S>(Rc<RefCell<Inner<S>>>);

impl<S> Clone for Stream<S> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<S> core::fmt::Debug for Stream<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Stream").finish_non_exhaustive()
    }
}

/// What [`Stream::open`] reads before any witness item.
pub struct Opened<S> {
    /// The stream, at the first trie node.
    pub stream: Stream<S>,
    /// The request.
    pub request: NewPayloadRequest,
    /// The schema's fork.
    pub fork: stateless_ssz::Fork,
    /// The chain id.
    pub chain_id: u64,
}

impl<S: Source + 'static> Stream<S> {
    /// Opens the `len` bytes of `source`: the request, and the witness's layout.
    pub fn open(source: S, len: usize) -> Result<Opened<S>, InputError> {
        let (input, request) = InputStream::open(source, len)?;
        let (fork, chain_id) = (input.fork(), input.chain_id());
        Ok(Opened {
            stream: Self(Rc::new(RefCell::new(Inner {
                input,
                passed: VecDeque::new(),
                tail: None,
            }))),
            request,
            fork,
            chain_id,
        })
    }

    /// The witness's nodes and codes by hash, pulled from the stream (or from what was read
    /// past) as lookups need them. Its tables have room for the nodes the input declares,
    /// and as many codes again as one in eight of them, before they grow.
    pub fn store(&self) -> WitnessStore {
        let nodes = self.0.borrow().input.node_count();
        let stream = self.clone();
        WitnessStore::streaming_with_room(
            nodes,
            nodes + nodes / 8 + 64,
            Box::new(core::iter::from_fn(move || {
                let mut inner = stream.0.borrow_mut();
                match inner.passed.pop_front() {
                    Some(item) => Some(item),
                    None => inner.next_item(),
                }
            })),
        )
    }

    /// The headers and the keys (read once, every item before them kept for the store), or
    /// why the input does not decode.
    pub fn tail(&self) -> Result<Rc<Tail>, InputError> {
        let mut inner = self.0.borrow_mut();
        if inner.tail.is_none() {
            while let Some(item) = inner.next_item() {
                inner.passed.push_back(item);
            }
            let tail = inner.input.finish().map(|tail| {
                Rc::new(Tail {
                    headers: tail.headers.into_iter().map(Bytes::from).collect(),
                    public_keys: tail.public_keys,
                })
            });
            inner.tail = Some(tail);
        }
        inner.tail.clone().expect("read above")
    }
}
