//! The code categories' workloads: codes of the largest size a fork allows, read cold from
//! other accounts (`EXTCODESIZE`, `EXTCODECOPY`) or created (`CREATE2` of the largest
//! initcode). Each is made at EIP-170's 24 KiB under every fork, and at EIP-7954's 64 KiB from
//! Amsterdam, where a code that size first exists.

use super::builders::{codes_of, counted, grow, many, state_accounts};
use super::pricing::Pricing;
use super::{account, Workload, WorstError, ACCOUNTS};
use crate::gen::asm::{
    Asm, ADD, CREATE2, DUP1, DUP4, EXTCODECOPY, EXTCODESIZE, ISZERO, JUMPI, MCOPY, MSTORE, MSTORE8,
    POP,
};
use crate::gen::Fork;

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
    let (mut workload, n) = counted((name, ACCOUNTS), gas, &body, (cost, 2), &setup)?;
    for (i, address) in many(n) {
        workload
            .accounts
            .insert(address, account(1, codes_of(len)(i)));
    }
    Ok(workload)
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
