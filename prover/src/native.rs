//! Validating a block natively: the same `program` code the guest runs, on the host, so a
//! block's verdict is known in seconds before the VM runs it. The guest's input is made
//! here too, from the same data and chain, so the VM sees exactly what was validated.
//!
//! The guest reads and hashes witness nodes and codes only when it first needs them, in input
//! order until the one it needs turns up ([`mpt::WitnessStore`]). So the input lists them in
//! the order this native run first needed them (then the ones it never needed): the guest then
//! reads and hashes each item in the segment that uses it, and never the unused ones.

use std::time::{Duration, Instant};

use alloy_hardforks::EthereumHardfork;
use alloy_primitives::Bytes;
use program::{BlockOutput, ChainConfig, ValidationError};

use chaindata::blocks::BlockData;

/// A native validation's result.
#[derive(Debug)]
pub struct NativeRun {
    /// The loaded block.
    pub data: BlockData,
    /// The chain config used.
    pub chain: ChainConfig,
    /// The fork the block runs under (from its header and the chain config).
    pub fork: EthereumHardfork,
    /// The verdict.
    pub verdict: Result<BlockOutput, ValidationError>,
    /// Time spent validating (loading excluded).
    pub elapsed: Duration,
    /// Positions in the witness's state nodes followed by its codes, in the order validation
    /// first asked for them.
    pub first_uses: Vec<u32>,
}

impl NativeRun {
    /// The guest's input items: the head (block, ancestor headers, chain config), then the
    /// witness's nodes and codes in the order validation first asked for them, the others after
    /// them in the witness's order.
    pub fn guest_input(&self) -> Vec<Vec<u8>> {
        let witness = &self.data.witness;
        let nodes = witness.state.iter().map(|b| (b.clone(), false));
        let items: Vec<(Bytes, bool)> = nodes
            .chain(witness.codes.iter().map(|b| (b.clone(), true)))
            .collect();
        let ordered = in_use_order(&items, &self.first_uses);
        program::guest_items(
            &self.data.block_rlp,
            &witness.headers,
            &self.chain,
            ordered.iter().map(|(b, code)| (b.as_ref(), *code)),
        )
    }
}

/// `items` with those at `first` first, in that order, then the rest in their order.
pub(crate) fn in_use_order<T: Clone>(items: &[T], first: &[u32]) -> Vec<T> {
    let mut placed = vec![false; items.len()];
    let mut out: Vec<T> = Vec::with_capacity(items.len());
    for &at in first {
        placed[at as usize] = true;
        out.push(items[at as usize].clone());
    }
    out.extend(
        items
            .iter()
            .zip(&placed)
            .filter(|(_, &placed)| !placed)
            .map(|(item, _)| item.clone()),
    );
    out
}

/// Validates a block (its data under `chain`) natively.
pub fn validate(data: BlockData, chain: ChainConfig) -> NativeRun {
    let fork = chain.fork_at(data.header.number, data.header.timestamp);
    let started = Instant::now();
    let store = data.witness.store();
    let verdict =
        program::validate_block_over(&data.block_rlp, &data.witness.headers, &store, &chain)
            .map(|valid| valid.output);
    let elapsed = started.elapsed();
    let first_uses = store.first_uses();
    drop(store);
    NativeRun {
        elapsed,
        data,
        chain,
        fork,
        verdict,
        first_uses,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_first_used_lead_and_the_rest_keep_their_order() {
        let items: Vec<Bytes> = (0u8..5).map(|i| Bytes::from(vec![i])).collect();
        let ordered = in_use_order(&items, &[3, 1]);
        let bytes: Vec<u8> = ordered.iter().map(|b| b[0]).collect();
        assert_eq!(bytes, [3, 1, 0, 2, 4]);
    }
}
