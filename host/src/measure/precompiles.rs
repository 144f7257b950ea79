//! The precompile census (`host census`): per cryptographic operation (each precompile's
//! cryptography and sender recovery), how many calls a block makes and how many guest
//! instructions they cost, with crypto on the chips or in software.
//!
//! Calls are counted in the guest (`crypto::census`, feature `crypto-census`). Instructions are
//! measured from outside, since the guest cannot read a counter: the census build runs once as
//! is and once per called operation with that operation computed twice; the difference of the
//! VM's exact instruction counts is what the operation's calls cost. The census build's base
//! count differs from the plain guest's only by the counting itself.

use serde::Serialize;

use crate::native::NativeRun;
use crypto::census::{Op, OPS};
use prover::guest::{
    Crypto, GuestSpec, Instrument, Keccak, PRECOMPILE_CENSUS_PUBLIC_VALUES, PUBLIC_VALUES,
};
use prover::vm::{check_public, Vm, VmRunError};

/// The guest's input byte that asks it to compute nothing twice.
const NONE_TWICE: u8 = 255;

/// One operation's figures.
#[derive(Debug, Clone, Serialize)]
pub struct OpCost {
    /// Its name.
    pub op: &'static str,
    /// Calls in the block.
    pub calls: u32,
    /// Instructions those calls cost (absent when there were none).
    pub instructions: Option<u64>,
}

/// A block's precompile census under one crypto choice.
#[derive(Debug, Clone, Serialize)]
pub struct PrecompileCensus {
    /// The block's id.
    pub block: String,
    /// Chips or software.
    pub crypto: Crypto,
    /// The census build's instructions for the whole block.
    pub block_instructions: u64,
    /// Per operation, in [`Op::ALL`] order.
    pub ops: Vec<OpCost>,
}

fn decode_calls(public: &[u8]) -> Option<[u32; OPS]> {
    let words = public.get(PUBLIC_VALUES..PRECOMPILE_CENSUS_PUBLIC_VALUES)?;
    let mut calls = [0u32; OPS];
    for (slot, word) in calls.iter_mut().zip(words.chunks_exact(4)) {
        *slot = u32::from_le_bytes(word.try_into().expect("4 bytes"));
    }
    Some(calls)
}

/// Runs the precompile census of a block the native run found valid.
pub fn run_precompile_census(
    run: &NativeRun,
    crypto: Crypto,
) -> Result<PrecompileCensus, VmRunError> {
    let spec = GuestSpec::block(Keccak::Ours, crypto).instrumented(Instrument::PrecompileCensus);
    let vm = Vm::new(spec.build()?, spec.public_values())?;
    let input = run.guest_input();
    let measure = |twice: u8| -> Result<([u32; OPS], u64), VmRunError> {
        // The operation to compute twice is read with the head, before any witness item.
        let twice = [twice];
        let mut items = vec![input[0].as_slice(), &twice];
        items.extend(input[1..].iter().map(Vec::as_slice));
        let (public, metering) = vm.metered_items(&items)?;
        check_public(&public, run)?;
        let calls = decode_calls(&public).ok_or(VmRunError::CensusMissing {
            got: public.len(),
            expected: PRECOMPILE_CENSUS_PUBLIC_VALUES,
        })?;
        Ok((calls, metering.instructions))
    };
    eprintln!(
        "precompile census of block {} (crypto {}): base run ...",
        run.data.id,
        crypto.name()
    );
    let (calls, base) = measure(NONE_TWICE)?;
    let mut ops = Vec::with_capacity(OPS);
    for (op, &n) in Op::ALL.iter().zip(&calls) {
        let instructions = if n == 0 {
            None
        } else {
            eprintln!("  {} twice ...", op.name());
            let (again, doubled) = measure(*op as u8)?;
            debug_assert_eq!(again, calls);
            Some(doubled.saturating_sub(base))
        };
        ops.push(OpCost {
            op: op.name(),
            calls: n,
            instructions,
        });
    }
    Ok(PrecompileCensus {
        block: run.data.id.clone(),
        crypto,
        block_instructions: base,
        ops,
    })
}
