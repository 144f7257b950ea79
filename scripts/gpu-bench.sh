#!/usr/bin/env bash
# Prove mainnet blocks end to end, aggregated, on an NVIDIA GPU: builds `host` with OpenVM's CUDA
# backend (`--features host/cuda`, needs the CUDA toolkit), proves each block with `host prove`
# (every segment, then the leaf / internal aggregation into one STARK), verifies the proof, and
# prints per block: segments, time per stage, peak memory and proof size.
#
# Without a GPU (no `nvidia-smi` that lists one) or without `nvcc`, it says so and falls back to
# the CPU build: same commands, same figures, far slower (minutes per segment on 2 cores).
# For a GPU machine with the driver alone (no Rust, no CUDA toolkit), build the bundle here
# instead: scripts/gpu-bundle.sh (docs/proving.md, "On a GPU machine").
#
# usage: scripts/gpu-bench.sh [--blocks-dir DIR] [BLOCK ...] [-- HOST-PROVE-ARGS ...]
#   BLOCK defaults to 24171384 21882667; DIR to ../shared/blocks/mainnet beside the project.
#   Blocks whose files are missing there are fetched first when --rpc-url is passed after `--`.
set -euo pipefail
cd "$(dirname "$0")/.."

blocks_dir="../shared/blocks/mainnet"
blocks=()
extra=()
while (($#)); do
  case "$1" in
    --blocks-dir) blocks_dir="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) blocks+=("$1"); shift ;;
  esac
done
((${#blocks[@]})) || blocks=(24171384 21882667)

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/stateless-verifier/target}"
features=()
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU \
  && command -v nvcc >/dev/null 2>&1; then
  echo "GPU: $(nvidia-smi -L | head -1); CUDA: $(nvcc --version | tail -1)"
  features=(--features host/cuda)
  backend=gpu
else
  echo "no NVIDIA GPU with the CUDA toolkit here (nvidia-smi / nvcc): falling back to the CPU prover" >&2
  backend=cpu
fi

cargo build --release --locked -p host "${features[@]}"
host="$CARGO_TARGET_DIR/release/host"
out_dir="${OUT_DIR:-$(mktemp -d)}"
mkdir -p "$out_dir"

for block in "${blocks[@]}"; do
  proof="$out_dir/$block.proof"
  echo
  echo "=== block $block ($backend): $host prove --block $block --blocks-dir $blocks_dir ${extra[*]:-}"
  /usr/bin/env time -f "  wall %e s, peak RSS %M KB (whole process)" \
    "$host" prove --block "$block" --blocks-dir "$blocks_dir" --out "$proof" "${extra[@]}"
  chain=()
  [[ -f "$blocks_dir/$block.chain.json" ]] && chain=(--chain "$blocks_dir/$block.chain.json")
  "$host" verify "$proof" "${chain[@]}"
  echo "  proof file $(stat -c %s "$proof") bytes: $proof"
done
