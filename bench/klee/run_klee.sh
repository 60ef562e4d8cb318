#!/usr/bin/env bash
# Runs KLEE on the hand-written harnesses in harness/ and measures the branch coverage of
# the tests it generates by replaying them natively, the way rootline's generated tests
# are measured (README.md beside this file).
#
# Usage: bench/klee/run_klee.sh [KLEE_BUILD_DIR] [WORK_DIR]
#   KLEE_BUILD_DIR  a KLEE build tree (bin/klee, lib/libkleeRuntest.so); default /tmp/klee-build
#   WORK_DIR        bitcode, klee-out dirs, profiles, exports; default /tmp/klee-bench
# Environment:
#   KLEE_SRC       KLEE's source tree, for include/klee/klee.h; default /tmp/klee-src
#   KLEE_MAX_TIME  KLEE's --max-time; default 30s
#   CLANG_BC       clang for KLEE's bitcode (the LLVM KLEE was built with); default clang-16
#   CLANG_COV      clang for the coverage build; default clang-19 (with llvm-profdata-19
#                  and llvm-cov-19: PROFDATA, LLVM_COV)
#   ONLY           a space-separated subset of the function names below
#   RESULTS        the JSON written at the end; default bench/klee/klee_results.json
#                  (not written when ONLY is set); each function's "notes" come from
#                  bench/klee/notes.json ({"function": "text"})
#   KLEE_GIT_DIR   KLEE's git dir, for the commit when KLEE_SRC/.klee_commit is absent
# Each function runs twice: KLEE's default output (a test per path, "default") and with
# --only-output-states-covering-new ("covering_new"). Per run, WORK_DIR/FN/VARIANT/ has
# the bitcode, klee-out/, klee.log, the native replay binary, replay.txt (exit status per
# test), prof/, merged.profdata and export.json (llvm-cov export).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KLEE_BUILD="${1:-/tmp/klee-build}"
WORK="${2:-/tmp/klee-bench}"
KLEE_SRC="${KLEE_SRC:-/tmp/klee-src}"
KLEE_MAX_TIME="${KLEE_MAX_TIME:-30s}"
CLANG_BC="${CLANG_BC:-clang-16}"
CLANG_COV="${CLANG_COV:-clang-19}"
PROFDATA="${PROFDATA:-llvm-profdata-19}"
LLVM_COV="${LLVM_COV:-llvm-cov-19}"
RESULTS="${RESULTS:-$HERE/klee_results.json}"
KLEE="$KLEE_BUILD/bin/klee"
REPLAY_TIMEOUT=10 # seconds per replayed test (a test on a cyclic list may loop forever)

# function  fixture file  the fixture functions it may call (coverage "with callees")
FUNCTIONS=(
  "list_sum list_sum.c"
  "first_value list_sum.c"
  "parse_number buf_parse.c"
  "eval expr_eval.c"
  "run_op dispatch.c add sub divide"
  "stack_push stack.c"
  "count_words word_stats.c"
  "insert_sorted sorted_list.c"
)

# run_one FN FILE VARIANT "CALLEES" KLEE_FLAG...: one KLEE run and its replay; prints a
# JSON line.
run_one() {
  local fn="$1" file="$2" variant="$3" callees="$4"
  shift 4
  local flags=("$@")
  local d="$WORK/$fn/$variant" harness="$HERE/harness/$fn.c"
  rm -rf "$d"
  mkdir -p "$d/prof"

  # 1. Bitcode for KLEE.
  "$CLANG_BC" -emit-llvm -c -g -O0 -Xclang -disable-O0-optnone -I"$KLEE_SRC/include" \
    -Wno-unused-function "$harness" -o "$d/$fn.bc"

  # 2. KLEE, timed (wall clock, including KLEE's start-up and test writing).
  local start end seconds
  start=$(date +%s.%N)
  "$KLEE" "${flags[@]}" --output-dir="$d/klee-out" "$d/$fn.bc" >"$d/klee.log" 2>&1 || true
  end=$(date +%s.%N)
  seconds=$(python3 -c "print(round($end - $start, 2))")

  # 3. Native replay with coverage: every .ktest in its own process.
  "$CLANG_COV" -fprofile-instr-generate -fcoverage-mapping -O0 -g -I"$KLEE_SRC/include" \
    -Wno-unused-function "$harness" "$HERE/replay_support.c" -o "$d/replay" \
    -L"$KLEE_BUILD/lib" -lkleeRuntest -Wl,-rpath,"$KLEE_BUILD/lib"
  : >"$d/replay.txt"
  local t rc
  for t in "$d"/klee-out/*.ktest; do
    [[ -e "$t" ]] || continue
    rc=0
    KTEST_FILE="$t" LLVM_PROFILE_FILE="$d/prof/%p.profraw" \
      timeout "$REPLAY_TIMEOUT" "$d/replay" >/dev/null 2>>"$d/replay.stderr" || rc=$?
    echo "$(basename "$t") $rc" >>"$d/replay.txt"
  done
  local covered=0 total=0 covered_all=0 total_all=0
  if compgen -G "$d/prof/*.profraw" >/dev/null; then
    "$PROFDATA" merge -sparse "$d"/prof/*.profraw -o "$d/merged.profdata"
    "$LLVM_COV" export -format=text -instr-profile="$d/merged.profdata" "$d/replay" >"$d/export.json"
    read -r covered total < <(python3 "$HERE/branch_coverage.py" "$d/export.json" "$file" "$fn")
    # shellcheck disable=SC2086 # callees: a word list
    read -r covered_all total_all < <(python3 "$HERE/branch_coverage.py" "$d/export.json" "$file" "$fn" $callees)
  fi

  # 4. One JSON line.
  python3 - "$d" "$fn" "$file" "$variant" "$seconds" "$covered" "$total" "$covered_all" \
    "$total_all" "${flags[*]}" "$callees" "$start" <<'PY'
import collections, glob, json, os, re, sys
d, fn, file, variant, seconds, cov, tot, cova, tota, flags, callees, start = sys.argv[1:]
out = os.path.join(d, "klee-out")
ktests = glob.glob(os.path.join(out, "*.ktest"))
errors = collections.Counter(os.path.basename(e).split(".")[-2]
                             for e in glob.glob(os.path.join(out, "*.err")))
early = len(glob.glob(os.path.join(out, "*.early")))
# When the last test of a path KLEE finished was written (tests of states KLEE stopped
# at --max-time, with a .early file, are written when it halts and do not count).
finished = [os.path.getmtime(k) for k in ktests
            if not os.path.exists(k[:-len(".ktest")] + ".early")]
last_test = round(max(finished) - float(start), 2) if finished else None
log = open(os.path.join(d, "klee.log"), errors="replace").read()
def stat(label):
    m = re.search(r"KLEE: done: " + label + r" = (\d+)", log)
    return int(m.group(1)) if m else None
messages = sorted(set(l[len("KLEE: ERROR: "):].replace("bench/klee/harness/../../../", "")
                      for l in log.splitlines() if l.startswith("KLEE: ERROR: ")))
replays = [int(l.split()[1]) for l in open(os.path.join(d, "replay.txt"))]
# replay_support.c exits with 128 + the signal; timeout(1) sends SIGTERM (exit 124 or
# 143); libkleeRuntest exits 1 when a test has fewer objects than the replay asks for (a
# state KLEE stopped early, e.g. at --max-time) or a klee_assume fails natively.
print(json.dumps({
    "function": fn, "file": "fixtures/unit/" + file, "variant": variant,
    "klee_tests": len(ktests), "klee_seconds": float(seconds),
    "klee_seconds_to_last_finished_test": last_test,
    "klee_errors": dict(sorted(errors.items())),
    "branches_covered": int(cov), "branches_total": int(tot),
    "callees": callees.split(),
    "branches_covered_with_callees": int(cova), "branches_total_with_callees": int(tota),
    "klee_flags": flags,
    "klee_completed_paths": stat("completed paths"),
    "klee_partially_completed_paths": stat("partially completed paths"),
    "klee_instructions": stat("total instructions"),
    "klee_halted_by_max_time": "HaltTimer invoked" in log,
    "klee_early_terminations": early,
    "klee_error_messages": messages,
    "replays": len(replays),
    "replays_crashed": sum(rc in (128 + 4, 128 + 6, 128 + 7, 128 + 8, 128 + 11) for rc in replays),
    "replays_timed_out": sum(rc in (124, 128 + 15) for rc in replays),
    "replays_out_of_inputs": sum(rc == 1 for rc in replays),
}))
PY
}

mkdir -p "$WORK"
: >"$WORK/results.jsonl"
for row in "${FUNCTIONS[@]}"; do
  read -r fn file callees <<<"$row"
  if [[ -n "${ONLY:-}" && " $ONLY " != *" $fn "* ]]; then continue; fi
  for variant in default covering_new; do
    flags=(--libc=klee "--max-time=$KLEE_MAX_TIME")
    [[ "$variant" == covering_new ]] && flags+=(--only-output-states-covering-new)
    echo "== $fn ($file), $variant: klee ${flags[*]}" >&2
    run_one "$fn" "$file" "$variant" "$callees" "${flags[@]}" | tee -a "$WORK/results.jsonl" >&2
  done
done

[[ -n "${ONLY:-}" ]] && exit 0
# The results with the versions: the default runs, each with its covering_new figures.
python3 - "$WORK/results.jsonl" "$RESULTS" "$KLEE_BUILD" "$KLEE_SRC" "$CLANG_COV" \
  "${KLEE_GIT_DIR:-/work/.mirror/klee+klee/repo}" "$HERE/notes.json" <<'PY'
import datetime, json, re, subprocess, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
results, klee_build, klee_src, clang_cov, git_dir, notes_file = sys.argv[2:]
try:
    notes = json.load(open(notes_file))
except (OSError, ValueError):
    notes = {}
def run(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""
# The commit: KLEE_SRC/.klee_commit (written when the tree was exported), else KLEE_GIT_DIR.
commit = run("cat", klee_src + "/.klee_commit") or run(
    "git", "--git-dir=" + git_dir, "log", "-1", "--format=%H") or "unknown"
klee_version = run(klee_build + "/bin/klee", "--version").splitlines()
llvm = run("llvm-config-16", "--version")
z3 = re.sub(r"^Z3 version ", "", run("z3", "--version")) or run(
    "dpkg-query", "-W", "-f=${Version}", "libz3-dev")
cov = run(clang_cov, "--version").splitlines()
entries = []
for r in rows:
    if r["variant"] != "default":
        continue
    entry = {k: v for k, v in r.items() if k != "variant"}
    other = next((o for o in rows if o["function"] == r["function"]
                  and o["variant"] == "covering_new"), None)
    if other:
        entry["covering_new"] = {k: other[k] for k in (
            "klee_flags", "klee_tests", "klee_seconds", "klee_seconds_to_last_finished_test",
            "klee_errors", "branches_covered",
            "branches_total", "branches_covered_with_callees", "branches_total_with_callees")}
    entry["notes"] = notes.get(r["function"], "")
    entries.append(entry)
doc = {
    "klee_commit": commit,
    "klee_version": klee_version[0] if klee_version else "",
    "klee_build": "Release (asserts on), Z3 backend, no STP, no POSIX runtime, no uclibc",
    "llvm": "LLVM " + llvm + " (Debian llvm-16-dev / clang-16) for KLEE and its bitcode",
    "coverage_toolchain": cov[0] if cov else clang_cov,
    "z3": z3,
    "machine": "2 cores",
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
    "functions": entries,
}
json.dump(doc, open(results, "w"), indent=2)
print("wrote", results, file=sys.stderr)
PY
