#!/bin/sh
# run_under_isa.sh TESSERA LEVEL COMMAND...: runs COMMAND with
# TESSERA_MAX_ISA=LEVEL, or exits 77 (ctest's SKIP_RETURN_CODE) when this
# machine cannot run LEVEL. Any other failure of `tessera isa` fails the test.
# TESSERA_TEST_EMULATOR, when set, is the command line that runs a
# cross-built binary (qemu-aarch64-static -L /usr/aarch64-linux-gnu): it
# prefixes both commands.
emulator=${TESSERA_TEST_EMULATOR:-}
tessera=$1
level=$2
shift 2
# shellcheck disable=SC2086 # the emulator is a command line of several words
out=$(TESSERA_MAX_ISA= $emulator "$tessera" isa --max-isa "$level" --providers cpu 2>&1)
rc=$?
if [ "$rc" -eq 3 ]; then
  echo "skipped: $out"
  exit 77
fi
if [ "$rc" -ne 0 ]; then
  echo "$out"
  exit "$rc"
fi
# shellcheck disable=SC2086
TESSERA_MAX_ISA=$level exec $emulator "$@"
