#!/usr/bin/env bash
# Side-by-side greedy generation: `tessera generate` against ONNX Runtime 1.30
# running the same loop (bench/ort_generate.js), alternating which goes first,
# on a decoder from bench/make_decoder.py. Prints one line per run with its
# prefill and decode tokens/s; compare the medians.
#
# usage: bench/compare_generate.sh MODEL ROUNDS [THREADS...]   (default threads: 1 2)
# env:   PROMPT (16 tokens), NEW (17: the first comes from the prefill),
#        ORT_NODE_PATH (folder holding node_modules/onnxruntime-node; default
#        ~/.cache/tessera/ort-1.30.0), TESSERA (default build/bin/tessera)
set -euo pipefail
cd "$(dirname "$0")/.."
model="${1:?usage: bench/compare_generate.sh MODEL ROUNDS [THREADS...]}"
rounds="${2:?usage: bench/compare_generate.sh MODEL ROUNDS [THREADS...]}"
shift 2
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2)
prompt="${PROMPT:-16}"
new="${NEW:-17}"
tessera="${TESSERA:-build/bin/tessera}"
node_path="${ORT_NODE_PATH:-$HOME/.cache/tessera/ort-1.30.0}/node_modules"
rates() { grep -o '[0-9.]* tokens/s' | tr '\n' ' '; }
run_ort() { echo "ort     threads=$t $(NODE_PATH="$node_path" node bench/ort_generate.js "$model" "$t" "$prompt" "$new" 2>&1 | rates)"; }
run_tessera() {
  echo "tessera threads=$t $("$tessera" generate "$model" --prompt-tokens "$(seq -s, 1 "$prompt")" \
    --max-new-tokens "$new" --threads "$t" --providers cpu 2>&1 | rates)"
}
echo "# prefill tokens/s, decode tokens/s"
for t in "${threads[@]}"; do
  for ((r = 1; r <= rounds; r++)); do
    if [ $((r % 2)) = 0 ]; then run_ort; run_tessera; else run_tessera; run_ort; fi
  done
done
