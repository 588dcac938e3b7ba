#!/usr/bin/env bash
# Side-by-side latency of Tessera and ONNX Runtime 1.30 on the benchmark suite
# (../shared/bench), interleaved model by model so machine noise hits both.
# Writes a markdown table to stdout (and JSON lines to $OUT_DIR).
#
# usage: bench/compare.sh MODELS_DIR [THREADS...]     (default threads: 1 2,
#        one table row per model and thread count)
# env:   RUNS (20), WARMUP (5), ROUNDS (1: Tessera and ORT alternate this many
#        times per row; the table gives medians over rounds and, for more than
#        one, each round's ratio), ONLY (comma list of models), ORT_NODE_PATH
#        (folder holding node_modules/onnxruntime-node; default: ../shared/bench),
#        TESSERA (the binary; default: build/bin/tessera)
set -euo pipefail
cd "$(dirname "$0")/.."
models="${1:?usage: bench/compare.sh MODELS_DIR [THREADS...]}"
shift
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2)
runs="${RUNS:-20}"
rounds="${ROUNDS:-1}"
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


if [ "$rounds" -gt 1 ]; then
  echo "| model | threads | tessera median ms | ort median ms | tessera / ort | per-round ratios | tessera create ms | ort create ms | tessera peak MB | ort peak MB |"
  echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"
else
  echo "| model | threads | tessera median ms | ort median ms | tessera / ort | tessera create ms | ort create ms | tessera peak MB | ort peak MB |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
fi
# Appends one ORT measurement of model $m at $t threads to o_all.
run_ort() {
  [ $have_ort = 1 ] || return 0
  local o
  o=$(NODE_PATH="$node_path" node "$harness" --model "$models/$m" --threads "$t" --runs "$runs" --warmup "$warmup" 2>/dev/null | tail -1)
  echo "$o" >> "$out/ort.jsonl"
  o_all+=("$o")
}
for m in $list; do
  [ -f "$models/$m/model.onnx" ] || continue
  for t in "${threads[@]}"; do
    ts_all=(); o_all=()
    for ((r = 1; r <= rounds; r++)); do
      # Alternate which runtime goes first, so a drift of the machine's speed
      # within a round does not always favour the same one.
      if [ $((r % 2)) = 0 ]; then run_ort; fi
      ts=$("$tessera" bench "$models/$m" --threads "$t" --runs "$runs" --warmup "$warmup" --json)
      echo "$ts" >> "$out/tessera.jsonl"
      ts_all+=("$ts")
      if [ $((r % 2)) = 1 ]; then run_ort; fi
    done
    python3 - "$m" "$t" "$rounds" "${#ts_all[@]}" "${ts_all[@]}" "${o_all[@]}" <<'PY'
import json, statistics, sys
model, threads, rounds, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ts = [json.loads(x) for x in sys.argv[5:5 + n]]
orts = [json.loads(x) for x in sys.argv[5 + n:]]
med = lambda rows, key: statistics.median(r[key] for r in rows)
row = [model, threads, f"{med(ts, 'median_ms'):.2f}"]
if orts:
    ratios = [a["median_ms"] / b["median_ms"] for a, b in zip(ts, orts)]
    row += [f"{med(orts, 'median_ms'):.3f}", f"{med(ts, 'median_ms') / med(orts, 'median_ms'):.2f}"]
    if rounds > 1:
        row.append(" ".join(f"{x:.2f}" for x in ratios))
else:
    row += ["-", "-"] + (["-"] if rounds > 1 else [])
row += [f"{med(ts, 'session_create_ms'):.0f}", f"{med(orts, 'session_create_ms'):.1f}" if orts else "-",
        f"{med(ts, 'peak_rss_mb'):.0f}", f"{med(orts, 'peak_rss_mb'):.1f}" if orts else "-"]
print("| " + " | ".join(row) + " |")
PY
  done
done
