#!/usr/bin/env bash
# Checks that the GPU build (`--features cuda`) compiles, on a machine with no GPU and no CUDA
# toolkit installed: CUDA 13's nvcc, runtime and CCCL from the Python package index, and the
# include folders that the published openvm crates' build scripts expect from OpenVM's own
# repository. Linking needs the driver's libcuda, which only a GPU machine has, so this checks
# (`cargo check`), it does not build. Not in CI: it compiles every CUDA trace-generation library
# OpenVM has (minutes on two cores).
#
#   scripts/cuda-check.sh            # prover (with crate blake2-circuit's GPU chips) and host
#   WHEELS=/opt/cuda13 scripts/cuda-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WHEELS="${WHEELS:-$HOME/.cache/cuda13-wheels}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/stateless-verifier/target-cuda}"

if [ ! -x "$WHEELS/nvidia/cu13/bin/nvcc" ]; then
  echo "=== installing CUDA 13's nvcc, runtime and CCCL wheels into $WHEELS"
  python3 -m pip install --quiet --target "$WHEELS" nvidia-cuda-nvcc nvidia-cuda-runtime nvidia-cuda-cccl
fi
CUDA="$WHEELS/nvidia/cu13"
export PATH="$CUDA/bin:$PATH"
export CUDA_PATH="$CUDA" CUDA_HOME="$CUDA" CUDA_LIB_DIR="$CUDA/lib"
# Compile for the H100 (sm_90) without asking nvidia-smi.
export CUDA_ARCH="${CUDA_ARCH:-90}"
# openvm-circuit 2.0.2's build script includes `../circuits/primitives/cuda/include`, a path of
# OpenVM's repository that the published crate lacks: give nvcc every openvm crate's headers.
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
cargo fetch --locked >/dev/null
includes=""
for dir in "$registry"/*/openvm-*/cuda/include; do
  includes="$includes -I$dir"
done
export NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:-} -I$CUDA/include $includes"
nvcc --version | tail -1

echo "=== cargo check --features cuda (prover, host)"
cargo check --locked -p prover --features cuda
cargo check --locked -p host --features cuda
echo "=== cuda check passed"
