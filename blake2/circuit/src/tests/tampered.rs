//! The chip's traces tampered with, one forgery per test, each refused by the stark backend's
//! constraint and bus debugger; the untouched traces pass it and prove.

use std::{borrow::BorrowMut, panic::AssertUnwindSafe};

use openvm_circuit::{arch::testing::VmChipTester, utils::test_cpu_engine};
use openvm_stark_backend::{
    p3_field::PrimeCharacteristicRing, p3_matrix::dense::RowMajorMatrix, prover::ProvingContext,
    StarkEngine,
};
use openvm_stark_sdk::config::baby_bear_poseidon2::BabyBearPoseidon2Config;
use rand::{rngs::StdRng, Rng, SeedableRng};

use super::{execute, prove, setup, Setup, F};
use crate::{
    op::{Blake2bOpCols, NUM_OP_COLS},
    round::{RoundCols, NUM_ROUND_COLS},
};

/// Two honest calls on random data, of 12 rounds (round rows 0 to 11) and 7 (rows 12 to 18;
/// rows 19 to 31 pad).
fn two_calls() -> Setup {
    let mut rng = StdRng::seed_from_u64(7904);
    let mut s = setup();
    for (rounds, v_ptr) in [(12, 0x1000), (7, 0x3000)] {
        let v: [u64; 16] = core::array::from_fn(|_| rng.random());
        let m: [u64; 16] = core::array::from_fn(|_| rng.random());
        execute(&mut s, &v, &m, rounds, v_ptr, 0x2000);
    }
    s
}

/// The [`two_calls`]' traces tampered by `op` (the first call's row) and `rounds` (each row of
/// the round trace): the AIRs and their traces, ready to check.
fn pranked(
    op: impl Fn(&mut Blake2bOpCols<F>),
    rounds: impl Fn(&mut [&mut RoundCols<F>]),
) -> VmChipTester<BabyBearPoseidon2Config> {
    let s = two_calls();
    s.tester
        .build()
        .load_and_prank_trace(s.harness, |trace: &mut RowMajorMatrix<F>| {
            op(trace.values[..NUM_OP_COLS].borrow_mut())
        })
        .load_periphery_and_prank_trace(s.round, |trace: &mut RowMajorMatrix<F>| {
            let mut rows: Vec<&mut RoundCols<F>> = trace
                .values
                .chunks_exact_mut(NUM_ROUND_COLS)
                .map(|row| row.borrow_mut())
                .collect();
            rounds(&mut rows)
        })
        .load_periphery((s.bitwise.air, s.bitwise))
        .finalize()
}

/// Whether the traces [`pranked`] by `op` and `rounds` satisfy every AIR's constraints on
/// every row, and balance every bus, as the stark backend's debugger checks them: what a proof
/// attests, checked exactly and without proving (seconds rather than the ~14 s a proof of these
/// traces takes). The debugger panics on the first violation it finds.
/// [`untampered_traces_verify`] shows it accepts the untouched traces, which also prove.
fn tampered(op: impl Fn(&mut Blake2bOpCols<F>), rounds: impl Fn(&mut [&mut RoundCols<F>])) -> bool {
    let tester = pranked(op, rounds);
    let (airs, ctxs): (Vec<_>, Vec<_>) = tester.air_ctxs.into_iter().unzip();
    let ctx = ProvingContext::new(ctxs.into_iter().enumerate().collect());
    let engine = test_cpu_engine();
    std::panic::catch_unwind(AssertUnwindSafe(|| engine.debug(&airs, &ctx))).is_ok()
}

fn flip(cell: &mut F) {
    *cell = F::ONE - *cell;
}

/// The debugger accepts the untouched traces, and they are proved and verified, so each
/// rejection below is the tampering's.
#[test]
fn untampered_traces_verify() {
    assert!(tampered(|_| {}, |_| {}));
    prove(two_calls());
}

#[test]
fn tampered_sum_limb_fails() {
    assert!(!tampered(|_| {}, |rows| rows[0].mix[0].a1[0] += F::ONE));
}

#[test]
fn tampered_carry_fails() {
    assert!(!tampered(
        |_| {},
        |rows| rows[1].mix[2].a2_carry[1] += F::ONE
    ));
}

#[test]
fn tampered_xor_output_fails() {
    assert!(!tampered(|_| {}, |rows| rows[2].mix[5].d1_xor[3] += F::ONE));
}

#[test]
fn tampered_rotation_bit_fails() {
    assert!(!tampered(|_| {}, |rows| flip(&mut rows[0].mix[7].b2_hi[2])));
}

#[test]
fn tampered_round_counter_fails() {
    assert!(!tampered(|_| {}, |rows| rows[1].remaining += F::ONE));
}

#[test]
fn tampered_schedule_fails() {
    assert!(!tampered(
        |_| {},
        |rows| {
            rows[3].sigma[3] = F::ZERO;
            rows[3].sigma[4] = F::ONE;
        }
    ));
}

/// The call ends a round early: the last flag moved up (its count is then 2, not 1).
#[test]
fn call_ended_early_fails() {
    assert!(!tampered(
        |_| {},
        |rows| {
            rows[10].is_last = F::ONE;
            rows[11].is_last = F::ZERO;
        }
    ));
}

/// A round skipped: the second row replaced by the third.
#[test]
fn skipped_round_fails() {
    assert!(!tampered(|_| {}, |rows| *rows[1] = *rows[2]));
}

#[test]
fn tampered_message_between_rounds_fails() {
    assert!(!tampered(|_| {}, |rows| rows[5].m[9][1] += F::ONE));
}

#[test]
fn tampered_state_between_rounds_fails() {
    assert!(!tampered(|_| {}, |rows| rows[6].v[3][2] += F::ONE));
}

/// A padding row turned into the start of a call nobody asked for.
#[test]
fn phantom_call_fails() {
    assert!(!tampered(
        |_| {},
        |rows| {
            rows[20].is_valid = F::ONE;
            rows[20].is_first = F::ONE;
            rows[20].is_last = F::ONE;
            rows[20].remaining = F::ONE;
            rows[20].sigma[0] = F::ONE;
        }
    ));
}

/// The two calls' last rows swapped: each call ends on the other's round.
#[test]
fn calls_spliced_fails() {
    assert!(!tampered(
        |_| {},
        |rows| {
            let (first, second) = rows.split_at_mut(18);
            core::mem::swap(&mut *first[11], &mut *second[0]);
        }
    ));
}

#[test]
fn tampered_pre_state_fails() {
    assert!(!tampered(|op| op.v_pre[5] += F::ONE, |_| {}));
}

#[test]
fn tampered_result_fails() {
    assert!(!tampered(|op| op.v_post[77] += F::ONE, |_| {}));
}

/// A count of zero claimed on both sides of the bus: no call of zero rounds can end.
#[test]
fn zero_rounds_fail() {
    assert!(!tampered(
        |op| op.rounds[0] = F::ZERO,
        |rows| rows[0].remaining = F::ZERO
    ));
}
