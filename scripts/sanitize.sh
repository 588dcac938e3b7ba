#!/usr/bin/env bash
# Builds Tessera with sanitizers and runs the tests under them. Too slow for
# CI; run it before a release or after touching memory-sensitive code.
#
#   scripts/sanitize.sh address   # ASan + UBSan: unit tests + all conformance suites
#   scripts/sanitize.sh thread    # TSan: the concurrency unit tests
#
# Environment: JOBS (build parallelism, default 2), ONNX_TESTS (the ONNX
# backend test data, default ../shared/onnx-tests), LOG_DIR (default the
# build folder). Exits non-zero when any test fails or a sanitizer reports.
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:-address}"
case "$kind" in
  address|thread) ;;
  *) echo "usage: $0 [address|thread]" >&2; exit 2 ;;
esac
dir="build-${kind/address/asan}"
dir="${dir/thread/tsan}"
jobs="${JOBS:-2}"
onnx_tests="${ONNX_TESTS:-$PWD/../shared/onnx-tests}"
log_dir="${LOG_DIR:-$dir}"

export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_SANITIZE="$kind" >/dev/null
ninja -C "$dir" -j"$jobs"

status=0
start=$(date +%s)
if [ "$kind" = address ]; then
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
  echo "== unit tests (ASan+UBSan)"
  "$dir/bin/tessera_unit_tests" --gtest_brief=1 >"$log_dir/sanitize-unit.log" 2>&1 || status=1
  tail -n 3 "$log_dir/sanitize-unit.log"
  for suite in node pytorch-converted pytorch-operator simple; do
    [ -d "$onnx_tests/$suite" ] || { echo "missing $onnx_tests/$suite" >&2; status=1; continue; }
    echo "== conformance $suite (ASan+UBSan)"
    # Sanitizer reports in a test's child process show as a crash or error of
    # that test; their text lands in the log.
    "$dir/bin/tessera" conformance "$onnx_tests/$suite" \
      --skip tests/conformance/skip.txt --tolerances tests/conformance/tolerances.txt \
      --expected tests/conformance/expected_pass.txt --timeout 600 --jobs "$jobs" \
      >"$log_dir/sanitize-$suite.log" 2>&1 || status=1
    tail -n 1 "$log_dir/sanitize-$suite.log"
  done
  if grep -l -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log_dir"/sanitize-*.log; then
    echo "sanitizer reports found (see the logs above)" >&2
    status=1
  fi
else
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:${TSAN_OPTIONS:-}"
  echo "== concurrency unit tests (TSan)"
  "$dir/bin/tessera_unit_tests" --gtest_filter='Session.Concurrent*:ThreadPool*:*Concurrent*:*Thread*' \
    >"$log_dir/sanitize-unit.log" 2>&1 || status=1
  tail -n 3 "$log_dir/sanitize-unit.log"
  if grep -q 'WARNING: ThreadSanitizer' "$log_dir/sanitize-unit.log"; then
    echo "ThreadSanitizer reports found (see $log_dir/sanitize-unit.log)" >&2
    status=1
  fi
fi
echo "sanitize $kind: $([ $status = 0 ] && echo clean || echo FAILED) in $(( $(date +%s) - start )) s (tests only)"
exit $status
