//! Each case's last block as a native run of the block guest's kind: what `host worst` meters of
//! the execution-spec-tests benchmark suite, whose cases spend their gas in their last block
//! (any block before it is a small setup block).
//!
//! The case runs as `host ef-tests` runs it (so the block is validated on top of the chain its
//! earlier blocks made, with the case's own chain config); its last block is then validated
//! again as a block on disk would be, with the witness the case run gave it, so that it meters
//! exactly as `host run` would meter that block.

use chaindata::blocks::BlockData;
use program::{ChainConfig, ExecutionWitness};

use super::vm::{run_one, SampledCase};
use super::{Outcome, Validated};
use crate::native::NativeRun;

/// The last block of `case` (one of [`super::vm::all_cases`]), validated natively, or why there
/// is none (the case fails, or validates no block).
pub fn last_block(case: &SampledCase) -> Result<NativeRun, String> {
    let mut last: Option<(Vec<u8>, ExecutionWitness, ChainConfig)> = None;
    let mut keep = |block: Validated<'_>| {
        last = Some((
            block.block.to_vec(),
            block.witness.clone(),
            block.chain.clone(),
        ));
    };
    for result in run_one(case, &mut keep)? {
        if let Outcome::Failed(reason) = result.outcome {
            return Err(format!("the case fails: {reason}"));
        }
    }
    let (rlp, witness, chain) = last.ok_or("the case validated no block")?;
    let data = BlockData::new(short_name(&case.name), rlp, witness, Vec::new())
        .map_err(|e| format!("its last block: {e}"))?;
    Ok(prover::native::validate(data, chain))
}

/// A benchmark case's name without what every case of the suite shares: the test file's path,
/// the fork, the fixture kind and the gas value (`test_x.py::test_y[fork_Osaka-blockchain_test-
/// opcode_ADDRESS-benchmark-gas-value_10M]` is `test_y[opcode_ADDRESS]`).
pub fn short_name(case: &str) -> String {
    let name = case.rsplit("::").next().unwrap_or(case);
    let Some((function, rest)) = name.split_once('[') else {
        return name.to_owned();
    };
    let params = rest.strip_suffix(']').unwrap_or(rest);
    let params = params
        .split("-benchmark-gas-value_")
        .next()
        .unwrap_or(params);
    let params = match params.split_once("blockchain_test") {
        Some((_, after)) => after.trim_start_matches('-'),
        None => params,
    };
    if params.is_empty() {
        function.to_owned()
    } else {
        format!("{function}[{params}]")
    }
}

#[cfg(test)]
mod tests {
    use super::short_name;

    #[test]
    fn a_benchmark_case_keeps_only_what_sets_it_apart() {
        let name = |params: &str| {
            format!("tests/benchmark/compute/instruction/test_call_context.py::test_call_frame_context_ops[{params}]")
        };
        assert_eq!(
            short_name(&name(
                "fork_Osaka-blockchain_test-opcode_ADDRESS-benchmark-gas-value_10M"
            )),
            "test_call_frame_context_ops[opcode_ADDRESS]"
        );
        assert_eq!(
            short_name(&name("fork_Osaka-blockchain_test-benchmark-gas-value_10M")),
            "test_call_frame_context_ops"
        );
        assert_eq!(short_name("plain_case"), "plain_case");
        assert_eq!(short_name("a.py::f[x-y]"), "f[x-y]");
    }
}
