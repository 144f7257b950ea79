//! Zero-copy decoding of RLP trie nodes.
//!
//! Written by hand rather than with alloy-trie's `TrieNode::decode` because that one copies
//! every child into an owned `RlpNode` and every value into a `Vec`; here a node borrows the
//! witness bytes it came from, and a child hash is a reference into them.

use alloy_primitives::B256;
use alloy_rlp::Header;
use alloy_trie::Nibbles;

use crate::error::NodeError;

/// A child reference as a node stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildRef<'a> {
    /// No child (`0x80`).
    Empty,
    /// A node of 32 or more encoded bytes, referenced by its hash.
    Hash(&'a B256),
    /// A node of under 32 encoded bytes, embedded as its RLP.
    Inline(&'a [u8]),
}

/// A decoded trie node borrowing its input.
// A transient value on the stack: boxing the branch would allocate on every decode, and the
// guest's bump allocator never frees.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawNode<'a> {
    /// Sixteen children, one per nibble.
    Branch([ChildRef<'a>; 16]),
    /// A shared path to a single child.
    Extension {
        /// The shared nibbles.
        path: Nibbles,
        /// The child (never empty).
        child: ChildRef<'a>,
    },
    /// The rest of a key, and its value.
    Leaf {
        /// The remaining key nibbles.
        path: Nibbles,
        /// The value bytes (the RLP string's payload).
        value: &'a [u8],
    },
}

/// One RLP item.
#[derive(Clone, Copy, Default)]
struct Item<'a> {
    /// The whole encoding, header included.
    raw: &'a [u8],
    list: bool,
    payload: &'a [u8],
}

/// The next item of `buf`. The one-byte headers (a single byte, a string or a list under 56
/// bytes: a branch's child hashes, its empty slots, short paths) are read here, as alloy-rlp
/// reads them; the rest (long forms, `0x81` with its canonical-byte check, an empty buffer)
/// go through alloy-rlp. A branch reads 17 items, so the header is the trie's hottest parse.
#[inline]
fn next_item<'a>(buf: &mut &'a [u8]) -> Result<Item<'a>, NodeError> {
    let start = *buf;
    let (list, skip, len) = match start.first() {
        Some(0x00..=0x7f) => (false, 0, 1),
        Some(&b @ 0x80..=0xb7) if b != 0x81 => (false, 1, usize::from(b - 0x80)),
        Some(&b @ 0xc0..=0xf7) => (true, 1, usize::from(b - 0xc0)),
        _ => return next_item_long(buf),
    };
    let end = skip + len;
    if start.len() < end {
        return Err(alloy_rlp::Error::InputTooShort.into());
    }
    *buf = &start[end..];
    Ok(Item {
        raw: &start[..end],
        list,
        payload: &start[skip..end],
    })
}

fn next_item_long<'a>(buf: &mut &'a [u8]) -> Result<Item<'a>, NodeError> {
    let start = *buf;
    let header = Header::decode(buf)?;
    if buf.len() < header.payload_length {
        return Err(alloy_rlp::Error::InputTooShort.into());
    }
    let (payload, rest) = buf.split_at(header.payload_length);
    *buf = rest;
    Ok(Item {
        raw: &start[..start.len() - rest.len()],
        list: header.list,
        payload,
    })
}

fn child(index: u8, item: Item<'_>) -> Result<ChildRef<'_>, NodeError> {
    let Item { raw, list, payload } = item;
    if list {
        return if raw.len() < 32 {
            Ok(ChildRef::Inline(raw))
        } else {
            Err(NodeError::InlineTooLong(raw.len()))
        };
    }
    match payload.len() {
        0 => Ok(ChildRef::Empty),
        32 => Ok(ChildRef::Hash(
            <&B256>::try_from(payload).map_err(|_| NodeError::BadChild(index))?,
        )),
        _ => Err(NodeError::BadChild(index)),
    }
}

/// Decodes a hex-prefix path: returns the nibbles and whether it is a leaf's.
fn hex_prefix(item: Item<'_>) -> Result<(Nibbles, bool), NodeError> {
    let Item { list, payload, .. } = item;
    let Some((&first, rest)) = payload.split_first().filter(|_| !list) else {
        return Err(NodeError::BadPath(payload.first().copied().unwrap_or(0)));
    };
    let flag = first >> 4;
    let (leaf, odd) = match flag {
        0 => (false, false),
        1 => (false, true),
        2 => (true, false),
        3 => (true, true),
        _ => return Err(NodeError::BadPath(first)),
    };
    if !odd && first & 0x0f != 0 {
        return Err(NodeError::BadPath(first));
    }
    if rest.len() > 32 || (odd && rest.len() == 32) {
        return Err(NodeError::PathTooLong);
    }
    let tail = Nibbles::unpack(rest);
    let path = if odd {
        Nibbles::from_nibbles([first & 0x0f]).join(&tail)
    } else {
        tail
    };
    Ok((path, leaf))
}

/// A decoded node's shape; a branch's children are written to the caller's array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape<'a> {
    /// Sixteen children (in the array [`decode_into`] filled).
    Branch,
    /// A shared path to a single child.
    Extension { path: Nibbles, child: ChildRef<'a> },
    /// The rest of a key, and its value.
    Leaf { path: Nibbles, value: &'a [u8] },
}

/// Decodes one node (the input must be exactly its RLP), writing a branch's children into
/// `children` in place: the trie builds its arena node from them without a node value being
/// moved around (every move of a 200-byte node is a `memcpy` the guest pays for).
///
/// Always inlined into its hot caller (the trie's `push_encoded`): a second, cold caller (the
/// collapse derivation, `super::orphan`) made LTO keep it out of line, which cost 24171384
/// ~106 K instructions of calls.
#[inline(always)]
pub(crate) fn decode_into<'a>(
    rlp: &'a [u8],
    children: &mut [ChildRef<'a>; 16],
) -> Result<Shape<'a>, NodeError> {
    decode_with::<true>(rlp, children)
}

/// [`decode_into`], with (`SLOTS`) or without the shortcut for a branch's hash and empty
/// slots: the same result either way (tested), the shortcut only cheaper.
#[inline(always)]
fn decode_with<'a, const SLOTS: bool>(
    rlp: &'a [u8],
    children: &mut [ChildRef<'a>; 16],
) -> Result<Shape<'a>, NodeError> {
    let mut buf = rlp;
    let Item {
        list, mut payload, ..
    } = next_item(&mut buf)?;
    if !list {
        return Err(NodeError::NotAList);
    }
    if !buf.is_empty() {
        return Err(NodeError::TrailingBytes(buf.len()));
    }
    // One pass: children are converted as they are read (a failed conversion is reported
    // only once the node's shape is known, as a 17-item list), so no array of raw items is
    // kept; only the first two, which a leaf or an extension needs.
    let mut bad_child = None;
    let (mut first, mut second, mut value) = (Item::default(), Item::default(), Item::default());
    let mut count = 0;
    while !payload.is_empty() {
        // A branch's slots are almost all a hash (`0xa0` and 32 bytes) or empty (`0x80`):
        // taken here as the general parse and `child` would take them, without either (on
        // 24171384, 1.7 M fewer instructions). Slots 0 and 1 stay items as well: they are a
        // leaf's or an extension's path and value or child until the count says otherwise.
        // The two arms stay apart on purpose, though `duplicates` pairs them: folded into one
        // (the length from the byte) they cost 186 K more instructions on 24171384.
        let item = match payload[0] {
            0xa0 if SLOTS && payload.len() > 32 => {
                let (raw, rest) = payload.split_at(33);
                payload = rest;
                if count < 16 && count > 1 {
                    children[count] =
                        ChildRef::Hash(<&B256>::try_from(&raw[1..]).expect("32 bytes"));
                    count += 1;
                    continue;
                }
                Item {
                    raw,
                    list: false,
                    payload: &raw[1..],
                }
            }
            0x80 if SLOTS => {
                let (raw, rest) = payload.split_at(1);
                payload = rest;
                if count < 16 && count > 1 {
                    children[count] = ChildRef::Empty;
                    count += 1;
                    continue;
                }
                Item {
                    raw,
                    list: false,
                    payload: &raw[1..],
                }
            }
            _ => next_item(&mut payload)?,
        };
        match count {
            0 => first = item,
            1 => second = item,
            16 => value = item,
            17 => return Err(NodeError::ItemCount(count + 1 + count_items(payload)?)),
            _ => {}
        }
        if count < 16 {
            match child(count as u8, item) {
                Ok(child) => children[count] = child,
                Err(e) => {
                    bad_child.get_or_insert(e);
                }
            }
        }
        count += 1;
    }
    match count {
        17 => {
            if value.list || !value.payload.is_empty() {
                return Err(NodeError::BranchValue);
            }
            match bad_child {
                Some(e) => Err(e),
                None => Ok(Shape::Branch),
            }
        }
        2 => {
            let (path, leaf) = hex_prefix(first)?;
            if leaf {
                let Item { list, payload, .. } = second;
                if list || payload.is_empty() {
                    return Err(NodeError::BadLeafValue);
                }
                Ok(Shape::Leaf {
                    path,
                    value: payload,
                })
            } else {
                let child = child(0, second)?;
                if path.is_empty() || child == ChildRef::Empty {
                    return Err(NodeError::BadExtension);
                }
                Ok(Shape::Extension { path, child })
            }
        }
        n => Err(NodeError::ItemCount(n)),
    }
}

impl<'a> RawNode<'a> {
    /// Decodes one node; the input must be exactly its RLP.
    pub fn decode(rlp: &'a [u8]) -> Result<Self, NodeError> {
        let mut children = [ChildRef::Empty; 16];
        Ok(match decode_into(rlp, &mut children)? {
            Shape::Branch => Self::Branch(children),
            Shape::Extension { path, child } => Self::Extension { path, child },
            Shape::Leaf { path, value } => Self::Leaf { path, value },
        })
    }
}

fn count_items(mut payload: &[u8]) -> Result<usize, NodeError> {
    let mut n = 0;
    while !payload.is_empty() {
        next_item(&mut payload)?;
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use rand::{rngs::SmallRng, Rng, SeedableRng};

    /// One node's RLP: a list of `items`, each from a pool of well- and ill-formed slots.
    fn random_node(rng: &mut SmallRng) -> Vec<u8> {
        let count = match rng.random_range(0..10) {
            0 => 2,
            1 => rng.random_range(0..20),
            _ => 17,
        };
        // Half the nodes have only well-formed slots (a hash or empty), so that many are valid.
        let kinds = if rng.random() { 9 } else { 12 };
        let mut payload = Vec::new();
        for _ in 0..count {
            match rng.random_range(0..kinds) {
                0..=5 => {
                    payload.push(0xa0);
                    payload.extend((0..32).map(|_| rng.random::<u8>()));
                }
                6..=8 => payload.push(0x80),
                9 => payload.push(rng.random_range(0..0x80)),
                10 => {
                    let len = rng.random_range(0..40usize);
                    payload.push(0x80 + len as u8);
                    payload.extend((0..len).map(|_| rng.random::<u8>()));
                }
                _ => {
                    let len = rng.random_range(0..40usize);
                    payload.push(0xc0 + len as u8);
                    payload.extend((0..len).map(|_| rng.random::<u8>()));
                }
            }
        }
        let mut rlp = Vec::new();
        Header {
            list: true,
            payload_length: payload.len(),
        }
        .encode(&mut rlp);
        rlp.extend(payload);
        rlp
    }

    /// The slot shortcut decodes every node, well-formed or not (random slots, then a byte
    /// changed, cut or added), exactly as the general parse does: the same shape, children
    /// and error.
    #[test]
    fn slot_shortcut_decodes_as_the_general_parse() {
        let mut rng = SmallRng::seed_from_u64(0x5107);
        let mut branches = 0;
        for round in 0..20_000 {
            let mut rlp = random_node(&mut rng);
            match round % 4 {
                0 => {}
                1 => {
                    let at = rng.random_range(0..rlp.len());
                    rlp[at] = [0x80, 0xa0, 0x9f, 0xa1, rng.random()][rng.random_range(0..5)];
                }
                2 => rlp.truncate(rng.random_range(0..rlp.len())),
                _ => rlp.push(rng.random()),
            }
            let (mut fast, mut slow) = ([ChildRef::Empty; 16], [ChildRef::Empty; 16]);
            let got = decode_with::<true>(&rlp, &mut fast);
            let expected = decode_with::<false>(&rlp, &mut slow);
            assert_eq!(got, expected, "{rlp:02x?}");
            if got == Ok(Shape::Branch) {
                branches += 1;
                assert_eq!(fast, slow, "{rlp:02x?}");
            }
        }
        assert!(branches > 1_000, "only {branches} valid branches tried");
    }

    /// The short-header path reads every item exactly as alloy-rlp's `Header::decode` does:
    /// the same items, the same errors.
    #[test]
    fn items_read_as_alloy_rlp_reads_them() {
        let reference = |buf: &mut &[u8]| -> Result<(bool, usize, usize), NodeError> {
            let start = *buf;
            let header = Header::decode(buf)?;
            if buf.len() < header.payload_length {
                return Err(alloy_rlp::Error::InputTooShort.into());
            }
            let skip = start.len() - buf.len();
            Ok((header.list, skip, skip + header.payload_length))
        };
        for first in 0..=255u8 {
            for len in [0usize, 1, 2, 31, 32, 33, 55, 56, 60] {
                for fill in [0x00u8, 0x42, 0x7f, 0x80, 0xff] {
                    let mut bytes = alloc::vec![first];
                    bytes.extend(core::iter::repeat_n(fill, len));
                    let (mut ours, mut theirs) = (&bytes[..], &bytes[..]);
                    let got = next_item(&mut ours).map(|item| {
                        let skip = item.payload.as_ptr() as usize - bytes.as_ptr() as usize;
                        (item.list, skip, skip + item.payload.len(), item.raw.len())
                    });
                    match (got, reference(&mut theirs)) {
                        (Ok((list, skip, end, raw)), Ok(expected)) => {
                            assert_eq!((list, skip, end), expected, "{bytes:02x?}");
                            assert_eq!(raw, end, "{bytes:02x?}");
                            assert_eq!(ours.len(), bytes.len() - end, "{bytes:02x?}");
                        }
                        (Err(a), Err(b)) => assert_eq!(a, b, "{bytes:02x?}"),
                        (a, b) => panic!("{bytes:02x?}: {a:?} vs {b:?}"),
                    }
                }
            }
        }
    }
}
