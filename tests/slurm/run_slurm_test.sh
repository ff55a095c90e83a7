#!/usr/bin/env bash
# run_slurm_test.sh: run a weft program under a real, private, one-node Slurm cluster.
#
#   tests/slurm/run_slurm_test.sh [PROGRAM [ARGS...]]
#
# What it does (see docs/SLURM.md for the longer story):
#   1. installs slurm-wlm and munge from the distribution's archive when they are missing
#      (needs root and apt-get; Debian 12 ships Slurm 22.05);
#   2. writes a private configuration under a fresh temporary directory: its own munge key,
#      munged socket, pid, log and seed files, and a slurm.conf / cgroup.conf for one node
#      named after `hostname -s` at 127.0.0.1, with state, spool, log and pid files there too
#      and free, randomly chosen ports; then starts munged, slurmctld and slurmd in the
#      foreground (-D) as background jobs of this script and waits until the node is idle;
#   3. uses PROGRAM when given, else builds //tests/rendezvous:launched_program with bazel;
#   4. runs `srun -n 4 --overcommit --time=2 PROGRAM` (at most 120 s) and checks that it
#      exits 0 and that each of the 4 ranks printed "launched_program rank R of 4 ok";
#   5. always stops everything it started (daemons and any leftover step processes) and
#      removes the temporary directory, however it ends.
#
# The last line is "slurm_test: PASS: ..." and the exit status 0 only when the run passed;
# anything else prints "slurm_test: FAIL: <why>" with the tails of the daemons' logs and
# exits non-zero. A machine where Slurm cannot run at all fails; it never passes quietly.
#
# Environment knobs (all optional):
#   SLURM_TEST_NTASKS   ranks to start (default 4)
#   SLURM_TEST_SRUN_TIMEOUT  seconds srun may take in all (default 120)
#   SLURM_TEST_KEEP=1   keep the temporary directory (logs, configuration) for a post-mortem
#   BAZEL               the bazel command to build with (default: bazel)
#   BAZEL_STARTUP_OPTS  startup options for it, e.g. "--output_base=/tmp/ob"
#   BAZEL_BUILD_OPTS    extra build options, e.g. "--symlink_prefix=/"
set -euo pipefail

readonly NTASKS="${SLURM_TEST_NTASKS:-4}"
readonly SRUN_TIMEOUT_S="${SLURM_TEST_SRUN_TIMEOUT:-120}"  # the whole srun, start to last exit
readonly IDLE_TIMEOUT_S=60    # daemons' start until the node shows as idle
readonly TARGET=//tests/rendezvous:launched_program
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
readonly SCRIPT_DIR REPO_ROOT
readonly START_S=$SECONDS

log() { echo "slurm_test: $*"; }

# Prints the tails of whatever daemon logs exist, so a failure explains itself.
show_logs() {
  [[ -n "${RUN_DIR:-}" && -d "${RUN_DIR:-}" ]] || return 0
  local f
  for f in "$RUN_DIR"/log/*; do
    # srun's output is printed in full where it is checked.
    [[ -s "$f" && "$f" != */srun.out ]] || continue
    echo "----- tail of $f -----"
    tail -n 25 "$f"
  done
  echo "-----"
}

fail() {
  log "FAIL: $*"
  show_logs
  exit 1
}

# --- cleanup -----------------------------------------------------------------------------

RUN_DIR=""
MUNGED_PID=""
SLURMCTLD_PID=""
SLURMD_PID=""
SRUN_PID=""

# Waits up to $2 tenths of a second for process $1 to go away.
wait_gone() {
  local pid=$1 tenths=$2
  while ((tenths-- > 0)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  return 1
}

# Stops process $1 (if it is still there): SIGTERM, then SIGKILL after 5 s.
stop_pid() {
  local pid=$1
  [[ -n "$pid" ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  wait_gone "$pid" 50 || kill -KILL "$pid" 2>/dev/null || true
  wait_gone "$pid" 20 || true
}

# Processes that carry this run's configuration in their environment: slurmstepd and the
# tasks it started inherit SLURM_CONF=$RUN_DIR/etc/slurm.conf. Only those are ours; no process
# is chosen by its name. This shell's own /proc environ is the one it was started with, so
# it is never among them.
our_processes() {
  local marker="SLURM_CONF=$RUN_DIR/etc/slurm.conf" p pid var
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [[ "$pid" != "$$" ]] || continue
    # Read in bash itself: a helper process would carry SLURM_CONF and match itself.
    { while IFS= read -r -d '' var; do
        if [[ "$var" == "$marker" ]]; then
          echo "$pid"
          break
        fi
      done <"$p/environ"; } 2>/dev/null
  done
}

cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  if [[ -n "$RUN_DIR" && -d "$RUN_DIR" ]]; then
    # An srun still running (this script was interrupted): timeout passes SIGTERM on.
    stop_pid "$SRUN_PID"
    # Ask Slurm to end any job still there (a timed-out srun leaves its step running).
    if [[ -n "$SLURMCTLD_PID" ]] && kill -0 "$SLURMCTLD_PID" 2>/dev/null; then
      timeout 10 scancel --quiet --user="$(id -un)" >/dev/null 2>&1
    fi
    stop_pid "$SLURMD_PID"
    stop_pid "$SLURMCTLD_PID"
    # Whatever is left of steps and tasks (slurmstepd detaches from slurmd).
    local pids
    mapfile -t pids < <(our_processes)
    if ((${#pids[@]})); then
      kill -TERM "${pids[@]}" 2>/dev/null
      sleep 1
      mapfile -t pids < <(our_processes)
      ((${#pids[@]} == 0)) || kill -KILL "${pids[@]}" 2>/dev/null
    fi
    stop_pid "$MUNGED_PID"
    wait 2>/dev/null
    if [[ "${SLURM_TEST_KEEP:-0}" == 1 ]]; then
      log "kept $RUN_DIR"
    else
      rm -rf "$RUN_DIR"
    fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'log "FAIL: interrupted (SIGINT)"; exit 130' INT
trap 'log "FAIL: terminated (SIGTERM)"; exit 143' TERM

# --- 1. packages -------------------------------------------------------------------------

need_install=()
for cmd in munged mungekey slurmctld slurmd srun sinfo scancel; do
  command -v "$cmd" >/dev/null 2>&1 || need_install=(slurm-wlm munge)
done
if ((${#need_install[@]})); then
  [[ "$(id -u)" == 0 ]] || fail "slurm-wlm/munge are not installed and this is not root"
  command -v apt-get >/dev/null || fail "slurm-wlm/munge are not installed and there is no apt-get"
  log "installing ${need_install[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Try the lists already on the machine first; refresh them only if that fails.
  if ! apt-get install -y -qq --no-install-recommends "${need_install[@]}" >/tmp/slurm_test_apt.$$ 2>&1; then
    apt-get update -qq >>/tmp/slurm_test_apt.$$ 2>&1 || true
    if ! apt-get install -y -qq --no-install-recommends "${need_install[@]}" >>/tmp/slurm_test_apt.$$ 2>&1; then
      tail -n 20 /tmp/slurm_test_apt.$$
      rm -f /tmp/slurm_test_apt.$$
      fail "apt-get install ${need_install[*]} failed"
    fi
  fi
  rm -f /tmp/slurm_test_apt.$$
  for cmd in munged mungekey slurmctld slurmd srun sinfo scancel; do
    command -v "$cmd" >/dev/null 2>&1 || fail "$cmd is still missing after installing"
  done
fi
[[ "$(id -u)" == 0 ]] || fail "must run as root (the private slurmctld and slurmd run as SlurmUser=root)"
log "$(slurmd -V), munge $(munged -V 2>&1 | awk '{print $1}' | sed 's/munge-//')"

# The ranks must see only what this cluster's srun gives them: an outer Slurm job's
# variables would send srun to that job (SLURM_JOB_ID) and an outer launcher's or env://'s
# variables would take precedence over Slurm's in init_process_group(). WEFT_* settings
# (say WEFT_PORT) pass through.
for var in $(compgen -e); do
  case "$var" in
    SLURM_* | OMPI_* | PMI_* | PMIX_* | MASTER_ADDR | MASTER_PORT | WORLD_SIZE | RANK | \
      LOCAL_RANK | LOCAL_WORLD_SIZE | WEFT_LAUNCHER_STORE) unset "$var" ;;
  esac
done

# --- 3 (first, so a failing build costs no daemons). the program -------------------------

if (($# >= 1)); then
  PROGRAM=$1
  shift
  [[ -x "$PROGRAM" ]] || fail "program '$PROGRAM' is not an executable file"
  PROGRAM=$(realpath "$PROGRAM")
else
  BAZEL=${BAZEL:-bazel}
  # shellcheck disable=SC2206  # the options are meant to split on spaces
  startup=(${BAZEL_STARTUP_OPTS:-})
  # shellcheck disable=SC2206
  build_opts=(${BAZEL_BUILD_OPTS:-})
  log "building $TARGET"
  # --symlink_prefix=/: the workspace's bazel-* links keep pointing at the default build.
  (cd "$REPO_ROOT" && "$BAZEL" "${startup[@]}" build -c opt --symlink_prefix=/ "${build_opts[@]}" "$TARGET") ||
    fail "bazel build -c opt $TARGET failed"
  # Ask bazel where bazel-bin is: the bazel-bin symlink may be absent (--symlink_prefix).
  bin=$(cd "$REPO_ROOT" && "$BAZEL" "${startup[@]}" info -c opt --symlink_prefix=/ "${build_opts[@]}" bazel-bin 2>/dev/null) ||
    fail "bazel info bazel-bin failed"
  PROGRAM="$bin/tests/rendezvous/launched_program"
  [[ -x "$PROGRAM" ]] || fail "the build did not produce $PROGRAM"
fi
log "program: $PROGRAM $*"

# --- 2. private munge + slurm ------------------------------------------------------------

RUN_DIR=$(mktemp -d /tmp/weft_slurm_test.XXXXXX)
# munged insists that every directory above its socket is searchable by all, and that
# the key is readable by its owner only; the key file is what keeps the directory private.
chmod 755 "$RUN_DIR"
mkdir -p "$RUN_DIR"/{etc,munge,log,run,state,spool}
chmod 700 "$RUN_DIR/etc"
chmod 755 "$RUN_DIR/munge"

HOST=$(hostname -s)
CPUS=$(nproc)
readonly HOST CPUS
readonly MUNGE_SOCKET="$RUN_DIR/munge/munge.socket"

# A free TCP port among 40000-59999 (weft's job-derived store ports are 10000-29999),
# different from the ones in "$@".
free_port() {
  local port tries=200 taken
  taken=$(ss -Htan 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u)
  while ((tries-- > 0)); do
    port=$((40000 + RANDOM % 20000))
    grep -qx "$port" <<<"$taken" && continue
    [[ " $* " == *" $port "* ]] && continue
    echo "$port"
    return 0
  done
  return 1
}
CTLD_PORT=$(free_port) || fail "no free port for slurmctld"
SLURMD_PORT=$(free_port "$CTLD_PORT") || fail "no free port for slurmd"
# Fresh state means job ids would start at 1 every run; a random first id spreads the
# job-derived store ports of consecutive runs.
FIRST_JOB_ID=$((1000 + RANDOM * 16 + RANDOM % 16))

mungekey --create --keyfile="$RUN_DIR/munge/munge.key" >/dev/null 2>&1 ||
  fail "mungekey --create failed"
chmod 600 "$RUN_DIR/munge/munge.key"

cat >"$RUN_DIR/etc/slurm.conf" <<EOF
# Private one-node cluster of tests/slurm/run_slurm_test.sh; everything lives in $RUN_DIR.
ClusterName=weft-test
MailProg=/bin/true
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$RUN_DIR/state
SlurmdSpoolDir=$RUN_DIR/spool
SlurmctldPidFile=$RUN_DIR/run/slurmctld.pid
SlurmdPidFile=$RUN_DIR/run/slurmd.pid
SlurmctldLogFile=$RUN_DIR/log/slurmctld.log
SlurmdLogFile=$RUN_DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups, no accounting, no MPI plugin: the tasks are plain processes.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
FirstJobId=$FIRST_JOB_ID
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=5
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
# Slurm 22.05 reads cgroup.conf only for cgroup plugins, and none is configured; one is
# written anyway so that a host's /etc/slurm/cgroup.conf is never picked up. (Its
# "CgroupPlugin=disabled" exists only from Slurm 23.x, so it is not set here.)
cat >"$RUN_DIR/etc/cgroup.conf" <<EOF
# No cgroup plugin is configured in slurm.conf (proctrack/linuxproc, task/none).
CgroupAutomount=no
EOF
export SLURM_CONF="$RUN_DIR/etc/slurm.conf"

log "starting munged, slurmctld (port $CTLD_PORT) and slurmd (port $SLURMD_PORT) in $RUN_DIR"
munged -F --force --key-file="$RUN_DIR/munge/munge.key" --socket="$MUNGE_SOCKET" \
  --pid-file="$RUN_DIR/run/munged.pid" --log-file="$RUN_DIR/log/munged.log" \
  --seed-file="$RUN_DIR/munge/munged.seed" >"$RUN_DIR/log/munged.out" 2>&1 &
MUNGED_PID=$!
for _ in $(seq 50); do
  [[ -S "$MUNGE_SOCKET" ]] && break
  kill -0 "$MUNGED_PID" 2>/dev/null || break
  sleep 0.1
done
munge -n -S "$MUNGE_SOCKET" 2>"$RUN_DIR/log/munge_check.out" | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>>"$RUN_DIR/log/munge_check.out" ||
  fail "munged does not answer on $MUNGE_SOCKET"

slurmctld -D -i -f "$SLURM_CONF" >"$RUN_DIR/log/slurmctld.out" 2>&1 &
SLURMCTLD_PID=$!
slurmd -D -f "$SLURM_CONF" >"$RUN_DIR/log/slurmd.out" 2>&1 &
SLURMD_PID=$!

state=""
daemons_start_s=$SECONDS
deadline=$((SECONDS + IDLE_TIMEOUT_S))
while ((SECONDS < deadline)); do
  kill -0 "$SLURMCTLD_PID" 2>/dev/null || fail "slurmctld exited during startup"
  kill -0 "$SLURMD_PID" 2>/dev/null || fail "slurmd exited during startup"
  state=$(timeout 5 sinfo -h -N -n "$HOST" -o %T 2>/dev/null || true)
  [[ "$state" == idle ]] && break
  sleep 1
done
[[ "$state" == idle ]] || fail "node $HOST not idle after ${IDLE_TIMEOUT_S} s (state: '${state:-no answer}')"
log "node $HOST idle with $CPUS CPUs $((SECONDS - daemons_start_s)) s after starting the daemons"

# --- 4. the run ----------------------------------------------------------------------------

srun_rc=0
srun_start_s=$SECONDS
# In the background and waited for, so that a signal to this script is acted on at once
# (bash runs traps only after a foreground command ends).
timeout -k 10 "$SRUN_TIMEOUT_S" srun -n "$NTASKS" --overcommit --time=2 --kill-on-bad-exit=1 \
  "$PROGRAM" "$@" >"$RUN_DIR/log/srun.out" 2>&1 &
SRUN_PID=$!
wait "$SRUN_PID" || srun_rc=$?
SRUN_PID=""
echo "----- srun output -----"
cat "$RUN_DIR/log/srun.out"
echo "-----"
if ((srun_rc == 124 || srun_rc == 137)); then
  fail "srun -n $NTASKS did not finish within ${SRUN_TIMEOUT_S} s"
fi
((srun_rc == 0)) || fail "srun -n $NTASKS exited with status $srun_rc"
missing=()
for ((r = 0; r < NTASKS; r++)); do
  grep -q "^launched_program rank $r of $NTASKS ok" "$RUN_DIR/log/srun.out" || missing+=("$r")
done
((${#missing[@]} == 0)) || fail "no 'ok' line from rank(s) ${missing[*]}"
log "all $NTASKS ranks ok; srun took $((SECONDS - srun_start_s)) s, the whole test $((SECONDS - START_S)) s"
log "PASS: srun -n $NTASKS ran $NTASKS ranks"
