#!/usr/bin/env bash
# End-to-end check of slurm_cluster.sh on this machine (root, Debian 12 with
# slurm-wlm and munge installed): starts a cluster in a fresh directory, runs
# a throttled job array plus a dependent job, checks that a killed task can be
# retried with `scontrol requeue`, stops the cluster and checks that none of
# its processes is left. Prints "N passed, N failed"; exits non-zero on any
# failure. Takes about 20 s.
#
# Usage: tests/cluster/smoke_test.sh [DIR]   (default: a new mktemp dir)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/slurm_cluster.sh
dir=${1:-$(mktemp -d /tmp/slurm-smoke.XXXXXX)}
passed=0
failed=0

check() {
  local what=$1
  shift
  if "$@"; then
    echo "ok: $what"
    passed=$((passed + 1))
  else
    echo "FAIL: $what"
    failed=$((failed + 1))
  fi
}

# Polls a shell condition for up to N seconds.
wait_until() {
  local cond=$2 deadline=$((SECONDS + $1))
  until eval "$cond"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

job_state() { squeue --noheader --jobs="$1" --format=%T 2>/dev/null | head -n1; }
job_gone() { [ -z "$(squeue --noheader --jobs="$1" 2>/dev/null)" ]; }

# Every process whose command line or environment names DIR: the daemons,
# slurmstepd and job processes of this cluster.
procs_of_dir() {
  local f pid
  for f in /proc/[0-9]*/cmdline; do
    pid=${f#/proc/}
    pid=${pid%/cmdline}
    if [ "$pid" = $$ ] || [ "$pid" = "$BASHPID" ]; then continue; fi
    case $(cat "/proc/$pid/comm" 2>/dev/null) in
      slurm* | munged | sleep) ;;
      *) continue ;;
    esac
    if tr '\0' '\n' 2>/dev/null <"$f" | grep -qF "$dir/" ||
      tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" | grep -qxF "SLURM_CONF=$dir/slurm.conf"; then
      echo "$pid $(cat "/proc/$pid/comm" 2>/dev/null)"
    fi
  done
}

cleanup() { "$cluster" stop "$dir" || true; }
trap cleanup EXIT

t0=$SECONDS
eval "$("$cluster" start "$dir")"
echo "started in $((SECONDS - t0))s: SLURM_CONF=$SLURM_CONF"
check "status reports all daemons up" "$cluster" status "$dir"
check "node is idle" test "$(sinfo --noheader --format=%t)" = idle

# A 4-task array, at most 2 at once, then a job that runs after it.
array=$(sbatch --parsable --array=0-3%2 --output=/dev/null \
  --wrap "echo \$SLURM_ARRAY_TASK_ID > $dir/out.\$SLURM_ARRAY_TASK_ID")
after=$(sbatch --parsable --dependency="afterany:$array" --output=/dev/null \
  --wrap "cat $dir/out.* > $dir/all")
check "array and dependent job finish" wait_until 60 "job_gone $array && job_gone $after"
check "dependent job saw all 4 outputs" test "$(tr '\n' ' ' <"$dir/all" 2>/dev/null)" = "0 1 2 3 "
check "jobcomp log has 5 completed jobs" \
  test "$(grep -c 'JobState=COMPLETED' "$dir/log/jobcomp.log")" -eq 5

# A task killed by SIGKILL (like the OOM killer) fails; `scontrol requeue`
# runs it again under the same job id with SLURM_RESTART_COUNT set.
job=$(sbatch --parsable --requeue --output=/dev/null --wrap \
  "echo run\${SLURM_RESTART_COUNT:-0} >> $dir/rq; [ -n \"\${SLURM_RESTART_COUNT:-}\" ] || kill -9 \$\$")
check "killed task fails" wait_until 30 "scontrol show job $job | grep -q JobState=FAILED"
scontrol requeue "$job"
check "requeued task runs again and completes" \
  wait_until 30 "scontrol show job $job | grep -q 'JobState=COMPLETED.*'"
check "task ran twice" test "$(tr '\n' ' ' <"$dir/rq" 2>/dev/null)" = "run0 run1 "

# A running task can be requeued too (it is killed and started again).
job=$(sbatch --parsable --requeue --output=/dev/null --wrap \
  "echo run\${SLURM_RESTART_COUNT:-0} >> $dir/rq2; sleep 300")
check "long task runs" wait_until 30 "[ \"\$(job_state $job)\" = RUNNING ] && [ -s $dir/rq2 ]"
scontrol requeue "$job"
check "running task requeued and restarted" wait_until 30 "grep -q run1 $dir/rq2"

# Stop with that task still running: nothing of this DIR may survive.
trap - EXIT
t0=$SECONDS
"$cluster" stop "$dir"
echo "stopped in $((SECONDS - t0))s"
check "no process of $dir left" test -z "$(procs_of_dir)"
check "stop is idempotent" "$cluster" stop "$dir"
check "status reports stopped" test "$("$cluster" status "$dir" >/dev/null; echo $?)" = 3

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
