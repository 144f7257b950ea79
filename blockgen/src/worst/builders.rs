//! The builders the worst-case categories share: a loop contract called by as many
//! transactions as the gas takes, with a precompile call, a counter over fresh slots or
//! accounts, or a plain body; and the transaction shapes of their own (calldata).

use std::collections::BTreeMap;

use alloy_primitives::{address, Address, Bytes, U256};

use super::contracts::{static_call, Looped, STATIC_CALL_GAS};
use super::pricing::Pricing;
use super::{account, inputs, split, Tx, Workload, WorstError, ACCOUNTS, TARGET};
use crate::asm::{Asm, ADD, DUP1, MSTORE8};
use crate::Fork;

/// Where the calldata categories send their transactions (no code).
const SINK: Address = address!("5eed00000000000000000000000000000000dead");

/// Transactions calling [`TARGET`] running `looped`, each with calldata `input(i)`; the
/// contract in genesis. A last transaction too small for one round of the loop is dropped.
pub(super) fn calls(
    name: &'static str,
    gas: u64,
    looped: &Looped,
    input: impl Fn(usize) -> Vec<u8>,
) -> Result<Workload, WorstError> {
    let needs = 40_000 + looped.reserve() + looped.copies as u64 * 50;
    let txs: Vec<Tx> = split(gas)
        .into_iter()
        .filter(|&g| g >= needs)
        .enumerate()
        .map(|(i, gas)| Tx {
            to: TARGET,
            input: input(i),
            gas,
        })
        .collect();
    if txs.is_empty() {
        return Err(WorstError::TooLittleGas {
            category: name,
            gas,
            needs,
        });
    }
    let mut accounts = BTreeMap::new();
    accounts.insert(TARGET, account(0, looped.code()));
    Ok(Workload {
        accounts,
        txs,
        out_of_gas: !looped.checked,
    })
}

/// A loop of `unroll` calls to precompile `number` on `piece` repeated `copies` times.
pub(super) fn precompile(
    name: &'static str,
    (fork, gas): (Fork, u64),
    number: u16,
    (piece, copies): (Vec<u8>, usize),
    out_len: u64,
    unroll: usize,
) -> Result<Workload, WorstError> {
    let (cost, _) = inputs::call(fork, number, &piece.repeat(copies))?;
    let in_len = (piece.len() * copies) as u64;
    let to = inputs::address(number);
    let body =
        |a: &mut Asm| static_call(a, to, cost, in_len, (in_len.next_multiple_of(32), out_len));
    // A call passes at most all but a 64th of the gas left (EIP-150): for the precompile to
    // get its `cost`, the caller must have `cost + cost / 63` left at the call.
    let looped = Looped {
        data: &piece,
        copies,
        counter: false,
        setup: &|_| {},
        body: &body,
        body_gas: cost + cost.div_ceil(63) + STATIC_CALL_GAS,
        unroll,
        checked: true,
    };
    calls(name, gas, &looped, |_| Vec::new())
}

/// A loop over `body` with a counter on the stack (one step per body), from `base`;
/// transaction `i` starts the counter where the previous one's could have ended. Returns the
/// workload and how many counter values the transactions may reach (`base..base + n`).
pub(super) fn counted(
    (name, base): (&'static str, u64),
    gas: u64,
    body: &dyn Fn(&mut Asm),
    (body_gas, unroll): (u64, usize),
    setup: &dyn Fn(&mut Asm),
) -> Result<(Workload, u64), WorstError> {
    let looped = Looped {
        data: &[],
        copies: 0,
        counter: true,
        setup,
        body,
        body_gas,
        unroll,
        checked: true,
    };
    // How many bodies each transaction's gas could pay for: its share of the counter.
    let shares: Vec<u64> = split(gas).iter().map(|g| g / body_gas + 1).collect();
    let starts: Vec<u64> = shares
        .iter()
        .scan(base, |next, share| {
            let start = *next;
            *next += share;
            Some(start)
        })
        .collect();
    let workload = calls(name, gas, &looped, |i| {
        U256::from(starts[i]).to_be_bytes::<32>().to_vec()
    })?;
    let reach = shares[..workload.txs.len()].iter().sum();
    Ok((workload, reach))
}

/// A plain loop over `body`.
pub(super) fn plain(
    name: &'static str,
    gas: u64,
    body: &dyn Fn(&mut Asm),
    (body_gas, unroll, checked): (u64, usize, bool),
    setup: &dyn Fn(&mut Asm),
) -> Result<Workload, WorstError> {
    let looped = Looped {
        data: &[],
        copies: 0,
        counter: false,
        setup,
        body,
        body_gas,
        unroll,
        checked,
    };
    calls(name, gas, &looped, |_| Vec::new())
}

/// `MSTORE8(at, 0)`: memory grown to `at + 1` bytes before the loop.
pub(super) fn grow(at: u64) -> impl Fn(&mut Asm) {
    move |a: &mut Asm| {
        a.push(0).push(at).ops(&[MSTORE8]);
    }
}

/// The accounts `ACCOUNTS + i` for `i < n`.
pub(super) fn many(n: u64) -> impl Iterator<Item = (u64, Address)> {
    (0..n).map(|i| (i, Address::left_padding_from(&(ACCOUNTS + i).to_be_bytes())))
}

/// Counter body: `op(counter)` then `counter += 1`, where `op` consumes a copy of it.
pub(super) fn on_counter(ops: &'static [u8]) -> impl Fn(&mut Asm) {
    move |a: &mut Asm| {
        a.ops(&[DUP1]).ops(ops).push(1).ops(&[ADD]);
    }
}

/// What [`on_counter`]'s own opcodes cost (`DUP1`, `PUSH1`, `ADD`, and the `POP` after the
/// op).
pub(super) const ON_COUNTER_GAS: u64 = 3 + 3 + 3 + 2;

/// A counter loop of `ops` (consuming the counter's copy: a cold account access, then `POP`)
/// over the accounts `ACCOUNTS + i`, each in genesis with 1 wei and `code(i)`.
pub(super) fn state_accounts(
    (name, fork): (&'static str, Fork),
    gas: u64,
    ops: &'static [u8],
    code: impl Fn(u64) -> Bytes,
) -> Result<Workload, WorstError> {
    let body_gas = Pricing::of(fork).cold_account() + ON_COUNTER_GAS;
    let (mut workload, n) = counted(
        (name, ACCOUNTS),
        gas,
        &on_counter(ops),
        (body_gas, 8),
        &|_| {},
    )?;
    for (i, address) in many(n) {
        workload.accounts.insert(address, account(1, code(i)));
    }
    Ok(workload)
}

/// Codes of `len` bytes, one unique to each `i`: its index, then `JUMPDEST`s (jump analysis
/// on every byte).
pub(super) fn codes_of(len: usize) -> impl Fn(u64) -> Bytes {
    move |i| {
        let mut code = vec![0x5b; len];
        code[..8].copy_from_slice(&i.to_be_bytes());
        code.into()
    }
}

pub(super) fn storage(
    name: &'static str,
    gas: u64,
    body: &dyn Fn(&mut Asm),
    body_gas: u64,
) -> Result<Workload, WorstError> {
    // Rounds of at most ~48 k gas (8 bodies at Osaka's prices, 3 cold SSTOREs at EIP-8038's):
    // the loop stops a round early, so a round must be small beside a transaction.
    let unroll = (48_000 / body_gas).clamp(1, 8) as usize;
    let (mut workload, n) = counted((name, 0), gas, body, (body_gas, unroll), &|_| {})?;
    let target = workload.accounts.get_mut(&TARGET).expect("calls() adds it");
    target.storage = (0..n).map(|i| (U256::from(i), U256::from(1))).collect();
    Ok(workload)
}

/// Transactions of calldata `byte` only, each as long as its share of the gas buys under the
/// fork's intrinsic gas and calldata floor (EIP-7623: 10 gas a zero byte, 40 another;
/// EIP-7976: 64 either), to an account without code.
pub(super) fn calldata(fork: Fork, gas: u64, byte: u8) -> Result<Workload, WorstError> {
    let pricing = Pricing::of(fork);
    let tx_gas = |len: u64| pricing.call_tx_gas(&vec![byte; len as usize]);
    // The larger of two linear prices: convex, its slope at length ~1 KiB the steepest, so
    // `base + len * per_byte` bounds it from above.
    let base = tx_gas(0);
    let per_byte = tx_gas(1024) - tx_gas(1023);
    let txs = split(gas)
        .into_iter()
        .map(|g| {
            let len = (g - base) / per_byte;
            Tx {
                to: SINK,
                input: vec![byte; len as usize],
                gas: tx_gas(len),
            }
        })
        .collect();
    Ok(Workload {
        txs,
        ..Default::default()
    })
}

/// MODEXP with a 32-byte base, an odd (or even) 32-byte modulus and the longest all-ones
/// exponent that still costs the minimum price.
pub(super) fn modexp_min(fork: Fork, even: bool) -> Result<Vec<u8>, WorstError> {
    let floor = inputs::call(fork, 5, &inputs::modexp(32, &[0xff], 32, even))?.0;
    let mut best = inputs::modexp(32, &[0xff], 32, even);
    for n in 2..=32 {
        let input = inputs::modexp(32, &vec![0xff; n], 32, even);
        if inputs::call(fork, 5, &input)?.0 > floor {
            break;
        }
        best = input;
    }
    Ok(best)
}
