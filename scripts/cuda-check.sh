#!/usr/bin/env bash
# Checks that the GPU build (`--features cuda`) compiles, on a machine with no GPU and no CUDA
# toolkit installed: CUDA 13's nvcc, runtime and CCCL from the Python package index
# (scripts/gpu-bundle/cuda-env.sh). It checks (`cargo check`); scripts/gpu-bundle.sh builds,
# links and packs the GPU host. Not in CI: it compiles every CUDA trace-generation library
# OpenVM has (minutes on two cores).
#
#   scripts/cuda-check.sh            # prover (with crate blake2-circuit's GPU chips) and host
#   WHEELS=/opt/cuda13 scripts/cuda-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/stateless-verifier/target-cuda}"
. scripts/gpu-bundle/cuda-env.sh
nvcc --version | tail -1

echo "=== cargo check --features cuda (prover, host)"
cargo check --locked -p prover --features cuda
cargo check --locked -p host --features cuda
echo "=== cuda check passed"
