#!/usr/bin/env bash
# Builds the GPU prover here and packs it, with everything a proof needs, into one archive
# that proves on a machine with the NVIDIA driver alone: no Rust, no crates, no network, no
# CUDA toolkit (docs/proving.md, "On a GPU machine").
#
#   scripts/gpu-bundle.sh                 # the GPU bundle: bundle/stateless-verifier-gpu.tar.gz
#   scripts/gpu-bundle.sh --cpu           # the same bundle around the CPU host, to check its
#                                         # run.sh flow on a machine without a GPU
#   scripts/gpu-bundle.sh --blocks-dir DIR --block 24171384 --block 21882667 --out FILE
#
# It holds: bin/host-gpu (release, `--features cuda`, linked against CUDA 13's runtime from the
# Python index and the driver shim of scripts/gpu-bundle/cuda-shim.sh, debug info stripped),
# bin/host (scripts/gpu-bundle/launcher.c: without a usable GPU it says so in one line and exits
# 2, where the host itself would abort before `main`), lib/ (the CUDA runtime, the shim and
# OpenSSL 3, found through their RUNPATH), guests/ (both pinned
# guests' ELFs, each checked against its pin, read through $STATELESS_VERIFIER_GUESTS so
# nothing is built there), pins/, inputs/ (devnet-small and the mainnet blocks, each with its
# standard input) and run.sh (scripts/gpu-bundle/run.sh). Not in CI: the GPU build compiles
# every CUDA library OpenVM has (tens of minutes of nvcc on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

backend=gpu
blocks_dir="../shared/blocks/mainnet"
blocks=()
out=""
max_mib=60
while (($#)); do
  case "$1" in
    --cpu) backend=cpu; shift ;;
    --blocks-dir) blocks_dir="$2"; shift 2 ;;
    --block) blocks+=("$2"); shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "gpu-bundle: unknown argument $1" >&2; exit 2 ;;
  esac
done
((${#blocks[@]})) || blocks=(24171384 21882667)
name="stateless-verifier-$backend"
out="${out:-$root/bundle/$name.tar.gz}"
base="$HOME/.cache/stateless-verifier"

# The CPU host: it writes the guests and the standard inputs (a GPU host would need a GPU for
# `host guests`), and it is the --cpu bundle's host.
echo "=== building the CPU host (release)"
export CARGO_TARGET_DIR="$base/target-release"
cargo build --release --locked -p host
cpu_host="$CARGO_TARGET_DIR/release/host"

host_bin="$cpu_host"
if [ "$backend" = gpu ]; then
  echo "=== building the GPU host (release, --features cuda)"
  # shellcheck source=gpu-bundle/cuda-env.sh
  . scripts/gpu-bundle/cuda-env.sh
  nvcc --version | tail -1
  bash scripts/gpu-bundle/shim-check.sh "$CUDA_LINK_DIR"
  # No debug info: it would be stripped anyway, and linking it takes minutes.
  CARGO_TARGET_DIR="$base/target-cuda" CARGO_PROFILE_RELEASE_DEBUG=false \
    cargo build --release --locked -p host --features cuda
  host_bin="$base/target-cuda/release/host"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dir="$stage/$name"
mkdir -p "$dir/bin" "$dir/lib" "$dir/inputs" "$dir/guests"
if [ "$backend" = gpu ]; then
  # bin/host is the launcher (scripts/gpu-bundle/launcher.c: no GPU, one line and exit 2),
  # bin/host-gpu the host; both find lib/ through their RUNPATH. lib/ holds the CUDA runtime,
  # the driver shim and OpenSSL 3 (which a driver-only container may lack).
  cp "$host_bin" "$dir/bin/host-gpu"
  strip --strip-debug "$dir/bin/host-gpu"
  command -v patchelf >/dev/null || { apt-get update -qq && apt-get install -y -qq patchelf >/dev/null; }
  patchelf --set-rpath '$ORIGIN/../lib' "$dir/bin/host-gpu"
  gcc -O2 -Wall -Wextra -Werror -o "$dir/bin/host" scripts/gpu-bundle/launcher.c \
    -L"$CUDA_LINK_DIR" -lcudart -Wl,-rpath,'$ORIGIN/../lib'
  cp "$CUDA/lib/libcudart.so.13" "$CUDA_LINK_DIR/libstateless_cuda_shim.so" "$dir/lib/"
  for lib in libssl.so.3 libcrypto.so.3; do
    cp "$(ldd "$host_bin" | awk -v l="$lib" '$1 == l { print $3 }')" "$dir/lib/"
  done
else
  cp "$host_bin" "$dir/bin/host"
  strip --strip-debug "$dir/bin/host"
fi

echo "=== the pinned guests, checked against their pins"
"$cpu_host" guests --out "$dir/guests"
cp -r pins "$dir/pins"

echo "=== inputs"
for f in blocks/devnet-small.block.rlp blocks/devnet-small.witness.json blocks/devnet-small.chain.json; do
  cp "$f" "$dir/inputs/"
done
"$cpu_host" stateless-input --block devnet-small --blocks-dir blocks --out "$dir/inputs/devnet-small.ssz" >/dev/null
for block in "${blocks[@]}"; do
  cp "$blocks_dir/$block.block.rlp" "$blocks_dir/$block.witness.json" "$dir/inputs/"
  [ -f "$blocks_dir/$block.chain.json" ] && cp "$blocks_dir/$block.chain.json" "$dir/inputs/"
  "$cpu_host" stateless-input --block "$block" --blocks-dir "$blocks_dir" --out "$dir/inputs/$block.ssz" >/dev/null
done
echo "${blocks[*]}" > "$dir/inputs/BLOCKS"
cp scripts/gpu-bundle/run.sh "$dir/run.sh"
chmod +x "$dir/run.sh"
{
  echo "backend $backend"
  echo "commit $(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!bundle' || echo ' (with uncommitted changes)')"
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), glibc $(ldd --version | head -1 | awk '{print $NF}')"
  for f in "$dir"/bin/*; do echo "sha256 $(sha256sum "$f" | cut -d' ' -f1) bin/$(basename "$f")"; done
  [ "$backend" = gpu ] && echo "cuda $(nvcc --version | tail -1) for sm_$CUDA_ARCH"
  echo "needs glibc >= $(objdump -T "$dir"/bin/* | grep -oE 'GLIBC_[0-9.]+' | sort -uV | tail -1 | cut -d_ -f2)"
} > "$dir/BUNDLE"

mkdir -p "$(dirname "$out")"
tar -C "$stage" -czf "$out" "$name"
bytes=$(stat -c %s "$out")
echo
echo "=== $out"
cat "$dir/BUNDLE"
echo "contents:"
(cd "$dir" && du -sh bin/* lib guests inputs | sed 's/^/  /')
for f in "$dir"/bin/*; do
  echo "ldd bin/$(basename "$f"):"
  ldd "$f" | sed 's/^/ /'
done
if [ "$backend" = gpu ] && ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
  # No GPU here: the bundled host must refuse in one line, exit 2, and not panic.
  set +e
  refusal=$("$dir/bin/host" keygen 2>&1)
  code=$?
  set -e
  echo "no GPU here: bin/host keygen exits $code: $refusal"
  if [ "$code" != 2 ] || [ "$(printf '%s\n' "$refusal" | wc -l)" != 1 ] || [[ "$refusal" == *panick* ]]; then
    echo "gpu-bundle: without a GPU the bundled host should refuse in one line with exit 2" >&2
    exit 1
  fi
fi
awk -v b="$bytes" -v m="$max_mib" 'BEGIN { printf "archive: %d bytes (%.1f MiB; the limit is %d MiB)\n", b, b / 1048576, m }'
if ((bytes > max_mib * 1048576)); then
  echo "gpu-bundle: the archive is over $max_mib MiB" >&2
  exit 1
fi
echo
if [ "$backend" = gpu ]; then
  echo "On the GPU machine (the driver alone; 9 minutes at most by default):"
else
  echo "To run the CPU bundle's flow (no GPU needed; add --blocks none --budget 1800 on a small machine):"
fi
echo "  mkdir -p /tmp/sv && tar -xzf $(basename "$out") -C /tmp/sv && /tmp/sv/$name/run.sh --out /tmp/sv/results"
