//! A runaway guest is stopped and named, never waited on: execution under an instruction
//! budget ends a guest still running then as over budget, and gives exactly the unbounded run's
//! answer (public values, or the verdict) when the guest ends within it; the VM sample reports
//! a case over budget as such (neither passed nor failed), each case as it ends.

use host::ef_tests::vm::run_sample_with;
use prover::guest::{Crypto, GuestSpec, Keccak};
use prover::vm::{Vm, VmError};

fn devnet() -> host::native::NativeRun {
    let blocks = tests::project_blocks_dir();
    host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap()
}

#[test]
fn a_guest_is_stopped_at_its_budget_and_answers_within_it() {
    let native = devnet();
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let vm = Vm::new(spec.build().unwrap(), spec.public_values()).unwrap();
    let input = native.guest_input();
    let items = prover::vm::slices(&input);
    let (public, metering) = vm.metered_items(&items).unwrap();
    let count = metering.instructions;
    // Within the budget, to the instruction: the unbounded run's public values.
    for budget in [count, count + 1, 10 * count] {
        assert_eq!(
            vm.execute_items_within(&items, Some(budget)).unwrap(),
            public,
            "budget {budget} of {count}"
        );
    }
    // Short of it: stopped there, named with the count reached.
    for budget in [1, count / 2, count - 2] {
        match vm.execute_items_within(&items, Some(budget)) {
            Err(VmError::OverBudget(n)) => assert_eq!(n, budget),
            other => panic!("budget {budget} of {count}: {other:?}"),
        }
    }
    let why = VmError::OverBudget(count / 2).to_string();
    assert!(why.contains(&(count / 2).to_string()), "{why}");

    // A block the guest rejects: its verdict, within the budget as without one.
    let mut tampered = input.clone();
    let head = &mut tampered[0];
    // The block's frame: its length (4 bytes), then `rlp([header, ...])`, whose two list heads
    // (3 bytes each) and the hash's string head (1 byte) come before the parent hash.
    head[4 + 7 + 3] ^= 1;
    let items = prover::vm::slices(&tampered);
    let unbounded = vm.execute_items(&items).unwrap_err();
    // The verdict of the native run on the same input: the parent hash names no header of the
    // witness, which is insufficient (it says nothing about the block).
    let native_error = program::GuestInput::from_items(&tampered)
        .unwrap()
        .validate()
        .unwrap_err();
    assert!(
        matches!(native_error, program::ValidationError::ParentHash { .. }),
        "{native_error}"
    );
    assert_eq!(native_error.verdict(), program::Verdict::Insufficient);
    assert!(
        matches!(unbounded, VmError::Refused(program::Verdict::Insufficient)),
        "{unbounded}"
    );
    let within = vm
        .execute_items_within(&items, Some(10 * count))
        .unwrap_err();
    assert_eq!(within.to_string(), unbounded.to_string());
}

#[test]
fn the_vm_sample_reports_a_case_over_budget_as_it_ends() {
    let cases = tests::init_collision_cases(2);
    let mut ended = Vec::new();
    let sample = run_sample_with(&cases, Some(10_000), |end| {
        ended.push((end.index, end.failures.len(), end.over_budget.len()))
    })
    .unwrap_or_else(|e| panic!("{e}"));
    // Both guests of each case (the block guest and the standard guest) stopped at 10,000.
    assert!(sample.failures.is_empty(), "{:#?}", sample.failures);
    assert_eq!(sample.over_budget.len(), 4, "{:#?}", sample.over_budget);
    assert!(sample.over_budget[0].contains("10000 instructions"));
    assert_eq!((sample.cases_failed, sample.cases_over_budget), (0, 2));
    assert_eq!((sample.valid_blocks, sample.standard_blocks), (0, 0));
    assert_eq!(ended, vec![(0, 0, 2), (1, 0, 2)]);
    // With room, the same cases agree.
    let sample = run_sample_with(&cases, Some(1_000_000_000), |_| {}).unwrap();
    assert!(sample.failures.is_empty() && sample.over_budget.is_empty());
    assert_eq!((sample.valid_blocks, sample.standard_blocks), (2, 2));
}
