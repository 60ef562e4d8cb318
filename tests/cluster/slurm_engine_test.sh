#!/usr/bin/env bash
# rootline's Slurm engine on a real one-node cluster (slurm_cluster.sh): triage and
# bisect --parallel submitted as job arrays give the local engine's answers, and a task
# killed while it runs is run again without losing its unit.
# Usage: slurm_engine_test.sh ROOTLINE SOURCE_DIR. Exit 77 (skipped) without root or
# without slurm-wlm and munge; ctest reports that as skipped, not passed.
set -euo pipefail
rootline=$1
src=$2
if [ "$(id -u)" != 0 ]; then
  echo "skipped: a one-node Slurm cluster needs root"
  exit 77
fi
for tool in sbatch squeue slurmctld slurmd munged jq; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done

# A short path: the munge socket's path must stay under 108 bytes.
d=$(mktemp -d /var/tmp/rl-slurm-XXXXXX)
cleanup() {
  "$src/tests/cluster/slurm_cluster.sh" stop "$d" >/dev/null 2>&1 || true
  rm -rf "$d"
}
trap cleanup EXIT
eval "$("$src/tests/cluster/slurm_cluster.sh" start "$d")"
export ROOTLINE_CACHE_DIR=$d/cache
fail() { echo "FAIL: $*"; exit 1; }

fx=$src/fixtures/triage/three_causes
triage=(triage --old "$fx/old.c" --new "$fx/new.c" --tests "$fx/suite" --budget 30)
groups='{groups: [.groups[] | {cause, tests}], passing, failed_units}'

echo "== triage, local engine"
"$rootline" -q "${triage[@]}" -j 2 --out "$d/local" >/dev/null

echo "== triage, slurm engine, one task killed while it runs"
"$rootline" "${triage[@]}" --engine slurm -j 2 --plan "$d/plan" --out "$d/slurm" \
  >"$d/slurm.out" 2>"$d/slurm.err" &
triage_pid=$!
killed=""
for _ in $(seq 600); do
  p=$(pgrep -f "work --plan $d/plan" | head -1 || true)
  if [ -n "$p" ] && kill -9 "$p" 2>/dev/null; then
    killed=$p
    break
  fi
  sleep 0.05
done
wait "$triage_pid" || fail "triage --engine slurm exited $? ($(tail -1 "$d/slurm.err"))"
[ -n "$killed" ] || fail "no task process was found to kill"
jq -S "$groups" "$d/local/report.json" >"$d/local.groups"
jq -S "$groups" "$d/slurm/report.json" >"$d/slurm.groups"
diff "$d/local.groups" "$d/slurm.groups" || fail "the cluster's groups differ from the local ones"
[ "$(jq '.groups | length' "$d/slurm/report.json")" = 3 ] || fail "expected 3 groups"
[ "$(jq '.failed_units | length' "$d/slurm/report.json")" = 0 ] || fail "a unit was lost"
grep -q "ran again" "$d/slurm.err" || fail "the killed task was not run again: $(cat "$d/slurm.err")"
[ -f "$d/plan/round-1/slurm/array-1.sbatch" ] || fail "no retry array was submitted"
ls "$d"/plan/round-1/slurm/merge-*.out >/dev/null 2>&1 || fail "the merge did not run as a job"
grep -q "17 failing in 3 group(s)" "$d"/plan/round-1/slurm/merge-*.out ||
  fail "the merge job's output: $(cat "$d"/plan/round-1/slurm/merge-*.out)"

echo "== triage, slurm engine, a wait that ends before the array"
set +e
"$rootline" --json "${triage[@]}" --engine slurm -j 1 --wait 2 --retries 0 --plan "$d/plan-wait" \
  --out "$d/wait" >"$d/wait.json" 2>"$d/wait.err"
status=$?
set -e
[ "$status" = 1 ] || fail "a wait that ended should exit 1, not $status ($(tail -1 "$d/wait.err"))"
[ "$(jq '.failed_units | length' "$d/wait.json")" -gt 0 ] || fail "no unit named as left"
grep -q "cancelled job" "$d/wait.err" || fail "the array was not cancelled: $(cat "$d/wait.err")"
for _ in $(seq 30); do [ -z "$(squeue -h)" ] && break; sleep 0.5; done
[ -z "$(squeue -h)" ] || fail "jobs are left in the queue: $(squeue -h)"

echo "== bisect --parallel 3 on the cluster"
python3 "$src/fixtures/git/make_history.py" "$d/repo" --commits 64 --bad-at 40 >"$d/history.json"
good=$(jq -r .good "$d/history.json")
bisect=(--json bisect --repo "$d/repo" --good "$good" --bad main --stdin "$d/repo/tests/t1.in"
  --expect "$d/repo/tests/t1.out" --no-debug)
"$rootline" "${bisect[@]}" >"$d/seq.json"
"$rootline" "${bisect[@]}" --parallel 3 --engine slurm --plan "$d/bisect-plan" >"$d/par.json"
expected=$(jq -r .first_bad "$d/history.json")
[ "$(jq -r .first_bad.hash "$d/seq.json")" = "$expected" ] || fail "sequential first bad"
[ "$(jq -r .first_bad.hash "$d/par.json")" = "$expected" ] || fail "cluster first bad"
[ "$(jq .rounds "$d/par.json")" -le 3 ] || fail "more than 3 rounds for 63 commits"
echo "== explore --shards 4 on the cluster"
ex=$src/fixtures/explore/ctype_password
explore=(-q explore --src "$ex/main.c" --stdin "$ex/seed.txt" --loop-bound 2 --max-runs 3000)
"$rootline" "${explore[@]}" --out "$d/explore-local" || [ $? = 1 ]
"$rootline" "${explore[@]}" --out "$d/explore-slurm" --shards 4 --engine slurm --plan "$d/explore-plan" ||
  [ $? = 1 ]
keys() { for t in "$1"/test-*/test.json; do jq -r .path_key "$t"; done | sort; }
keys "$d/explore-local" >"$d/explore-local.keys"
keys "$d/explore-slurm" >"$d/explore-slurm.keys"
[ -s "$d/explore-local.keys" ] || fail "the local exploration wrote no tests"
diff "$d/explore-local.keys" "$d/explore-slurm.keys" >/dev/null ||
  fail "the cluster's shards found other paths than one local exploration"
ls "$d"/explore-plan/round-1/slurm/*.out >/dev/null 2>&1 || fail "the shards did not run as jobs"
echo "PASS"
