#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera needs to build and test. Idempotent:
# does nothing (not even apt-get update) when everything is present. With
# arguments, installs those packages instead, the same way (test-cross.sh).
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config
  protobuf-compiler libprotobuf-dev
  libopenblas-dev libhwy-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-dev python3-numpy python3-onnx pybind11-dev python3-pytest
  python3-torch python3-torchvision
  libjpeg62-turbo-dev libpng-dev libwebp-dev libtiff-dev libopenjp2-7-dev
  opencl-headers ocl-icd-opencl-dev pocl-opencl-icd
  libdnnl-dev
  libonnx-testdata
  libgraphviz-dev chromium
)
[ $# -gt 0 ] && packages=("$@")
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# ONNX Runtime for node (npm onnxruntime-node), which the quantization tests
# run Tessera's quantized models on (tests/quantization). Into a cache
# folder, once; ORT_NODE_PATH overrides where the tests look.
install_ort_node() {
  local dir="${ORT_NODE_PATH:-$HOME/.cache/tessera/ort-1.30.0}"
  [ -d "$dir/node_modules/onnxruntime-node" ] && return 0
  if ! command -v npm >/dev/null; then
    # A fresh Debian 12 has neither: Debian's packages bring both.
    echo "setup: installing nodejs and npm (Debian's) for onnxruntime-node"
    $SUDO apt-get install -y -qq --no-install-recommends nodejs npm || true
  fi
  if ! command -v npm >/dev/null; then
    echo "setup: npm not found; the ONNX Runtime quantization check will be skipped (fails in CI)"
    return 0
  fi
  echo "setup: installing onnxruntime-node@1.30.0 into $dir"
  mkdir -p "$dir"
  npm install --ignore-scripts --silent --no-audit --no-fund --prefix "$dir" onnxruntime-node@1.30.0
}
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  [ $# -gt 0 ] || install_ort_node
  exit 0
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
[ $# -gt 0 ] || install_ort_node
