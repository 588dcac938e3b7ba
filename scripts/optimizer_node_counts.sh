#!/usr/bin/env bash
# Prints a Markdown table of node counts per graph-optimization level for
# each benchmark model (docs/optimizer.md), using `tessera optimize --stats`.
# usage: scripts/optimizer_node_counts.sh [MODELS_DIR] [TESSERA_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
models="${1:-../shared/bench/models}"
tessera="${2:-build/bin/tessera}"
levels=(disabled basic extended layout all)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '| model |'; for l in "${levels[@]}"; do printf ' %s |' "$l"; done; printf '\n'
printf '|---|'; for _ in "${levels[@]}"; do printf -- '---:|'; done; printf '\n'
for dir in "$models"/*/; do
  [ -f "$dir/model.onnx" ] || continue
  printf '| %s |' "$(basename "$dir")"
  for l in "${levels[@]}"; do
    # "nodes    N -> M (subgraphs included)"
    n="$("$tessera" optimize "$dir/model.onnx" "$tmp/out.onnx" --level "$l" --stats | awk '$1 == "nodes" {print $4}')"
    printf ' %s |' "$n"
  done
  printf '\n'
done
