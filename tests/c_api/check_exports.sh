#!/bin/sh
# Checks what ORT's clients bind in libonnxruntime.so.1: the soname, and
# OrtGetApiBase (plus ORT's other exports) in version node VERS_1.30.0.
# Usage: check_exports.sh <libonnxruntime.so.1>
set -eu
lib=$1
fail() { echo "check_exports: $*" >&2; exit 1; }
readelf -d "$lib" | grep -q 'Library soname: \[libonnxruntime.so.1\]' || fail "soname is not libonnxruntime.so.1"
syms=$(readelf -W --dyn-syms "$lib" | awk '$7 != "UND" && $5 == "GLOBAL" && $4 == "FUNC" {print $8}' | sort)
expected=$(printf '%s\n' OrtGetApiBase@@VERS_1.30.0 OrtSessionOptionsAppendExecutionProvider_CPU@@VERS_1.30.0 \
  OrtSessionOptionsAppendExecutionProvider_CUDA@@VERS_1.30.0 OrtSessionOptionsAppendExecutionProvider_Tensorrt@@VERS_1.30.0 \
  TesseraGetVersionString@@TESSERA_0 | sort)
[ "$syms" = "$expected" ] || fail "exported functions differ from ORT 1.30's set plus TesseraGetVersionString:
$syms"
echo "check_exports: soname libonnxruntime.so.1; $(echo "$syms" | wc -l) exported functions as expected"
