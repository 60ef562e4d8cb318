#!/usr/bin/env bash
# Starts and stops a throw-away single-node Slurm cluster (munged + slurmctld +
# slurmd) whose whole state lives in one scratch directory, for tests that need
# a real scheduler. Meant for Debian 12 (slurm-wlm 22.05, munge 0.5), as root,
# with no init system: nothing under /etc, /run or /var is used or changed.
#
# Usage:
#   slurm_cluster.sh start DIR    # prints "export SLURM_CONF=DIR/slurm.conf"
#   slurm_cluster.sh status DIR   # exit 0 when all three daemons run
#   slurm_cluster.sh stop DIR     # idempotent; only touches DIR's daemons
#
# Typical use from a test:  eval "$(tests/cluster/slurm_cluster.sh start "$d")"
# See tests/cluster/README.md.
set -euo pipefail

readonly START_TIMEOUT=${SLURM_CLUSTER_START_TIMEOUT:-30}  # seconds
readonly STOP_TIMEOUT=${SLURM_CLUSTER_STOP_TIMEOUT:-10}    # seconds, per daemon
readonly DAEMONS=(munged slurmctld slurmd)

die() {
  echo "slurm_cluster: error: $*" >&2
  exit 1
}

log() { echo "slurm_cluster: $*" >&2; }

usage() {
  echo "usage: $0 {start|stop|status} DIR" >&2
  exit 2
}

# --- paths -------------------------------------------------------------------

# All paths derive from DIR so that two clusters in two DIRs never share a file.
set_paths() {
  DIR=$1
  CONF=$DIR/slurm.conf
  MUNGE_DIR=$DIR/munge
  MUNGE_SOCKET=$MUNGE_DIR/munge.socket
  RUN_DIR=$DIR/run
  LOG_DIR=$DIR/log
}

pid_file() {
  case $1 in
    munged) echo "$MUNGE_DIR/munged.pid" ;;
    *) echo "$RUN_DIR/$1.pid" ;;
  esac
}

log_file() {
  case $1 in
    munged) echo "$MUNGE_DIR/munged.log" ;;
    *) echo "$LOG_DIR/$1.log" ;;
  esac
}

# Prints the pid of DAEMON if its pid file names a live process that really is
# that daemon started for this DIR. The command-line check guards against a
# recycled pid: we must never signal a process some other DIR (or the host)
# owns.
daemon_pid() {
  local name=$1 file pid cmdline
  file=$(pid_file "$name")
  [ -s "$file" ] || return 1
  pid=$(tr -dc '0-9' <"$file")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || return 1
  case $cmdline in
    *"$name"*) ;;
    *) return 1 ;;
  esac
  case $name in
    munged) [[ $cmdline == *"--socket=$MUNGE_SOCKET"* ]] || return 1 ;;
    *) [[ $cmdline == *"-f $CONF"* ]] || return 1 ;;
  esac
  echo "$pid"
}

# --- start -------------------------------------------------------------------

check_tools() {
  local t
  for t in munged mungekey slurmctld slurmd sinfo; do
    command -v "$t" >/dev/null 2>&1 ||
      die "$t not found; install the Debian packages slurm-wlm and munge"
  done
  [ "$(id -u)" -eq 0 ] || die "must run as root (SlurmUser=root, slurmd needs root)"
}

# True when something accepts TCP connections on 127.0.0.1:PORT. Every daemon
# here binds all addresses, so loopback is enough to see a clash.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Picks two adjacent free ports in 20000-29999, starting from a hash of DIR so
# that clusters in different DIRs (e.g. parallel tests) usually get different
# ports even before either has bound its port.
pick_ports() {
  local hash base i
  hash=$(printf '%s' "$DIR" | cksum | cut -d' ' -f1)
  base=$((20000 + (hash % 5000) * 2))
  for ((i = 0; i < 200; i++)); do
    if ! port_in_use "$base" && ! port_in_use $((base + 1)); then
      CTLD_PORT=$base
      SLURMD_PORT=$((base + 1))
      return 0
    fi
    base=$((base + 2))
    [ "$base" -lt 30000 ] || base=20000
  done
  die "no two free TCP ports found in 20000-29999"
}

# slurm.conf has no quoting, so paths with blanks or '#' would be cut; and a
# unix socket path must fit sun_path (108 bytes incl. NUL).
check_dir_path() {
  case $DIR in
    *[[:space:]#]*) die "DIR must not contain blanks or '#': $DIR" ;;
  esac
  [ "${#MUNGE_SOCKET}" -lt 108 ] ||
    die "DIR path too long for a unix socket ($MUNGE_SOCKET); use a shorter DIR"
}

start_munge() {
  mkdir -p "$MUNGE_DIR"
  mungekey --create --keyfile="$MUNGE_DIR/munge.key" --force >/dev/null
  chmod 0600 "$MUNGE_DIR/munge.key"
  # --force: munged otherwise refuses a socket whose directory and all its
  # parents are not world-executable (mktemp -d makes DIR 0700); every client
  # here runs as root, so that check protects nothing in this setup.
  munged --force \
    --socket="$MUNGE_SOCKET" \
    --key-file="$MUNGE_DIR/munge.key" \
    --pid-file="$(pid_file munged)" \
    --log-file="$(log_file munged)" \
    --seed-file="$MUNGE_DIR/munged.seed" \
    </dev/null >>"$LOG_DIR/munged.stdout" 2>&1 ||
    fail_start munged "munged did not start"
  wait_for "munged" munge_ready 10
}

munge_ready() {
  munge --socket="$MUNGE_SOCKET" --no-input 2>/dev/null |
    unmunge --socket="$MUNGE_SOCKET" >/dev/null 2>&1
}

# Prints this host's hardware line from slurmd -C (CPUs, sockets, cores,
# threads, RealMemory) without the NodeName= field. SLURM_CONF is unset so a
# caller's other cluster cannot influence what is detected.
node_hardware() {
  local line
  line=$(env -u SLURM_CONF slurmd -C 2>/dev/null | grep -m1 '^NodeName=') ||
    die "slurmd -C did not report this node's hardware"
  echo "${line#NodeName=* }"
}

write_config() {
  local host hw
  host=$(hostname -s)
  hw=$(node_hardware)
  # NodeAddr/SlurmctldHost address are 127.0.0.1 so that nothing depends on
  # the host name resolving; only the node *name* must equal `hostname -s`,
  # since that is how slurmd finds its own NodeName line.
  cat >"$CONF" <<EOF
# Generated by tests/cluster/slurm_cluster.sh; all state lives in $DIR.
ClusterName=rootline$CTLD_PORT
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root

# cred_expire also sets how long a requeued job waits before it may start
# again (default 120 s); 5 is the minimum Slurm accepts.
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET,cred_expire=5

StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$(pid_file slurmctld)
SlurmdPidFile=$(pid_file slurmd)
SlurmctldLogFile=$(log_file slurmctld)
SlurmdLogFile=$(log_file slurmd)
SlurmctldDebug=info
SlurmdDebug=info

# No cgroups, no accounting daemon: plugins that work in a container.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
# sacct needs slurmdbd; finished jobs are logged here instead.
JobCompType=jobcomp/filetxt
JobCompLoc=$LOG_DIR/jobcomp.log
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Short grace period between SIGTERM and SIGKILL for cancelled jobs.
KillWait=5
# A requeued job may not start before its begin time (requeue + cred_expire),
# and that passing is no scheduling event: it waits for the periodic main
# scheduler (60 s by default) or backfill run (30 s). Running both every
# second keeps retries fast; it is cheap on a one-node cluster.
SchedulerParameters=bf_interval=1,sched_interval=1
# Debian ships no /bin/mail; this silences an error at start.
MailProg=/bin/true

NodeName=$host NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  # A test may add lines (e.g. RequeueExit=137); for most keys the last
  # occurrence wins.
  if [ -n "${SLURM_CLUSTER_EXTRA_CONF:-}" ]; then
    printf '%s\n' "# From SLURM_CLUSTER_EXTRA_CONF:" "$SLURM_CLUSTER_EXTRA_CONF" >>"$CONF"
  fi
}

# Starts a Slurm daemon in the foreground (-D) as our background child, in a
# session of its own (setsid) so that signals meant for the caller's terminal
# or process group do not reach it. -D rather than letting it fork: the forking
# parent exits 0 before the daemon reads its plugins, so a fatal error would
# only show as a timeout; with -D we see it die. Output goes to a file so that
# a caller capturing our stdout ($(...)) does not wait on the daemon holding
# the pipe open. The daemon writes its own pid file, which stop relies on.
start_slurm_daemon() {
  local name=$1
  SLURM_CONF=$CONF setsid "$name" -D -f "$CONF" </dev/null >>"$LOG_DIR/$name.stdout" 2>&1 &
  wait_for "$name" "daemon_pid $name" 10 $!
}

# True while PID runs (a dead child of ours stays a zombie until we exit, so
# kill -0 alone would still succeed).
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

node_state() {
  SLURM_CONF=$CONF sinfo --noheader --nodes="$(hostname -s)" --format=%t 2>/dev/null
}

node_idle() {
  [ "$(node_state)" = idle ]
}

# Polls COMMAND for up to SECONDS; fails the start with WHAT's log if it never
# succeeds, or at once if process PID (optional) has died meanwhile.
wait_for() {
  local what=$1 cmd=$2 seconds=$3 pid=${4:-} deadline
  deadline=$((SECONDS + seconds))
  until eval "$cmd" >/dev/null 2>&1; do
    [ -z "$pid" ] || alive "$pid" || fail_start "$what" "$what exited during start"
    [ "$SECONDS" -lt "$deadline" ] ||
      fail_start "$what" "$what not ready after ${seconds}s"
    sleep 0.1
  done
}

# Shows the tail of a daemon's logs, stops whatever did come up, and fails.
fail_start() {
  local name=$1 msg=$2 f
  for f in "$(log_file "$name")" "$LOG_DIR/$name.stdout"; do
    [ -s "$f" ] || continue
    echo "--- tail of $f" >&2
    tail -n 20 "$f" >&2
  done
  stop_all >/dev/null 2>&1 || true
  die "$msg (state in $DIR)"
}

cmd_start() {
  check_tools
  check_dir_path
  local name
  for name in "${DAEMONS[@]}"; do
    if daemon_pid "$name" >/dev/null; then
      die "a cluster is already running in $DIR; run: $0 stop $DIR"
    fi
  done
  mkdir -p "$RUN_DIR" "$LOG_DIR" "$DIR/state" "$DIR/spool"
  pick_ports
  write_config
  start_munge
  start_slurm_daemon slurmctld
  start_slurm_daemon slurmd
  # slurmd registers with slurmctld; the node turns idle once that worked.
  wait_for slurmd node_idle "$START_TIMEOUT" "$(daemon_pid slurmd)"
  log "up in ${SECONDS}s (slurmctld port $CTLD_PORT, slurmd port $SLURMD_PORT)"
  echo "export SLURM_CONF=$CONF"
}

# --- stop --------------------------------------------------------------------

# Cancels every job so that slurmstepd and job processes end through Slurm
# itself before the daemons go. Skipped if slurmctld is not up.
cancel_jobs() {
  daemon_pid slurmctld >/dev/null || return 0
  SLURM_CONF=$CONF scancel --full --quiet --user=root 2>/dev/null || return 0
  local deadline=$((SECONDS + STOP_TIMEOUT))
  while [ "$SECONDS" -lt "$deadline" ] &&
    [ -n "$(SLURM_CONF=$CONF squeue --noheader --states=R,CG,S 2>/dev/null)" ]; do
    sleep 0.2
  done
}

# Sends SIGTERM to the named daemons of this DIR at once, waits for them
# (bounded), then SIGKILLs whichever is still there.
stop_daemons() {
  local name pid deadline
  local -A pids=()
  for name in "$@"; do
    pid=$(daemon_pid "$name") || continue
    pids[$name]=$pid
    kill -TERM "$pid" 2>/dev/null || true
  done
  deadline=$((SECONDS + STOP_TIMEOUT))
  for name in "${!pids[@]}"; do
    pid=${pids[$name]}
    while [ -d "/proc/$pid" ] && [ "$SECONDS" -lt "$deadline" ]; do
      sleep 0.1
    done
    if [ -d "/proc/$pid" ]; then
      log "$name (pid $pid) ignored SIGTERM for ${STOP_TIMEOUT}s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

# Prints the pids of all descendants of PID, reading /proc (no procps needed).
descendants() {
  local stat pid rest ppid child
  local -a children=()
  for stat in /proc/[0-9]*/stat; do
    rest=$(cat "$stat" 2>/dev/null) || continue
    pid=${rest%% *}
    rest=${rest##*) }  # drop "pid (comm) "; comm may contain spaces
    ppid=$(echo "$rest" | cut -d' ' -f2)
    [ "$ppid" = "$1" ] && children+=("$pid")
  done
  for child in "${children[@]}"; do
    echo "$child"
    descendants "$child"
  done
}

# Kills Slurm processes of this cluster that are still alive once the daemons
# are stopped: slurmstepd (which outlives slurmd by design, e.g. when a job
# did not end on scancel) together with the job processes under it, and a
# stray slurmscriptd. They are recognised by SLURM_CONF=DIR/slurm.conf in
# their environment, which they inherit from the daemons we started; the
# process name check keeps the caller's own shell (which may have eval'd the
# same SLURM_CONF) and anything else out of reach.
kill_leftovers() {
  local environ pid comm
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
    case $comm in
      slurmstepd | slurmd | slurmctld | slurmscriptd) ;;
      *) continue ;;
    esac
    tr '\0' '\n' 2>/dev/null <"$environ" | grep -qxF "SLURM_CONF=$CONF" || continue
    log "killing leftover $comm (pid $pid) and its children"
    # Stop the parent first so it cannot respawn anything, then its tree.
    kill -STOP "$pid" 2>/dev/null || true
    # shellcheck disable=SC2046  # one pid per word
    kill -KILL "$pid" $(descendants "$pid") 2>/dev/null || true
  done
}

stop_all() {
  cancel_jobs
  # The Slurm daemons can go down together; munged must outlive both since
  # they authenticate through it while shutting down.
  stop_daemons slurmd slurmctld
  stop_daemons munged
  kill_leftovers
  rm -f "$MUNGE_SOCKET"
}

cmd_stop() {
  # Nothing to do for a DIR that never held a cluster: stop is idempotent.
  [ -d "$DIR" ] || return 0
  stop_all
}

# --- status ------------------------------------------------------------------

cmd_status() {
  [ -d "$DIR" ] || die "no such directory: $DIR"
  local name pid up=0
  for name in "${DAEMONS[@]}"; do
    if pid=$(daemon_pid "$name"); then
      echo "$name: running (pid $pid)"
      up=$((up + 1))
    else
      echo "$name: stopped"
    fi
  done
  if daemon_pid slurmctld >/dev/null; then
    echo "node: $(node_state || echo unknown)"
  fi
  [ "$up" -eq "${#DAEMONS[@]}" ] || return 3
}

main() {
  [ $# -eq 2 ] || usage
  local cmd=$1
  [ -n "$2" ] || usage
  # Absolute and without symlinks: the paths go into slurm.conf, and the pid
  # checks compare them with the daemons' command lines.
  set_paths "$(realpath -m -- "$2")"
  case $cmd in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    *) usage ;;
  esac
}

main "$@"
