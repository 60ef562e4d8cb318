#!/usr/bin/env bash
# Builds rootline's libFuzzer targets with clang-19 (-fsanitize=fuzzer,address,undefined)
# and runs each for a fixed time on its corpus (tests/fuzz/corpus/<target>). New inputs
# the fuzzer finds go to BUILD_DIR/fuzz, never into the source tree. A crash, a hang
# (-timeout), a run over -rss_limit_mb or an error message of more than one line fails.
# Usage: tests/fuzz/run_fuzzers.sh BUILD_DIR [SECONDS_PER_TARGET] [TARGET...]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
seconds=${2:-20}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(trace_reader recipe_json apply_model)

out=$build/fuzz
mkdir -p "$out"
cxx=${ROOTLINE_FUZZ_CXX:-clang++-19}
flags=(-std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$src/include" -I"$src/src" -I"$src/runtime" -isystem /usr/lib/llvm-19/include
       -DROOTLINE_VERSION='"fuzz"')
support=("$src/src/support/error.cpp" "$src/src/support/fs.cpp" "$src/src/support/hash.cpp")
libs=(-L/usr/lib/llvm-19/lib -lLLVM-19 -lcrypto)

sources_of() {
  case $1 in
    trace_reader) echo "$src/src/trace/trace_file.cpp" ;;
    recipe_json) echo "$src/src/build/recipe.cpp" ;;
    apply_model) echo "$src/src/explore/program_input.cpp $src/src/symbolic/expr_text.cpp" \
                      "$src/src/symbolic/float_ops.cpp" ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  exe=$out/fuzz_$t
  # shellcheck disable=SC2046
  "$cxx" "${flags[@]}" "$src/tests/fuzz/fuzz_$t.cpp" $(sources_of "$t") "${support[@]}" \
    "${libs[@]}" -lz3 -o "$exe"
  mkdir -p "$out/$t.corpus"
  echo "fuzz_$t: ${seconds} s"
  if ! "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
       -print_final_stats=1 "$out/$t.corpus" "$src/tests/fuzz/corpus/$t" \
       > "$out/$t.log" 2>&1; then
    echo "fuzz_$t FAILED:"; tail -40 "$out/$t.log"; status=1
  else
    grep -E "stat::number_of_executed_units|Done" "$out/$t.log" | head -2
  fi
done
exit $status
