#!/bin/sh
# Installs the build into a fresh prefix and builds examples/embedding
# against it twice, with find_package(Tessera) and with pkg-config, then
# runs both on the default model. Also checks that the installed headers
# are the public ones only and that libtessera.so exports tessera::v1 only.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
model=$src/models/default/model.onnx

cmake --install "$build" --prefix "$prefix" >/dev/null

for f in include/tessera/tessera.h include/tessera/session.h lib/libtessera.so \
         lib/cmake/Tessera/TesseraConfig.cmake lib/cmake/Tessera/TesseraConfigVersion.cmake \
         lib/pkgconfig/tessera.pc bin/tessera; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f" >&2; exit 1; }
done
if find "$prefix/include/tessera" -mindepth 1 -type d | grep -q .; then
  echo "internal header folders installed:" >&2
  find "$prefix/include/tessera" -mindepth 1 -type d >&2
  exit 1
fi
if [ -e "$prefix/lib/libonnxruntime.so.1" ]; then
  echo "libonnxruntime.so.1 installed by default" >&2
  exit 1
fi
leaked=$(nm -DC --defined-only "$prefix/lib/libtessera.so" | awk '$2 != "A"' | grep -v ' tessera::v1::' || true)
if [ -n "$leaked" ]; then
  echo "libtessera.so exports more than tessera::v1:" >&2
  echo "$leaked" | head -20 >&2
  exit 1
fi

# find_package(Tessera).
cmake -S "$src/examples/embedding" -B "$work/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/example" >/dev/null
"$work/example/classify" "$model"

# pkg-config, as C++17 (what the headers promise).
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tessera)
# shellcheck disable=SC2086  # flags are words
c++ -std=c++17 -Wall -Wextra -Werror "$src/examples/embedding/classify.cc" $flags \
  -Wl,-rpath,"$prefix/lib" -o "$work/classify_pc"
"$work/classify_pc" "$model"
