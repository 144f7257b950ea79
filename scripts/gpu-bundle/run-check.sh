#!/usr/bin/env bash
# Checks run.sh's own logic in seconds, with a stand-in for `host` (no build, no proof): the
# verdict comes from `host verify`'s exit status, results.json is JSON with one entry per
# proof, a run that has no time left skips what does not fit and ends within its budget, and a
# GPU bundle where the launcher finds no GPU stops with exit 3. CI runs it (.ci/run).
#
#   scripts/gpu-bundle/run-check.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A bundle around a stand-in host. FAKE_PROVE_S: seconds a proof takes; FAKE_STANDARD_EXIT:
# `host verify`'s status for a standard proof (4: the proof is sound, its claim is not);
# FAKE_NO_GPU: the launcher's refusal.
bundle() {
  local dir="$work/$1" backend="$2"
  mkdir -p "$dir/bin" "$dir/inputs"
  cp "$here/run.sh" "$dir/run.sh"
  printf 'backend %s\ncommit test\n' "$backend" > "$dir/BUNDLE"
  echo "1 2" > "$dir/inputs/BLOCKS"
  touch "$dir/inputs/devnet-small.chain.json" "$dir/inputs/1.ssz" "$dir/inputs/2.ssz"
  cat > "$dir/bin/host" <<'HOST'
#!/usr/bin/env bash
if [ -n "${FAKE_NO_GPU:-}" ]; then
  echo "error: this host is the GPU build and needs an NVIDIA GPU: no NVIDIA driver (libcuda.so.1) is installed" >&2
  exit 2
fi
case "$1" in
  --version) echo "host 0.1.0" ;;
  keygen) echo "keys for $*" ;;
  prove)
    while (($#)); do
      case "$1" in --out) out="$2"; shift ;; --json) json="$2"; shift ;; esac
      shift
    done
    sleep "${FAKE_PROVE_S:-0}"
    printf 'proof' > "$out"
    printf '{\n  "label": "x",\n  "segments": 3,\n  "app_s": 1.5,\n  "aggregation_s": 2.25,\n  "total_s": 4.0,\n  "proof_bytes": 5,\n  "projection": null\n}\n' > "$json"
    echo "proved" ;;
  verify)
    echo "proof $2 VALID (test)"
    if [ "$3" = --request ]; then
      echo "  the result: INVALID (proved)"
      exit "${FAKE_STANDARD_EXIT:-0}"
    fi ;;
esac
HOST
  chmod +x "$dir/bin/host"
  echo "$dir"
}

fail() { echo "run-check: $*" >&2; exit 1; }

# 1. Every proof verified; a standard proof whose claim is refused (exit 4) is not VALID.
dir=$(bundle all cpu)
FAKE_STANDARD_EXIT=4 "$dir/run.sh" --out "$work/out1" > "$work/log1" 2>&1 || true
python3 - "$work/out1/results.json" <<'PY' || { cat "$work/log1"; fail "results.json"; }
import json, sys
r = json.load(open(sys.argv[1]))
labels = [e["label"] for e in r]
assert labels == ["devnet-small", "1", "2", "1-standard", "2-standard"], labels
assert all(e["verify"] == "VALID" for e in r[:3]), r
assert all(e["verify"] == "REFUSED (exit 4)" and e["verify_exit"] == 4 for e in r[3:]), r
assert r[0]["segments"] == 3 and r[0]["summary"]["proof_bytes"] == 5, r[0]
PY
grep -q "2-standard .* REFUSED (exit 4)" "$work/log1" || { cat "$work/log1"; fail "the table's verdict"; }

# 2. A budget that holds the keys and the warm-up only: the blocks are skipped, said so, and
#    the run ends within its budget (exit 1: not everything was proved).
dir=$(bundle short cpu)
start=$SECONDS
code=0
FAKE_PROVE_S=3 "$dir/run.sh" --budget 22 --out "$work/out2" > "$work/log2" 2>&1 || code=$?
((code == 1)) || { cat "$work/log2"; fail "a short budget exits $code"; }
((SECONDS - start <= 24)) || fail "a 22 s budget took $((SECONDS - start)) s"
grep -q "^--- 1: skipped" "$work/log2" || { cat "$work/log2"; fail "no skip"; }
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert [e['label'] for e in r]==['devnet-small'], r" \
  "$work/out2/results.json" || fail "results.json of a short run"

# 3. A GPU bundle where the launcher finds no GPU: exit 3, the launcher's line shown.
dir=$(bundle nogpu gpu)
code=0
FAKE_NO_GPU=1 PATH="/usr/bin:/bin" "$dir/run.sh" --out "$work/out3" > "$work/log3" 2>&1 || code=$?
((code == 3)) || { cat "$work/log3"; fail "no GPU exits $code"; }
grep -q "needs an NVIDIA GPU" "$work/log3" || { cat "$work/log3"; fail "the launcher's line"; }

echo "run-check: 3 passed, 0 failed"
