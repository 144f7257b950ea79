#!/usr/bin/env bash
# Makes host/tests/data/devnet-small.block.proof: the block guest's aggregated proof of the
# devnet-small block in two segments (segment memory 1536 MiB), which host/tests/cluster_proof.rs
# plants as its cluster job's final proof. Run it after any change to the block guest (when
# `host pin` writes new pins): a stale proof fails that test against the pin. About 8 minutes
# of proving on 2 cores (release build: fewer).
#
#   scripts/block-proof.sh [HOST]    HOST: a built `host` binary (default: cargo run --release)
set -euo pipefail
cd "$(dirname "$0")/.."
out=host/tests/data/devnet-small.block.proof
if [ $# -ge 1 ]; then
  host=("$1")
else
  host=(cargo run --release --locked -p host --)
fi
"${host[@]}" prove --block devnet-small --blocks-dir blocks --segment-memory-mib 1536 \
  --out "$out.new"
"${host[@]}" verify "$out.new" --chain devnet
mv "$out.new" "$out"
echo "wrote $out ($(stat -c %s "$out") bytes)"
