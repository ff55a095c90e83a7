#!/usr/bin/env bash
# A bounded soak (not part of the test suite): jobs of 4 to 8 ranks run weft-soak
# (tools/soak/soak.cc: random collectives and point-to-point on random groups, every
# result checked) one after another for the given minutes. Each job meets one fate,
# drawn at random:
#   clean  it runs to the end: every rank must say OK
#   kill   one rank gets SIGKILL at a random moment: weftrun must fail, and every rank
#          that fails, and weftrun's summary, must name the killed rank
#   stop   one rank gets SIGSTOP: the others must fail within WEFT_TIMEOUT (10 s here)
#          plus a margin, naming it, and weftrun must end the job
# It prints one line per job and the totals; it exits 1 if any check failed.
#
# usage: tools/soak.sh [--minutes M] [--seconds-per-job S] [--seed SEED] [--keep DIR]
set -uo pipefail
cd "$(dirname "$0")/.."

minutes=5
per_job=20
seed=$RANDOM
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --seconds-per-job) per_job="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
RANDOM=$seed
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/soak.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi

bazel build -c opt --symlink_prefix=/ //tools/soak:weft-soak //tools/weftrun:weftrun >&2 || exit 1
bin=$(bazel info -c opt --symlink_prefix=/ bazel-bin 2>/dev/null)
weftrun=$bin/tools/weftrun/weftrun
soak=$bin/tools/soak/weft-soak

# The pid of world rank `rank` among weftrun's children.
pid_of_rank() {
  local parent=$1 rank=$2 pid
  for pid in $(pgrep -P "$parent"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "RANK=$rank"; then
      echo "$pid"
      return
    fi
  done
}

jobs=0 failures=0 operations=0 bytes=0
declare -A fates=([clean]=0 [kill]=0 [stop]=0)
blamed_right=0 blamed_wrong=0 detect_total_ms=0 detected=0
end=$(($(date +%s) + minutes * 60))
echo "soak: seed $seed, $minutes min, about $per_job s per job; logs in $work"
while [ "$(date +%s)" -lt "$end" ]; do
  jobs=$((jobs + 1))
  n=$((4 + RANDOM % 5))
  job_seed=$RANDOM$RANDOM
  fate=$(printf '%s\n' clean kill stop | sed -n "$((1 + RANDOM % 3))p")
  victim=$((RANDOM % n))
  log="$work/job$jobs.log"
  started_ms=$(date +%s%3N)
  "$weftrun" -n "$n" -x WEFT_TIMEOUT=10 "$soak" --seconds "$per_job" --seed "$job_seed" \
    >"$log" 2>&1 &
  launcher=$!
  struck_ms=0
  if [ "$fate" != clean ]; then
    sleep "$((1 + RANDOM % (per_job - 2))).$((RANDOM % 10))"
    pid=$(pid_of_rank "$launcher" "$victim")
    if [ -n "$pid" ]; then
      [ "$fate" = kill ] && kill -KILL "$pid" 2>/dev/null
      [ "$fate" = stop ] && kill -STOP "$pid" 2>/dev/null
      struck_ms=$(date +%s%3N)
    else
      fate=clean  # the job ended before the strike
    fi
  fi
  # A generous bound on the whole job: its run, the failure timeout, weftrun's grace.
  limit=$((per_job + 60))
  while kill -0 "$launcher" 2>/dev/null && [ $(($(date +%s%3N) - started_ms)) -lt $((limit * 1000)) ]; do
    sleep 0.2
  done
  if kill -0 "$launcher" 2>/dev/null; then
    echo "job $jobs: $n ranks, $fate: HUNG beyond $limit s" | tee -a "$log"
    pkill -KILL -P "$launcher"
    kill -KILL "$launcher"
    failures=$((failures + 1))
    wait "$launcher" 2>/dev/null
    continue
  fi
  wait "$launcher"
  status=$?
  ended_ms=$(date +%s%3N)
  fates[$fate]=$((fates[$fate] + 1))
  ok=$(grep -c "weft-soak: rank [0-9]*: OK" "$log")
  wrong=$(grep -c "WRONG RESULT" "$log")
  ops=$(grep -o "OK: [0-9]* operations, [0-9]* bytes" "$log" | awk '{o+=$2; b+=$4} END {print o+0, b+0}')
  operations=$((operations + ${ops% *}))
  bytes=$((bytes + ${ops#* }))
  verdict=ok
  if [ "$wrong" -gt 0 ]; then
    verdict="WRONG RESULTS"
  elif [ "$fate" = clean ]; then
    [ "$status" -eq 0 ] && [ "$ok" -eq "$n" ] || verdict="FAILED (status $status, $ok of $n OK)"
  else
    if [ "$status" -eq 0 ]; then
      verdict="weftrun exited 0 after a $fate"
    fi
    # Every rank that failed must blame the victim ("rank V (host:pid)").
    while IFS= read -r line; do
      if echo "$line" | grep -q "rank $victim ([^)]*:[0-9]*)"; then
        blamed_right=$((blamed_right + 1))
      else
        blamed_wrong=$((blamed_wrong + 1))
        verdict="a survivor blamed another rank"
      fi
    done < <(grep "weft-soak: rank [0-9]*: FAILED" "$log" | grep -v "weft-soak: rank $victim:")
    if ! grep "^weftrun" "$log" | grep -q "rank $victim\b"; then
      verdict="weftrun's summary does not name rank $victim"
    fi
    detected=$((detected + 1))
    detect_total_ms=$((detect_total_ms + ended_ms - struck_ms))
  fi
  [ "$verdict" = ok ] || failures=$((failures + 1))
  printf 'job %d: %d ranks, %s%s: %s (%.1f s)\n' "$jobs" "$n" "$fate" \
    "$([ "$fate" = clean ] || echo " of rank $victim")" "$verdict" \
    "$(echo "($ended_ms - $started_ms) / 1000" | bc -l)"
done

echo "soak: $jobs jobs (clean ${fates[clean]}, kill ${fates[kill]}, stop ${fates[stop]}):" \
  "$operations operations checked, $bytes bytes;" \
  "survivors naming the right rank $blamed_right, another $blamed_wrong;" \
  "strike to job end $([ $detected -gt 0 ] && echo "$((detect_total_ms / detected)) ms" || echo -) on average;" \
  "$failures job(s) failed a check"
[ "$failures" -eq 0 ]
