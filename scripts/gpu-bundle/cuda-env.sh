# Sourced by scripts/cuda-check.sh and scripts/gpu-bundle.sh: CUDA 13's nvcc, runtime and CCCL
# from the Python package index (no CUDA toolkit, no GPU, no driver needed), and what the
# published openvm crates' build scripts expect of the environment.
#
# In: WHEELS (default ~/.cache/cuda13-wheels), CUDA_ARCH (default 90: H100 and H200).
# Out: PATH with nvcc, CUDA_PATH/CUDA_HOME, NVCC_APPEND_FLAGS, CUDA_ARCH, CUDA_LINK_DIR (a
# folder with libcudart.so and the driver shim as libcuda.so: scripts/gpu-bundle/cuda-shim.sh),
# and CUDA_LIB_DIR pointing at it, which is where the crates' build scripts tell the linker to
# look.
WHEELS="${WHEELS:-$HOME/.cache/cuda13-wheels}"
if [ ! -x "$WHEELS/nvidia/cu13/bin/nvcc" ]; then
  echo "=== installing CUDA 13's nvcc, runtime and CCCL wheels into $WHEELS"
  python3 -m pip install --quiet --target "$WHEELS" nvidia-cuda-nvcc nvidia-cuda-runtime nvidia-cuda-cccl
fi
CUDA="$WHEELS/nvidia/cu13"
export PATH="$CUDA/bin:$PATH"
export CUDA_PATH="$CUDA" CUDA_HOME="$CUDA"
# Compile for the H100 and H200 (sm_90) without asking nvidia-smi.
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
# What the linker finds for -lcudart and -lcuda: the wheel's runtime, and the driver shim.
CUDA_LINK_DIR="$HOME/.cache/stateless-verifier/cuda-link"
if [ ! -f "$CUDA_LINK_DIR/libstateless_cuda_shim.so" ] \
  || [ "$CUDA_LINK_DIR/libstateless_cuda_shim.so" -ot "$(dirname "${BASH_SOURCE[0]}")/cuda-shim.sh" ]; then
  bash "$(dirname "${BASH_SOURCE[0]}")/cuda-shim.sh" "$CUDA/include" "$CUDA_LINK_DIR"
fi
# The runtime both ways: OpenVM's crates ask for -lcudart, and the `cc` crate's CUDA builds for
# -lcudart_static (the static one is what ends up linked: the host needs no libcudart.so).
ln -sf "$CUDA/lib/libcudart.so.13" "$CUDA_LINK_DIR/libcudart.so"
ln -sf "$CUDA/lib/libcudart_static.a" "$CUDA_LINK_DIR/libcudart_static.a"
export CUDA_LINK_DIR CUDA_LIB_DIR="$CUDA_LINK_DIR"
