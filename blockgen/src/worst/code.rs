//! The code categories' workloads: codes of the largest size a fork allows, read cold from
//! other accounts (`EXTCODESIZE`, `EXTCODECOPY`), called cold and made to jump (the one way
//! to have a code's jump destinations found), or created (`CREATE2` of the largest initcode). Each is made at EIP-170's 24 KiB under every fork, and at EIP-7954's 64 KiB from
//! Amsterdam, where a code that size first exists.

use super::builders::{codes_of, counted, grow, many, state_accounts};
use super::pricing::Pricing;
use super::{account, Workload, WorstError, ACCOUNTS};
use crate::asm::{
    Asm, ADD, CALL, CREATE2, DUP1, DUP4, DUP6, EXTCODECOPY, EXTCODESIZE, GAS, ISZERO, JUMP,
    JUMPDEST, JUMPI, MCOPY, MSTORE, MSTORE8, POP, PUSH1, STOP,
};
use crate::Fork;
use alloy_primitives::Bytes;

/// Refuses a workload of `len` bytes under a fork whose `limit` (its code or initcode size)
/// is smaller: only EIP-7954 (Amsterdam) raises them.
fn allowed(
    category: &'static str,
    fork: Fork,
    len: usize,
    limit: fn(&Pricing) -> usize,
) -> Result<(), WorstError> {
    if len > limit(&Pricing::of(fork)) {
        return Err(WorstError::NotUnderFork {
            category,
            fork,
            needs: "EIP-7954's 64 KiB codes (Amsterdam)",
        });
    }
    Ok(())
}

/// Cold `EXTCODESIZE` of distinct contracts of `len` bytes.
pub(super) fn extcodesize(
    (name, fork): (&'static str, Fork),
    gas: u64,
    len: usize,
) -> Result<Workload, WorstError> {
    allowed(name, fork, len, Pricing::max_code)?;
    state_accounts((name, fork), gas, &[EXTCODESIZE, POP], codes_of(len))
}

/// Cold `EXTCODECOPY` of all of distinct contracts of `len` bytes, into memory grown first.
pub(super) fn extcodecopy(
    (name, fork): (&'static str, Fork),
    gas: u64,
    len: usize,
) -> Result<Workload, WorstError> {
    allowed(name, fork, len, Pricing::max_code)?;
    let body = |a: &mut Asm| {
        a.push(len as u64).push(0).push(0).ops(&[DUP4, EXTCODECOPY]);
        a.push(1).ops(&[ADD]);
    };
    // Three pushes, DUP4, the copy, PUSH1 and ADD.
    let cost = Pricing::of(fork).cold_extcodecopy(len) + 3 * 4 + 6;
    let setup = grow(len as u64 - 1);
    over_codes(name, gas, (&body, cost), &setup, codes_of(len))
}

/// A counter loop of `body` (each round `cost` gas) after `setup`, over the accounts
/// `ACCOUNTS + i`, each in genesis with 1 wei and `code(i)`.
fn over_codes(
    name: &'static str,
    gas: u64,
    (body, cost): (&dyn Fn(&mut Asm), u64),
    setup: &dyn Fn(&mut Asm),
    code: impl Fn(u64) -> Bytes,
) -> Result<Workload, WorstError> {
    let (mut workload, n) = counted((name, ACCOUNTS), gas, body, (cost, 2), setup)?;
    for (i, address) in many(n) {
        workload.accounts.insert(address, account(1, code(i)));
    }
    Ok(workload)
}

/// Cold `CALL`s of distinct contracts of `len` bytes, each of which jumps at once (so its
/// jump destinations are found: every byte but the first few a `JUMPDEST`) and stops.
pub(super) fn call(
    (name, fork): (&'static str, Fork),
    gas: u64,
    len: usize,
) -> Result<Workload, WorstError> {
    calls((name, fork), gas, len, &[JUMPDEST])
}

/// [`call`] of codes whose body repeats `PUSH1 0x5b JUMPDEST`: every word holds a `PUSH`, so
/// no word of it can be scanned whole, and every other byte that looks like a `JUMPDEST` is a
/// push's immediate (the byte scan's dearest mix, where [`call`]'s all-`JUMPDEST` body is the
/// word scan's).
pub(super) fn call_pushes(
    (name, fork): (&'static str, Fork),
    gas: u64,
    len: usize,
) -> Result<Workload, WorstError> {
    calls((name, fork), gas, len, &[PUSH1, JUMPDEST, JUMPDEST])
}

/// Cold `CALL`s of distinct [`jumping`] codes of `len` bytes whose body repeats `fill`.
fn calls(
    (name, fork): (&'static str, Fork),
    gas: u64,
    len: usize,
    fill: &[u8],
) -> Result<Workload, WorstError> {
    allowed(name, fork, len, Pricing::max_code)?;
    let body = |a: &mut Asm| {
        // retSize, retOffset, argsSize, argsOffset, value; the counter as the address; GAS.
        a.push(0)
            .push(0)
            .push(0)
            .push(0)
            .push(0)
            .ops(&[DUP6, GAS, CALL, POP]);
        a.push(1).ops(&[ADD]);
    };
    // Five pushes, DUP6, GAS, the call (the callee runs 17 gas), POP, PUSH1 and ADD.
    let cost = Pricing::of(fork).cold_account() + 5 * 3 + 3 + 2 + JUMPING_GAS + 2 + 3 + 3;
    over_codes(name, gas, (&body, cost), &|_| {}, |i| jumping(len, i, fill))
}

/// What [`jumping`]'s code runs: `PUSH8`, `POP`, `PUSH1`, `JUMP`, `JUMPDEST`, `STOP`.
const JUMPING_GAS: u64 = 3 + 2 + 3 + 8 + 1;

/// A code of `len` bytes unique to `i` that pushes `i`, jumps over a `STOP` to a `JUMPDEST`
/// and stops; the rest `fill` repeated (all `JUMPDEST`s: the byte scan's dearest byte).
fn jumping(len: usize, i: u64, fill: &[u8]) -> Bytes {
    let mut code: Vec<u8> = fill.iter().copied().cycle().take(len).collect();
    let head = [
        &[PUSH1 + 7][..],
        &i.to_be_bytes(),
        &[POP, PUSH1, 14, JUMP, STOP, JUMPDEST, STOP],
    ]
    .concat();
    code[..head.len()].copy_from_slice(&head);
    code.into()
}

/// `CREATE2` of `len` bytes of initcode (analysed and hashed) that stops at once: an empty
/// runtime, a new account each (the counter is the salt).
pub(super) fn create2(
    (name, fork): (&'static str, Fork),
    gas: u64,
    len: usize,
) -> Result<Workload, WorstError> {
    allowed(name, fork, len, Pricing::max_initcode)?;
    let body = |a: &mut Asm| {
        a.ops(&[DUP1])
            .push(len as u64)
            .push(0)
            .push(0)
            .ops(&[CREATE2, ISZERO]);
        a.push_label("fail").ops(&[JUMPI]).push(1).ops(&[ADD]);
    };
    // Memory: `len` bytes of JUMPDESTs (one word, doubled by MCOPY), then STOP first.
    let setup = |a: &mut Asm| {
        a.push32(alloy_primitives::B256::repeat_byte(0x5b))
            .push(0)
            .ops(&[MSTORE]);
        let mut done = 32;
        while done < len as u64 {
            let copy = done.min(len as u64 - done);
            a.push(copy).push(0).push(done).ops(&[MCOPY]);
            done += copy;
        }
        a.push(0).push(0).ops(&[MSTORE8]);
    };
    // The opcodes around CREATE2 cost 37.
    let cost = Pricing::of(fork).create2(len) + 40;
    Ok(counted((name, 0), gas, &body, (cost, 1), &setup)?.0)
}
