#!/usr/bin/env bash
# The int8 bench models, written by `tessera quantize` from the float ones
# (../shared/bench/make_models.py), next to links to those float models so
# one bench/compare.sh run times fp32 and int8 side by side, on Tessera and
# on ONNX Runtime, on the same files:
#   <model>_int8  static QDQ (resnet50, mobilenet_v2, efficientnet_b0,
#                 squeezenet1_1): per-channel int8 weights, uint8
#                 activations calibrated (MinMax) on CALIBRATION inputs
#                 drawn as the bench input is (standard normal, seed 1;
#                 the bench input itself is seed 0 and not among them)
#   bert_base_int8  dynamic: int8 weights, activations quantized at run time
#
#   bench/make_int8.sh FLOAT_MODELS_DIR OUT_DIR [CALIBRATION=8]
#   RUNS=20 WARMUP=5 ROUNDS=2 ORT_NODE_PATH=/tmp/ort bench/compare.sh OUT_DIR 1 2
set -euo pipefail
cd "$(dirname "$0")/.."
src="$(realpath "${1:?usage: bench/make_int8.sh FLOAT_MODELS_DIR OUT_DIR [CALIBRATION]}")"
out="${2:?usage: bench/make_int8.sh FLOAT_MODELS_DIR OUT_DIR [CALIBRATION]}"
count="${3:-8}"
tessera="${TESSERA:-build/bin/tessera}"
mkdir -p "$out"
out="$(realpath "$out")"
cal="$out/.calibration"
mkdir -p "$cal"
/usr/bin/python3 - "$cal" "$count" <<'PY'
import sys
import numpy as np
folder, count = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(1)
for k in range(count):
    np.save(f"{folder}/input_{k}.npy", rng.standard_normal((1, 3, 224, 224), dtype=np.float32))
PY
for m in resnet50 mobilenet_v2 efficientnet_b0 squeezenet1_1 bert_base; do
  [ -f "$src/$m/model.onnx" ] || { echo "make_int8: $src/$m/model.onnx is missing, skipped" >&2; continue; }
  ln -sfn "$src/$m" "$out/$m"
  dst="$out/${m}_int8"
  mkdir -p "$dst"
  rm -rf "$dst/test_data_set_0"
  cp -r "$src/$m/test_data_set_0" "$dst/"
  if [ "$m" = bert_base ]; then
    "$tessera" quantize "$src/$m/model.onnx" "$dst/model.onnx" --mode dynamic
  else
    "$tessera" quantize "$src/$m/model.onnx" "$dst/model.onnx" --mode static --calibration "$cal" \
      --per-channel --activation-type uint8 --weight-type int8
  fi
  # The float model's reference outputs would not match an int8 model.
  rm -f "$dst"/test_data_set_0/output_*.pb
done
