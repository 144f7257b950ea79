#!/usr/bin/env bash
# Writes the seed corpus of the fuzz target `standard_input` (fuzz/corpus/, not committed):
# the standard inputs of the project's own devnet blocks (blocks/), through `host
# stateless-input`, as a prover would send them (about 100 kB in all).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p host
host="${CARGO_TARGET_DIR:-target}/debug/host"
out=fuzz/corpus/standard_input
mkdir -p "$out"
for block in devnet-small devnet devnet-amsterdam-small devnet-amsterdam; do
  "$host" stateless-input --block "$block" --out "$out/$block.ssz"
done
du -sh "$out"
