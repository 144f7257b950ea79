//! The worst-case blocks' contracts: one loop that spends a transaction's gas on one body.
//!
//! ```text
//! [PUSH1 0 CALLDATALOAD]                 the counter (state categories), from calldata word 0
//! CODECOPY(data → memory), `copies` times back to back
//! setup
//! loop: if GAS < reserve goto end        reserve: what `unroll` bodies may cost
//!       body × unroll
//!       goto loop
//! end:  STOP
//! fail: INVALID                          a body that sees a failed call jumps here
//! data
//! ```
//!
//! The gas check costs 33 gas per iteration, spread over `unroll` bodies; a loop without it
//! (`checked: false`) ends by running out of gas, which fails its transaction but still spends
//! all of it.

use alloy_primitives::{Address, Bytes};

use crate::asm::{Asm, CALLDATALOAD, CODECOPY, GAS, GT, ISZERO, JUMP, JUMPI, STATICCALL, STOP};

/// A loop contract's parts.
pub struct Looped<'a> {
    /// Copied to memory from offset 0, `copies` times back to back, before the loop.
    pub data: &'a [u8],
    /// How many copies of `data`.
    pub copies: usize,
    /// Whether the loop keeps a counter on the stack, from calldata word 0.
    pub counter: bool,
    /// Code run once before the loop.
    pub setup: &'a dyn Fn(&mut Asm),
    /// The body.
    pub body: &'a dyn Fn(&mut Asm),
    /// The most gas one body costs.
    pub body_gas: u64,
    /// Bodies per gas check.
    pub unroll: usize,
    /// Whether the loop checks the gas left (else it ends out of gas).
    pub checked: bool,
}

/// Gas the loop keeps back beyond `unroll` bodies.
const SLACK: u64 = 2_000;

impl Looped<'_> {
    /// The gas left below which the loop stops.
    pub fn reserve(&self) -> u64 {
        self.unroll as u64 * self.body_gas + SLACK
    }

    /// The contract's code.
    pub fn code(&self) -> Bytes {
        let mut a = Asm::default();
        if self.counter {
            a.push(0).ops(&[CALLDATALOAD]);
        }
        let len = self.data.len() as u64;
        for copy in 0..self.copies as u64 {
            a.push(len)
                .push_label("data")
                .push(copy * len)
                .ops(&[CODECOPY]);
        }
        (self.setup)(&mut a);
        a.label("loop");
        if self.checked {
            a.ops(&[GAS]).push(self.reserve()).ops(&[GT]);
            a.push_label("end").ops(&[JUMPI]);
        }
        for _ in 0..self.unroll {
            (self.body)(&mut a);
        }
        a.push_label("loop").ops(&[JUMP]);
        a.label("end").ops(&[STOP]);
        a.label("fail").ops(&[crate::asm::INVALID]);
        a.data_label("data").ops(self.data);
        a.finish()
    }
}

/// A call to precompile `to` with `gas`, input memory `[0, input_len)`, output to
/// `[out_at, out_at + out_len)`; a failed call jumps to `fail`.
pub fn static_call(a: &mut Asm, to: Address, gas: u64, input_len: u64, out: (u64, u64)) {
    let (out_at, out_len) = out;
    a.push(out_len).push(out_at).push(input_len).push(0);
    a.push_address(to).push(gas).ops(&[STATICCALL, ISZERO]);
    a.push_label("fail").ops(&[JUMPI]);
}

/// What [`static_call`] costs besides the precompile: a warm STATICCALL and the stack work.
pub const STATIC_CALL_GAS: u64 = 100 + 6 * 3 + 3 + 3 + 10;
