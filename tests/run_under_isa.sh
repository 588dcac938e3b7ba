#!/bin/sh
# run_under_isa.sh TESSERA LEVEL COMMAND...: runs COMMAND with
# TESSERA_MAX_ISA=LEVEL, or exits 77 (ctest's SKIP_RETURN_CODE) when this
# machine cannot run LEVEL. Any other failure of `tessera isa` fails the test.
tessera=$1
level=$2
shift 2
out=$(TESSERA_MAX_ISA= "$tessera" isa --max-isa "$level" --providers cpu 2>&1)
rc=$?
if [ "$rc" -eq 3 ]; then
  echo "skipped: $out"
  exit 77
fi
if [ "$rc" -ne 0 ]; then
  echo "$out"
  exit "$rc"
fi
TESSERA_MAX_ISA=$level exec "$@"
