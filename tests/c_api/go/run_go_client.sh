#!/bin/sh
# Builds and runs main.go against a local copy of github.com/yalue/onnxruntime_go
# (no module proxy needed) and Tessera's library. By hand, not in ctest:
#   tests/c_api/go/run_go_client.sh /path/to/onnxruntime_go build/lib/libonnxruntime.so.1
set -eu
[ $# -eq 2 ] || { echo "usage: $0 ONNXRUNTIME_GO_SOURCE LIB" >&2; exit 2; }
src=$(cd "$1" && pwd)
lib=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/main.go" "$here/go.mod" "$work/"
cd "$work"
go mod edit -replace "github.com/yalue/onnxruntime_go=$src"
GOFLAGS=-mod=mod GOPROXY=off GOCACHE="$work/cache" go run . "$lib" "$root/models/default/model.onnx"
