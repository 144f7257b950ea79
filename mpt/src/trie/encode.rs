//! RLP encoding and hashing of trie nodes.
//!
//! A node's RLP is written through [`bytes::BufMut`] (list header, hex-prefix path, child
//! references, value) into a word-aligned stack buffer, then hashed in one pass; nodes under
//! 32 bytes (embedded in their parent, not hashed) into a small one. Streaming it into the
//! sponge instead, as every other RLP here is, cost more for nodes: a branch is 18 small
//! absorbs, 16 of them 33 bytes at offsets off the word grid that the sponge stages
//! (24171384: 45,600,914 instructions buffered against 46,608,446 streamed). Only a node
//! longer than the buffer (a long value) still streams.

use alloc::vec::Vec;
use alloy_primitives::B256;
use alloy_rlp::{BufMut, Encodable, Header};
use alloy_trie::nodes::RlpNode;
use alloy_trie::Nibbles;

use super::{Child, Kind, NodeId, Rlp, Trie};
use crate::Keccak256;

/// The longest node RLP hashed from a stack buffer: a branch of 16 hashes and no value
/// (3 + 16 * 33 + 1 = 532 bytes) fits; longer nodes (a branch or leaf with a long value) stream.
#[cfg(not(feature = "stock-keccak"))]
const NODE_BUFFER: usize = 544;

/// A node's RLP on a word boundary, so its blocks absorb without staging.
#[cfg(not(feature = "stock-keccak"))]
#[repr(C, align(8))]
struct NodeBuffer([core::mem::MaybeUninit<u8>; NODE_BUFFER]);

/// Length of a hex-prefix path's RLP string.
fn path_len(path: &Nibbles) -> usize {
    let bytes = path.len() / 2 + 1;
    // One byte below 0x80 (every flag byte is) encodes as itself.
    if bytes == 1 {
        1
    } else {
        1 + bytes
    }
}

/// Writes a path as an RLP string of its hex-prefix encoding.
fn encode_path(path: &Nibbles, leaf: bool, out: &mut dyn BufMut) {
    let n = path.len();
    let odd = n % 2;
    let bytes = n / 2 + 1;
    if bytes > 1 {
        out.put_u8(0x80 + bytes as u8);
    }
    let flag = (u8::from(leaf) << 1 | odd as u8) << 4;
    out.put_u8(if odd == 1 {
        flag | path.get_unchecked(0)
    } else {
        flag
    });
    let mut k = odd;
    while k < n {
        out.put_u8(path.get_unchecked(k) << 4 | path.get_unchecked(k + 1));
        k += 2;
    }
}

/// Writes a reference by hash: the 32-byte string's header, then the hash.
fn put_hash_ref(hash: &B256, out: &mut dyn BufMut) {
    out.put_u8(alloy_rlp::EMPTY_STRING_CODE + 32);
    out.put_slice(hash.as_slice());
}

impl Trie<'_> {
    /// The RLP reference of a node: computed (children first) unless cached.
    pub(super) fn rlp_ref(&mut self, id: NodeId) -> &Rlp<'_> {
        if self.nodes[id as usize].rlp.is_none() {
            let rlp = self.compute_rlp(id);
            self.nodes[id as usize].rlp = Some(Rlp::Node(rlp));
        }
        self.nodes[id as usize].rlp.as_ref().expect("set above")
    }

    fn compute_rlp(&mut self, id: NodeId) -> RlpNode {
        #[cfg(not(feature = "stock-keccak"))]
        if let Some(hash) = self.hash_patched(id) {
            return RlpNode::word_rlp(&hash);
        }
        match self.nodes[id as usize].kind {
            Kind::Leaf { .. } => {}
            Kind::Extension { child, .. } => self.ensure_child(child),
            Kind::Branch { children, .. } => children
                .into_iter()
                .for_each(|c| self.ensure_child(c.get())),
        }
        let payload_length = self.payload_len(id);
        let header = Header {
            list: true,
            payload_length,
        };
        if header.length_with_payload() < 32 {
            let mut buf = [0u8; 32];
            let mut out = &mut buf[..];
            self.encode_node_with(id, payload_length, &mut out);
            let len = 32 - out.len();
            RlpNode::from_raw(&buf[..len]).expect("under 32 bytes")
        } else {
            #[cfg(not(feature = "stock-keccak"))]
            if header.length_with_payload() <= NODE_BUFFER {
                let mut buffer = NodeBuffer([core::mem::MaybeUninit::uninit(); NODE_BUFFER]);
                let mut out = &mut buffer.0[..];
                self.encode_node_with(id, payload_length, &mut out);
                let len = NODE_BUFFER - out.len();
                // SAFETY: `encode_node_with` wrote (initialised) the first `len` bytes.
                let rlp =
                    unsafe { core::slice::from_raw_parts(buffer.0.as_ptr().cast::<u8>(), len) };
                return RlpNode::word_rlp(&crate::keccak256(rlp));
            }
            let mut sponge = Keccak256::with_capacity(header.length_with_payload());
            self.encode_node_with(id, payload_length, &mut sponge);
            RlpNode::word_rlp(&sponge.finalize())
        }
    }

    /// A branch decoded from the witness, hashed as a copy of its witness RLP with only the
    /// changed child references rewritten ([`Trie::patch_raw`]); `None` for any other node, or
    /// where the layout moved and the node must be encoded afresh.
    ///
    /// Only the children whose subtree was written (the branch's `changed` bits) are read and
    /// rehashed: an unchanged decoded child's reference is the witness's own bytes at its
    /// slot, so its arena node (its memory page, which the prover pays for per segment) is
    /// not touched at all.
    #[cfg(not(feature = "stock-keccak"))]
    fn hash_patched(&mut self, id: NodeId) -> Option<B256> {
        let Kind::Branch {
            raw: Some(raw),
            mut changed,
            ..
        } = self.nodes[id as usize].kind
        else {
            return None;
        };
        if !(32..=NODE_BUFFER).contains(&raw.len()) {
            return None;
        }
        let bits = changed;
        while changed != 0 {
            let nibble = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            if let Kind::Branch { children, .. } = &self.nodes[id as usize].kind {
                let child = children[nibble].get();
                self.ensure_child(child);
            }
        }
        let mut buffer = NodeBuffer([core::mem::MaybeUninit::uninit(); NODE_BUFFER]);
        let len = self.patch_raw(id, raw, bits, &mut buffer)?;
        // SAFETY: `patch_raw` wrote (initialised) the first `len` bytes.
        let rlp = unsafe { core::slice::from_raw_parts(buffer.0.as_ptr().cast::<u8>(), len) };
        #[cfg(debug_assertions)]
        {
            let mut expected = Vec::new();
            self.encode_node(id, &mut expected);
            debug_assert_eq!(rlp, &expected[..], "patched branch RLP");
        }
        Some(crate::keccak256(rlp))
    }

    /// Branch `id`'s RLP written into `buffer` as a copy of its witness RLP `raw`, with only
    /// the changed child references rewritten; its length, or `None` where the layout moved (a
    /// child emptied, filled or embedded) and the node must be encoded afresh.
    ///
    /// Encoding a branch afresh copies every child hash (a `memcpy` of 32 bytes to an odd
    /// offset, ~57 instructions each), though most are the witness's own bytes: a rehashed
    /// branch usually has one child changed. Every byte written is checked or rewritten. The
    /// slots are walked in step with the fresh encoding: each slot's first byte is compared
    /// with the child's reference, so every slot lies where the fresh encoding puts it (and
    /// where the decoder found slot `i` in `raw`). A hash is kept only where it is a view of
    /// the copied bytes at that very place, or where the child was decoded from that very
    /// place and nothing under it changed since (`changed`'s bit clear); any other is
    /// written over. The header is written last, from the payload length walked.
    #[cfg(not(feature = "stock-keccak"))]
    fn patch_raw(
        &self,
        id: NodeId,
        raw: &[u8],
        changed: u16,
        buffer: &mut NodeBuffer,
    ) -> Option<usize> {
        let Kind::Branch { children, .. } = &self.nodes[id as usize].kind else {
            return None;
        };
        let total = raw.len();
        // Where the decoder found the first slot: after a short or a 1- or 2-byte-long list
        // header (a branch of hashes is 56..=532 bytes).
        let start = match *raw.first()? {
            0xc0..=0xf7 => 1,
            0xf8 => 2,
            0xf9 => 3,
            _ => return None,
        };
        if total > NODE_BUFFER {
            return None;
        }
        // SAFETY: `total <= NODE_BUFFER` bytes from `raw` (which holds `total`) into the
        // buffer, a distinct local; the slice made of them is exactly what was initialised.
        let buf = unsafe {
            let dst = buffer.0.as_mut_ptr().cast::<u8>();
            core::ptr::copy_nonoverlapping(raw.as_ptr(), dst, total);
            core::slice::from_raw_parts_mut(dst, total)
        };
        let mut at = start;
        for (nibble, child) in children.iter().enumerate() {
            let hash: &[u8] = match child.get() {
                Child::Empty => {
                    if *buf.get(at)? != alloy_rlp::EMPTY_STRING_CODE {
                        return None;
                    }
                    at += 1;
                    continue;
                }
                Child::Hash(hash) => hash.as_slice(),
                // Decoded from this slot's hash, and unchanged below: that hash, kept.
                Child::Node(_) if changed & (1 << nibble) == 0 => {
                    if *buf.get(at)? != alloy_rlp::EMPTY_STRING_CODE + 32 {
                        return None;
                    }
                    at += 33;
                    continue;
                }
                Child::Node(k) => match self.nodes[k as usize].rlp.as_ref()? {
                    Rlp::Hash(hash) => hash.as_slice(),
                    Rlp::Node(rlp) if rlp.is_hash() => &rlp[1..],
                    Rlp::Node(_) => return None,
                },
            };
            let slot = buf.get_mut(at..at + 33)?;
            if slot[0] != alloy_rlp::EMPTY_STRING_CODE + 32 {
                return None;
            }
            if !core::ptr::eq(hash.as_ptr(), raw.as_ptr().wrapping_add(at + 1)) {
                slot[1..].copy_from_slice(hash);
            }
            at += 33;
        }
        if at + 1 != total {
            return None;
        }
        buf[at] = alloy_rlp::EMPTY_STRING_CODE;
        let header = Header {
            list: true,
            payload_length: total - start,
        };
        if header.length() != start {
            return None;
        }
        header.encode(&mut &mut buf[..start]);
        Some(total)
    }

    fn ensure_child(&mut self, child: Child<'_>) {
        if let Child::Node(k) = child {
            self.rlp_ref(k);
        }
    }

    fn child_len(&self, child: &Child<'_>) -> usize {
        match child {
            Child::Empty => 1,
            Child::Hash(_) => 33,
            Child::Node(k) => self.nodes[*k as usize]
                .rlp
                .as_ref()
                .expect("children hashed first")
                .len(),
        }
    }

    fn payload_len(&self, id: NodeId) -> usize {
        match &self.nodes[id as usize].kind {
            Kind::Leaf { path, value } => path_len(path) + value.as_ref().length(),
            Kind::Extension { path, child } => path_len(path) + self.child_len(child),
            Kind::Branch { children, .. } => {
                children
                    .iter()
                    .map(|c| self.child_len(&c.get()))
                    .sum::<usize>()
                    + 1
            }
        }
    }

    fn encode_child(&self, child: &Child<'_>, out: &mut dyn BufMut) {
        match child {
            Child::Empty => out.put_u8(alloy_rlp::EMPTY_STRING_CODE),
            Child::Hash(hash) => put_hash_ref(hash, out),
            Child::Node(k) => match self.nodes[*k as usize]
                .rlp
                .as_ref()
                .expect("children hashed first")
            {
                Rlp::Hash(hash) => put_hash_ref(hash, out),
                Rlp::Node(rlp) => out.put_slice(rlp),
            },
        }
    }

    /// Writes the node's RLP; its children's references must be cached.
    pub(super) fn encode_node(&self, id: NodeId, out: &mut dyn BufMut) {
        self.encode_node_with(id, self.payload_len(id), out);
    }

    /// [`Trie::encode_node`] with the node's payload length already known (each child's
    /// reference length is summed once, not again for the list header).
    fn encode_node_with(&self, id: NodeId, payload_length: usize, out: &mut dyn BufMut) {
        Header {
            list: true,
            payload_length,
        }
        .encode(out);
        match &self.nodes[id as usize].kind {
            Kind::Leaf { path, value } => {
                encode_path(path, true, out);
                value.as_ref().encode(out);
            }
            Kind::Extension { path, child } => {
                encode_path(path, false, out);
                self.encode_child(child, out);
            }
            Kind::Branch { children, .. } => {
                for child in children {
                    self.encode_child(&child.get(), out);
                }
                out.put_u8(alloy_rlp::EMPTY_STRING_CODE);
            }
        }
    }

    /// The RLP of every decoded node that is referenced by hash, plus the root node: the
    /// witness another trie needs to reopen this one at [`Trie::root`] and reach every node
    /// decoded here. Nodes never decoded (still hash references) are not included.
    pub fn encoded_nodes(&mut self) -> Vec<Vec<u8>> {
        self.root();
        let mut out = Vec::new();
        let Child::Node(root) = self.root else {
            return out;
        };
        let mut stack = alloc::vec![root];
        while let Some(id) = stack.pop() {
            let node = &self.nodes[id as usize];
            if id == root || node.rlp.as_ref().is_some_and(Rlp::is_hash) {
                let mut rlp = Vec::new();
                self.encode_node(id, &mut rlp);
                out.push(rlp);
            }
            match &node.kind {
                Kind::Leaf { .. } => {}
                Kind::Extension { child, .. } => stack.extend(node_id(child)),
                Kind::Branch { children, .. } => {
                    stack.extend(children.iter().filter_map(|c| node_id(&c.get())))
                }
            }
        }
        out
    }
}

fn node_id(child: &Child<'_>) -> Option<NodeId> {
    match child {
        Child::Node(k) => Some(*k),
        _ => None,
    }
}
