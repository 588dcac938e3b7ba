#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan, build-fuzz) and runs one.
#
#   scripts/fuzz.sh fuzz_model_load 2100     # model bytes -> load -> session -> run
#   scripts/fuzz.sh fuzz_model_inputs 1500   # fixed models, fuzzed input tensors
#
# One fuzzer process, niced. The corpus lives in build-fuzz/corpus/TARGET
# (seeded from ../shared/onnx-tests for the loader, from one seed per model for
# the inputs target) and grows across runs; findings land in
# build-fuzz/findings/TARGET. Environment: JOBS (build parallelism, default
# 2), ONNX_TESTS, FUZZ_ARGS (extra libFuzzer flags), KEEP_GOING=1 (fork
# mode, still one child process at a time: a crash, timeout or OOM is saved
# to findings/ and fuzzing goes on, for long unattended runs). Exits non-zero
# when libFuzzer reports a crash, timeout, leak or OOM, or (KEEP_GOING) when
# findings/ is not empty. SKIP_BUILD=1 runs the binary already built.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: $0 fuzz_model_load|fuzz_model_inputs SECONDS}"
seconds="${2:?usage: $0 TARGET SECONDS}"
case "$target" in
  fuzz_model_load) max_len=65536 ;;
  fuzz_model_inputs) max_len=512 ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac
dir=build-fuzz
onnx_tests="${ONNX_TESTS:-$PWD/../shared/onnx-tests}"

export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
    -DTESSERA_FUZZ=ON >/dev/null
fi
[ "${SKIP_BUILD:-0}" = 1 ] || ninja -C "$dir" -j"${JOBS:-2}" "$target"

corpus="$dir/corpus/$target"
findings="$dir/findings/$target"
mkdir -p "$corpus" "$findings"
if [ -z "$(ls -A "$corpus")" ]; then
  if [ "$target" = fuzz_model_load ]; then
    # Seeds named after their test folder; models over max_len are skipped.
    find "$onnx_tests" -name '*.onnx' -size -"$((max_len / 1024))"k -print0 |
      while IFS= read -r -d '' f; do
        rel="${f#"$onnx_tests"/}"
        cp "$f" "$corpus/${rel//\//_}"
      done
  else
    # One seed per model in fuzz_model_inputs.cc (first byte picks the model;
    # the rest declared dtypes, rank 2, dims 2x3 and some values).
    for i in $(seq 0 39); do
      printf "\\x$(printf %02x "$i")\\x00\\x00\\x02\\x02\\x03\\x78\\x7c\\x80\\x84\\xf0\\xf1\\x00\\x02\\x02\\x03\\x79\\x7a\\x7b\\x7c\\x7d\\x7e" \
        >"$corpus/seed_$i"
    done
  fi
fi
dict_args=()
[ "$target" = fuzz_model_load ] && dict_args=(-dict=tests/fuzz/onnx.dict)

export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
mode_args=(-jobs=1 -workers=1)
[ "${KEEP_GOING:-0}" = 1 ] && mode_args=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
start=$(date +%s)
status=0
# shellcheck disable=SC2086
nice -n 19 "$dir/bin/$target" "$corpus" "${dict_args[@]}" "${mode_args[@]}" \
  -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$findings/" ${FUZZ_ARGS:-} \
  >"$dir/fuzz-$target.log" 2>&1 || status=$?
tail -n 25 "$dir/fuzz-$target.log"
echo "fuzz $target: $(( $(date +%s) - start )) s, corpus $(ls "$corpus" | wc -l) files," \
  "findings $(ls "$findings" | wc -l), exit $status"
if [ -n "$(ls -A "$findings")" ]; then status=1; fi
exit $status
