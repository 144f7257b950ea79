#!/usr/bin/env bash
# The GPU bundle's run (scripts/gpu-bundle.sh packs it): on a machine with the NVIDIA driver
# alone, generate the keys, prove devnet-small (the warm-up), then each mainnet block into one
# aggregated STARK, verify every proof against the pins, and write the figures.
#
#   run.sh [--out DIR] [--budget SECONDS] [--blocks "24171384 21882667"] [--no-standard]
#
# --budget (default 540: 9 minutes, which with a machine's start fits a 15-minute lease)
# bounds the whole run: every step runs under `timeout` with what is left, and a block whose
# predecessor took longer than what is left is skipped, said so, rather than started. With
# time to spare, the blocks' standard inputs (EIP-8025) are proved too (--no-standard: not).
# --blocks none proves only the warm-up.
#
# Writes DIR/results.json (one object per proof: segments, app proof and aggregation time,
# total, the GPU's peak memory, the proof's size, `host verify`'s verdict, and the host's own
# summary with the projection onto 1, 4 and 16 GPUs), DIR/<label>.prove.json, the proofs and
# each step's log.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/results"
budget=540
blocks="$(cat "$here/inputs/BLOCKS")"
standard=1
while (($#)); do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --blocks) blocks="$2"; shift 2 ;;
    --no-standard) standard=0; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ "$blocks" = none ] && blocks=""
mkdir -p "$out"
# This run's files only: a table or results.json never shows an earlier run's proof.
rm -f "$out"/results.json "$out"/*.prove.json "$out"/*.prove.log "$out"/*.verify.log \
  "$out"/*.proof "$out"/*.gpumem
backend=$(awk '$1 == "backend" { print $2 }' "$here/BUNDLE")
host="$here/bin/host"
export STATELESS_VERIFIER_GUESTS="$here/guests"
export STATELESS_VERIFIER_KEYS="${STATELESS_VERIFIER_KEYS:-$here/keys}"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
deadline=$((SECONDS + budget))
left() { echo $((deadline - SECONDS)); }
proved=()
declare -A verdicts
results="$out/results.json"
first=1
echo "[" > "$results"

echo "=== $(sed -n 's/^commit /commit /p' "$here/BUNDLE"), backend $backend, budget ${budget} s"
gpu=""
if command -v nvidia-smi >/dev/null 2>&1; then
  gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
fi
if [ -n "$gpu" ]; then
  echo "GPU: $gpu (name, driver, memory)"
elif [ "$backend" = gpu ]; then
  echo "nvidia-smi lists no GPU; asking the CUDA runtime (the bundle's launcher)"
else
  echo "no GPU: the CPU bundle proves on the CPU"
fi
# The GPU bundle's bin/host is a launcher: where the CUDA runtime finds no device it says why in
# one line and exits 2, and so does this run.
if ! version=$("$host" --version 2>&1); then
  echo "run.sh: $version" >&2
  echo "run.sh: no usable NVIDIA GPU here; this bundle proves only on one" >&2
  exit 3
fi
echo "$version"

# The GPU's peak memory while `host` runs: nvidia-smi sampled every 100 ms (MiB used on the
# whole device; a sampled peak, which can miss a spike shorter than that).
sampler=""
trap '[ -n "$sampler" ] && kill "$sampler" 2>/dev/null' EXIT
start_sampler() {
  : > "$out/$1.gpumem"
  if [ -n "$gpu" ]; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$out/$1.gpumem" 2>/dev/null &
    sampler=$!
  fi
}
stop_sampler() {
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null && wait "$sampler" 2>/dev/null
  sampler=""
  peak_of "$1"
}
# The largest numeric sample ("[N/A]" and the like left out), or nothing.
peak_of() { grep -sE '^ *[0-9]+ *$' "$out/$1.gpumem" | tr -d ' ' | sort -n | tail -1; }

# A top-level number of host's pretty JSON.
field() { sed -n "s/^  \"$2\": \([^,]*\),\{0,1\}$/\1/p" "$1" | head -1; }

# prove LABEL ARGS...: proves under what is left of the budget, verifies, records. Returns 1
# when the budget ran out.
last_total=0
prove() {
  local label="$1"; shift
  local verify_args=("$@")
  proved+=("$label")
  local proof="$out/$label.proof" json="$out/$label.prove.json"
  local limit
  limit=$(left)
  if ((limit < 20)); then
    echo "--- $label: skipped, ${limit} s left"
    return 1
  fi
  if ((last_total > limit)); then
    echo "--- $label: skipped: the last proof took ${last_total} s and ${limit} s are left (a smaller run: fewer blocks)"
    return 1
  fi
  echo "--- $label: host prove ${PROVE_ARGS[*]-} (at most ${limit} s)"
  start_sampler "$label"
  local t0=$SECONDS
  timeout --kill-after=10 "$limit" "$host" prove ${PROVE_ARGS[@]+"${PROVE_ARGS[@]}"} --out "$proof" --json "$json" 2>&1 | tee "$out/$label.prove.log" | grep --line-buffered -v '^  aggregation: .* \.\.\.$'
  local rc=${PIPESTATUS[0]}
  local peak
  peak=$(stop_sampler "$label")
  last_total=$((SECONDS - t0))
  local verdict="not verified" vrc=-1
  if ((rc == 0)); then
    # Against the pins: seconds. The verdict is the exit status (0: VALID; a standard proof's
    # 4, 5 and 6 print VALID for the proof and then what is wrong with its claim).
    timeout --kill-after=5 60 "$host" verify "$proof" ${verify_args[@]+"${verify_args[@]}"} \
      > "$out/$label.verify.log" 2>&1
    vrc=$?
    if ((vrc == 0)); then
      verdict=VALID
    else
      verdict="REFUSED (exit $vrc)"
    fi
    verdicts[$label]="$verdict"
    echo "    host verify: $verdict; $(grep -E 'VALID|INVALID|NOT|UNCHECKED' "$out/$label.verify.log" | tail -1)"
  elif ((rc == 124 || rc == 137)); then
    echo "    timed out after ${last_total} s: the budget is spent"
  else
    echo "    host prove failed (exit $rc): $out/$label.prove.log"
  fi
  ((first)) || echo "," >> "$results"
  first=0
  {
    printf '{"label": "%s", "exit": %d, "wall_s": %d, "gpu_peak_mib": %s, "verify": "%s", "verify_exit": %d' \
      "$label" "$rc" "$last_total" "${peak:-null}" "${verdict:-none}" "$vrc"
    if [ -s "$json" ] && ((rc == 0)); then
      printf ', "segments": %s, "app_s": %s, "aggregation_s": %s, "total_s": %s, "proof_bytes": %s, "summary": ' \
        "$(field "$json" segments)" "$(field "$json" app_s)" "$(field "$json" aggregation_s)" \
        "$(field "$json" total_s)" "$(field "$json" proof_bytes)"
      cat "$json"
    fi
    printf '}\n'
  } >> "$results"
  ((rc == 0))
}

finish() {
  echo "]" >> "$results"
  echo
  echo "=== results ($results), $((budget - $(left))) s of ${budget}:"
  printf '%-28s %8s %9s %9s %9s %10s %9s  %s\n' proof segments app_s agg_s total_s gpu_MiB bytes verify
  local label json verdict
  for label in ${proved[@]+"${proved[@]}"}; do
    json="$out/$label.prove.json"
    verdict="${verdicts[$label]:-not verified}"
    printf '%-28s %8s %9s %9s %9s %10s %9s  %s\n' "$label" "$(field "$json" segments)" \
      "$(field "$json" app_s | cut -c1-7)" "$(field "$json" aggregation_s | cut -c1-7)" \
      "$(field "$json" total_s | cut -c1-7)" "$(peak_of "$label")" \
      "$(field "$json" proof_bytes)" "$verdict"
  done
  exit "$1"
}

echo "=== 1. keys (app and aggregation) into $STATELESS_VERIFIER_KEYS"
t0=$SECONDS
if ! timeout --kill-after=10 "$(left)" "$host" keygen --program guest; then
  # (the budget is whole here: left > 0)
  echo "key generation failed or did not fit the budget"
  finish 1
fi
echo "    keys in $((SECONDS - t0)) s"

echo "=== 2. devnet-small, the warm-up"
PROVE_ARGS=(--block devnet-small --blocks-dir "$here/inputs")
prove devnet-small --chain "$here/inputs/devnet-small.chain.json" || finish 1

echo "=== 3. mainnet blocks: ${blocks:-none}"
status=0
for block in $blocks; do
  PROVE_ARGS=(--block "$block" --blocks-dir "$here/inputs")
  chain=()
  [ -f "$here/inputs/$block.chain.json" ] && chain=(--chain "$here/inputs/$block.chain.json")
  prove "$block" ${chain[@]+"${chain[@]}"} || { status=1; break; }
done

if ((standard && status == 0)) && [ -n "$blocks" ]; then
  echo "=== 4. the standard guest (EIP-8025) on the blocks' standard inputs, while time is left"
  if (($(left) > 20)) && timeout --kill-after=10 "$(left)" "$host" keygen --program standard; then
    last_total=0
    for block in $blocks; do
      PROVE_ARGS=(--stateless-input "$here/inputs/$block.ssz")
      prove "$block-standard" --request "$here/inputs/$block.ssz" || break
    done
  else
    echo "    no time left for the standard guest's keys"
  fi
fi
finish "$status"
