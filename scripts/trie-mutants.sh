#!/usr/bin/env bash
# Shows that the trie's differential test (mpt/tests/differential.rs) catches each planted bug.
#
# mpt has one test-only feature per mutant (`plant-*`, mpt/Cargo.toml): each plants one bug at
# the exact spot of a fast path that can break roots silently. This builds the clean crate and
# each mutant, runs the differential test on each, and prints one line per build:
#
#   clean: passes (N cases)
#   plant-mask: caught (N failures)
#
# It exits non-zero unless the clean build passes and every mutant fails the test with at least
# one failing case (a mutant that does not even build counts as not caught).
#
# mpt is built with its debug assertions off here (a package override of the dev profile, so
# nothing else is rebuilt): one of them cross-checks the patched branch RLP and would otherwise
# panic first, and the guest runs without them. So a catch here is the differential's own
# comparisons (roots against alloy-trie, answers against tiny-keccak). Set
# TRIE_MUTANTS_ASSERTIONS=1 to keep them on. HOSTILE_CASES / HOSTILE_SEED pass through to the
# test; extra arguments go to cargo (e.g. --release).
set -uo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/stateless-verifier/target}"
export CARGO_INCREMENTAL=0
export CARGO_TERM_COLOR=never

config=()
if [ "${TRIE_MUTANTS_ASSERTIONS:-0}" != 1 ]; then
  config=(--config 'profile.dev.package.mpt.debug-assertions=false'
          --config 'profile.release.package.mpt.debug-assertions=false')
fi
MUTANTS=(plant-mask plant-stale-slot plant-cursor plant-memo-prefix)

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Runs the differential test with the given features; leaves its output in $log and prints its
# exit status, then the failing cases, all cases and the failures found by a check (not a
# panic), summed over the summary lines (only the status when there is none: no test ran).
run() {
  cargo test -p mpt --locked "${config[@]}" "$@" --test differential -- --nocapture \
    >"$log" 2>&1
  local rc=$?
  sed -n 's/^differential\[[a-z]*\]: \([0-9]*\) of \([0-9]*\) cases failed (\([0-9]*\) by a check.*/\1 \2 \3/p' "$log" \
    | awk -v rc="$rc" 'BEGIN { f = 0; n = 0; c = 0; lines = 0 }
                       { f += $1; n += $2; c += $3; lines++ }
                       END { if (lines) print rc, f, n, c; else print rc }'
}

status=0
read -r rc failures cases checked < <(run "$@")
if [ "$rc" = 0 ] && [ "${failures:-1}" = 0 ]; then
  echo "clean: passes ($cases cases)"
else
  echo "clean: FAILS (exit $rc, ${failures:-no} failures): the harness must pass unplanted"
  tail -n 30 "$log"
  status=1
fi

for mutant in "${MUTANTS[@]}"; do
  read -r rc failures cases checked < <(run --features "$mutant" "$@")
  if [ "$rc" != 0 ] && [ "${failures:-0}" -gt 0 ]; then
    echo "$mutant: caught ($failures failures: $checked by a check, $((failures - checked)) by a panic)"
  elif [ -z "${failures:-}" ]; then
    echo "$mutant: NOT CAUGHT (no test ran; exit $rc)"
    tail -n 30 "$log"
    status=1
  else
    echo "$mutant: NOT CAUGHT (exit $rc, $failures of $cases cases failed)"
    status=1
  fi
done
exit $status
