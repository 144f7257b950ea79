//! The devnet's contracts, in EVM assembly.
//!
//! Hand-assembled rather than compiled: the project needs no Solidity toolchain, and every
//! byte is chosen to make the keccak work real: mapping slots are `keccak256(key ‖ slot)` over
//! 64 bytes of memory, CREATE2 addresses hash 85-byte preimages, logs carry 20-byte addresses
//! as topics. A tiny assembler resolves jump labels.

use std::collections::HashMap;

use alloy_primitives::{keccak256, Bytes, B256};

/// The ERC-20 event `Transfer(address,address,uint256)`'s topic.
pub fn transfer_topic() -> B256 {
    keccak256("Transfer(address,address,uint256)")
}

/// The factory's event `Deployed(address)`'s topic.
pub fn deployed_topic() -> B256 {
    keccak256("Deployed(address)")
}

// The opcodes used.
pub(crate) const STOP: u8 = 0x00;
pub(crate) const ADD: u8 = 0x01;
pub(crate) const SUB: u8 = 0x03;
pub(crate) const LT: u8 = 0x10;
pub(crate) const ISZERO: u8 = 0x15;
pub(crate) const SHA3: u8 = 0x20;
pub(crate) const CALLER: u8 = 0x33;
pub(crate) const CALLDATALOAD: u8 = 0x35;
pub(crate) const CODECOPY: u8 = 0x39;
pub(crate) const MSTORE: u8 = 0x52;
pub(crate) const SLOAD: u8 = 0x54;
pub(crate) const SSTORE: u8 = 0x55;
pub(crate) const JUMP: u8 = 0x56;
pub(crate) const JUMPI: u8 = 0x57;
pub(crate) const JUMPDEST: u8 = 0x5b;
pub(crate) const PUSH1: u8 = 0x60;
pub(crate) const PUSH2: u8 = 0x61;
pub(crate) const PUSH32: u8 = 0x7f;
pub(crate) const DUP1: u8 = 0x80;
pub(crate) const DUP2: u8 = 0x81;
pub(crate) const DUP3: u8 = 0x82;
pub(crate) const DUP4: u8 = 0x83;
pub(crate) const DUP6: u8 = 0x85;
pub(crate) const SWAP1: u8 = 0x90;
pub(crate) const LOG1: u8 = 0xa1;
pub(crate) const LOG2: u8 = 0xa2;
pub(crate) const LOG3: u8 = 0xa3;
pub(crate) const CREATE2: u8 = 0xf5;
pub(crate) const RETURN: u8 = 0xf3;
pub(crate) const REVERT: u8 = 0xfd;
pub(crate) const GT: u8 = 0x11;
pub(crate) const ADDRESS: u8 = 0x30;
pub(crate) const BALANCE: u8 = 0x31;
pub(crate) const EXTCODESIZE: u8 = 0x3b;
pub(crate) const EXTCODECOPY: u8 = 0x3c;
pub(crate) const EXTCODEHASH: u8 = 0x3f;
pub(crate) const BLOCKHASH: u8 = 0x40;
pub(crate) const SELFBALANCE: u8 = 0x47;
pub(crate) const NUMBER: u8 = 0x43;
pub(crate) const POP: u8 = 0x50;
pub(crate) const MLOAD: u8 = 0x51;
pub(crate) const MSTORE8: u8 = 0x53;
pub(crate) const MSIZE: u8 = 0x59;
pub(crate) const GAS: u8 = 0x5a;
pub(crate) const MCOPY: u8 = 0x5e;
pub(crate) const LOG0: u8 = 0xa0;
pub(crate) const LOG4: u8 = 0xa4;
pub(crate) const CALL: u8 = 0xf1;
pub(crate) const STATICCALL: u8 = 0xfa;
pub(crate) const INVALID: u8 = 0xfe;
pub(crate) const SELFDESTRUCT: u8 = 0xff;

/// Bytecode with named labels; `PUSH2 label` is patched when the label is placed.
#[derive(Default)]
pub(crate) struct Asm {
    code: Vec<u8>,
    labels: HashMap<&'static str, usize>,
    fixups: Vec<(usize, &'static str)>,
}

impl Asm {
    pub(crate) fn ops(&mut self, ops: &[u8]) -> &mut Self {
        self.code.extend_from_slice(ops);
        self
    }

    pub(crate) fn push1(&mut self, value: u8) -> &mut Self {
        self.ops(&[PUSH1, value])
    }

    pub(crate) fn push32(&mut self, value: B256) -> &mut Self {
        self.code.push(PUSH32);
        self.code.extend_from_slice(value.as_slice());
        self
    }

    /// `value` with the shortest `PUSHn` that holds it (`PUSH1 0` for zero).
    pub(crate) fn push(&mut self, value: u64) -> &mut Self {
        let bytes = value.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count().min(7);
        self.code.push(PUSH1 + (7 - skip) as u8);
        self.code.extend_from_slice(&bytes[skip..]);
        self
    }

    /// A 20-byte `value` with `PUSH20`.
    pub(crate) fn push_address(&mut self, value: alloy_primitives::Address) -> &mut Self {
        self.code.push(PUSH1 + 19);
        self.code.extend_from_slice(value.as_slice());
        self
    }

    /// `PUSH2 <label's offset>`.
    pub(crate) fn push_label(&mut self, label: &'static str) -> &mut Self {
        self.code.push(PUSH2);
        self.fixups.push((self.code.len(), label));
        self.code.extend_from_slice(&[0, 0]);
        self
    }

    /// Places `label` here (a `JUMPDEST`).
    pub(crate) fn label(&mut self, label: &'static str) -> &mut Self {
        self.labels.insert(label, self.code.len());
        self.ops(&[JUMPDEST])
    }

    /// Places `label` here without a `JUMPDEST` (data, not a jump target).
    pub(crate) fn data_label(&mut self, label: &'static str) -> &mut Self {
        self.labels.insert(label, self.code.len());
        self
    }

    /// `PUSH1 0 DUP1 REVERT` behind a `revert` label.
    fn revert_label(&mut self) -> &mut Self {
        self.label("revert").push1(0).ops(&[DUP1, REVERT])
    }

    pub(crate) fn finish(mut self) -> Bytes {
        for (at, label) in std::mem::take(&mut self.fixups) {
            let target = u16::try_from(self.labels[label]).expect("contracts are under 64 KiB");
            self.code[at..at + 2].copy_from_slice(&target.to_be_bytes());
        }
        self.code.into()
    }
}

/// A token: calldata `to ‖ amount` moves `amount` from the caller's balance to `to`'s.
/// Balances live at `keccak256(holder ‖ 0)`, as a Solidity `mapping(address => uint256)` at
/// slot 0; an insufficient balance reverts. Emits `Transfer(caller, to, amount)`.
pub fn token() -> Bytes {
    let mut a = Asm::default();
    a.push1(0x20).ops(&[CALLDATALOAD]); // [amount]
    a.ops(&[CALLER]).push1(0).ops(&[MSTORE]); // mem[0] = caller
    a.push1(0).push1(0x20).ops(&[MSTORE]); // mem[32] = 0 (the mapping's slot)
    a.push1(0x40).push1(0).ops(&[SHA3]); // [from_slot, amount]
    a.ops(&[DUP1, SLOAD]); // [from_balance, from_slot, amount]
    a.ops(&[DUP3, DUP2, LT]).push_label("revert").ops(&[JUMPI]);
    a.ops(&[DUP3, SWAP1, SUB, SWAP1, SSTORE]); // balance -= amount; [amount]
    a.push1(0).ops(&[CALLDATALOAD]); // [to, amount]
    a.ops(&[DUP1]).push1(0).ops(&[MSTORE]); // mem[0] = to
    a.push1(0x40).push1(0).ops(&[SHA3]); // [to_slot, to, amount]
    a.ops(&[DUP1, SLOAD, DUP4, ADD, SWAP1, SSTORE]); // balance += amount; [to, amount]
    a.ops(&[DUP2]).push1(0x40).ops(&[MSTORE]); // mem[64] = amount
    a.ops(&[CALLER]).push32(transfer_topic());
    a.push1(0x20).push1(0x40).ops(&[LOG3, STOP]);
    a.revert_label();
    a.finish()
}

/// A factory: calldata `salt` deploys a child with CREATE2, records it at slot `salt`, and
/// emits `Deployed(child)`. The child's constructor stores its creator at slot 0; its runtime
/// returns that slot.
pub fn factory() -> Bytes {
    let child = child_init();
    let len = u8::try_from(child.len()).expect("the child is small");
    let mut a = Asm::default();
    a.push1(len).push_label("child").push1(0).ops(&[CODECOPY]);
    a.push1(0).ops(&[CALLDATALOAD]).push1(len).push1(0).push1(0);
    a.ops(&[CREATE2]); // [child]
    a.ops(&[DUP1, ISZERO]).push_label("revert").ops(&[JUMPI]);
    a.ops(&[DUP1]).push1(0).ops(&[CALLDATALOAD, SSTORE]); // slots[salt] = child
    a.push32(deployed_topic())
        .push1(0)
        .push1(0)
        .ops(&[LOG2, STOP]);
    a.revert_label();
    a.data_label("child").ops(&child);
    a.finish()
}

/// The factory's child: constructor `slot0 = caller`, runtime returns slot 0.
fn child_init() -> Vec<u8> {
    let runtime = [
        PUSH1, 0, SLOAD, PUSH1, 0, MSTORE, PUSH1, 0x20, PUSH1, 0, RETURN,
    ];
    let mut init = vec![CALLER, PUSH1, 0, SSTORE];
    let offset = init.len() as u8 + 12;
    init.extend_from_slice(&[
        PUSH1,
        runtime.len() as u8,
        PUSH1,
        offset,
        PUSH1,
        0,
        CODECOPY,
        PUSH1,
        runtime.len() as u8,
        PUSH1,
        0,
        RETURN,
    ]);
    init.extend_from_slice(&runtime);
    init
}

/// A hash chain: calldata `n` sets `h₀ = caller`, `hᵢ₊₁ = keccak256(hᵢ)`, stores `hᵢ₊₁` at
/// slot `i` for `i < n`, and emits the last hash with topic `n`.
pub fn hasher() -> Bytes {
    let mut a = Asm::default();
    a.push1(0).ops(&[CALLDATALOAD]); // [n]
    a.ops(&[CALLER]).push1(0).ops(&[MSTORE]); // mem[0] = caller
    a.push1(0); // [i, n]
    a.label("loop");
    a.ops(&[DUP2, DUP2, LT, ISZERO])
        .push_label("end")
        .ops(&[JUMPI]);
    a.push1(0x20).push1(0).ops(&[SHA3]); // [h, i, n]
    a.ops(&[DUP1]).push1(0).ops(&[MSTORE]); // mem[0] = h
    a.ops(&[DUP2, SSTORE]); // slots[i] = h; [i, n]
    a.push1(1).ops(&[ADD]).push_label("loop").ops(&[JUMP]);
    a.label("end");
    a.ops(&[DUP2]).push1(0x20).push1(0).ops(&[LOG1, STOP]);
    a.finish()
}

/// Init code that deploys `runtime` unchanged (for a contract-creation transaction).
pub fn deployer(runtime: &[u8]) -> Bytes {
    let len = u16::try_from(runtime.len()).expect("small runtime");
    let mut a = Asm::default();
    a.ops(&[PUSH2]).ops(&len.to_be_bytes());
    a.ops(&[DUP1])
        .push_label("runtime")
        .push1(0)
        .ops(&[CODECOPY]);
    a.push1(0).ops(&[RETURN]);
    a.data_label("runtime").ops(runtime);
    a.finish()
}
