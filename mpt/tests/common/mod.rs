//! Helpers the trie tests share: a key-value model and its root by alloy-trie's `HashBuilder`
//! (an implementation independent of ours).

use std::collections::BTreeMap;

use alloy_primitives::B256;
use alloy_trie::{HashBuilder, Nibbles};

/// Keys to values, in key order.
pub type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// `model`'s root, by alloy-trie.
pub fn reference_root(model: &Model) -> B256 {
    let mut hb = HashBuilder::default();
    for (k, v) in model {
        hb.add_leaf(Nibbles::unpack(k), v);
    }
    hb.root()
}
