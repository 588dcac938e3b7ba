#!/usr/bin/env bash
# Side-by-side latency of Tessera and ONNX Runtime 1.30 on the benchmark suite
# (../shared/bench), interleaved model by model so machine noise hits both.
# Writes a markdown table to stdout (and JSON lines to $OUT_DIR).
#
# usage: bench/compare.sh MODELS_DIR [THREADS...]     (default threads: 1 2,
#        one table row per model and thread count)
# env:   RUNS (20), WARMUP (5), ONLY (comma list of models), ORT_NODE_PATH
#        (folder holding node_modules/onnxruntime-node; default: ../shared/bench),
#        TESSERA (the binary; default: build/bin/tessera)
set -euo pipefail
cd "$(dirname "$0")/.."
models="${1:?usage: bench/compare.sh MODELS_DIR [THREADS...]}"
shift
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2)
runs="${RUNS:-20}"
tessera="${TESSERA:-build/bin/tessera}"
[ -x "$tessera" ] || { echo "error: $tessera not found or not executable (build first, or set TESSERA)" >&2; exit 1; }
warmup="${WARMUP:-5}"
out="${OUT_DIR:-$(mktemp -d)}"
mkdir -p "$out"
harness="$(cd ../shared/bench 2>/dev/null && pwd)/ort_bench.js"
node_path="${ORT_NODE_PATH:-$(dirname "$harness")}/node_modules"
have_ort=1
if ! command -v node >/dev/null || [ ! -f "$harness" ] || [ ! -d "$node_path/onnxruntime-node" ]; then
  have_ort=0
  echo "note: ONNX Runtime skipped (needs node, $harness and onnxruntime-node under $node_path)" >&2
fi
list=$(ls "$models")
[ -n "${ONLY:-}" ] && list=$(echo "$ONLY" | tr ',' ' ')

field() { python3 -c "import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2], ''))" "$1" "$2"; }

echo "| model | threads | tessera median ms | ort median ms | tessera / ort | tessera create ms | ort create ms | tessera peak MB | ort peak MB |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for m in $list; do
  [ -f "$models/$m/model.onnx" ] || continue
  for t in "${threads[@]}"; do
    ts=$("$tessera" bench "$models/$m" --threads "$t" --runs "$runs" --warmup "$warmup" --json)
    echo "$ts" >> "$out/tessera.jsonl"
    ort_med="-"; ort_create="-"; ort_rss="-"; ratio="-"
    if [ $have_ort = 1 ]; then
      o=$(NODE_PATH="$node_path" node "$harness" --model "$models/$m" --threads "$t" --runs "$runs" --warmup "$warmup" 2>/dev/null | tail -1)
      echo "$o" >> "$out/ort.jsonl"
      ort_med=$(field "$o" median_ms); ort_create=$(field "$o" session_create_ms); ort_rss=$(field "$o" peak_rss_mb)
    fi
    t_med=$(field "$ts" median_ms)
    [ "$ort_med" != "-" ] && ratio=$(python3 -c "print(f'{$t_med/$ort_med:.2f}')")
    printf "| %s | %s | %.2f | %s | %s | %.0f | %s | %.0f | %s |\n" "$m" "$t" "$t_med" "$ort_med" "$ratio" \
      "$(field "$ts" session_create_ms)" "$ort_create" "$(field "$ts" peak_rss_mb)" "$ort_rss"
  done
done
