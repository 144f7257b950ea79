#!/usr/bin/env bash
# The hostile-input harnesses (README, "Hostile inputs"), long: each runs HOSTILE_CASES times
# its CI size from HOSTILE_SEED (a fresh seed each run unless given), and the trie mutants are
# checked again: mpt in release mode (a small crate), the `tests` harnesses in the test profile
# `cargo test --workspace` already built (a release build of their dependencies takes longer
# than the run). Takes about half an hour on 2 cores; prints each harness's
# own figures and a line per harness. Exits non-zero if any found a difference.
#
#   scripts/hostile-long.sh                      # HOSTILE_CASES=20, a seed from the clock
#   HOSTILE_CASES=100 HOSTILE_SEED=0x51 scripts/hostile-long.sh
set -uo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/stateless-verifier/target}"
export CARGO_INCREMENTAL=0
export HOSTILE_CASES="${HOSTILE_CASES:-20}"
export HOSTILE_SEED="${HOSTILE_SEED:-$(date +%s)}"
echo "HOSTILE_CASES=$HOSTILE_CASES HOSTILE_SEED=$HOSTILE_SEED"

status=0
run() {
  local name=$1
  shift
  local start=$SECONDS
  echo
  echo "=== $name: $*"
  if "$@"; then
    echo "=== $name: no difference ($((SECONDS - start)) s)"
  else
    echo "=== $name: FAILED ($((SECONDS - start)) s): replay with HOSTILE_CASES=$HOSTILE_CASES HOSTILE_SEED=$HOSTILE_SEED"
    status=1
  fi
}

run "trie differential" cargo test --release -p mpt --test differential --locked -- --nocapture
run "crypto differential" cargo test --workspace --test hostile --locked -- --nocapture
run "standard-input mutation" cargo test --workspace --test standard_io --locked mutation -- --nocapture
run "trie mutants" bash scripts/trie-mutants.sh --release
exit $status
