#!/usr/bin/env bash
# An emulated cluster on this machine, for benchmarks across "hosts": H network
# namespaces joined by a bridge (in a namespace of its own), each host with its own IPC
# and UTS namespaces (its hostname is its name) and its own temporary directory
# (TMPDIR, and Open MPI's shared-memory files), so that processes on different hosts
# share no memory and talk over the network, as on separate machines. Each host's link is shaped by tc netem (a rate
# and a one-way delay on what it sends), so the network and not the cores is what costs.
#
#   tools/bench/emulated_cluster.sh up NAME HOSTS [RATE [DELAY]]   (default 1gbit 50us)
#   tools/bench/emulated_cluster.sh run NAME HOST COMMAND...       COMMAND on host HOST
#   tools/bench/emulated_cluster.sh agent HOST COMMAND_LINE        the same, for launchers
#   tools/bench/emulated_cluster.sh down NAME
#
# Host h (0-based) is the namespace NAME-h with address 10.88.0.(h+1) on eth0. `agent`
# is what weftrun's --launch-agent and Open MPI's plm_rsh_agent call as they would ssh:
# with a host (a namespace name) and a command line. Needs root, iproute2 and tc.
set -euo pipefail

readonly SUBNET=88
readonly NS_DIR=/run/weft-cluster-ns

address() { echo "10.$SUBNET.0.$(($1 + 1))"; }

# Runs "$@" on host $1: in its network, IPC and UTS namespaces, with its own TMPDIR.
enter() {
  local ns=$1
  shift
  export TMPDIR="$NS_DIR/$ns.tmp" OMPI_MCA_btl_vader_backing_directory="$NS_DIR/$ns.tmp"
  exec nsenter --net="/run/netns/$ns" --ipc="$NS_DIR/$ns.ipc" --uts="$NS_DIR/$ns.uts" -- "$@"
}

# What host namespace $1 sends: at most rate $2, $3 late, with netem (its queue deep
# enough for a window of large messages, so that the shaper delays rather than drops).
# A kernel without netem (sch_netem) gets tbf for the rate and no added delay, said once.
shape() {
  local ns=$1 rate=$2 delay=$3
  if ip netns exec "$ns" tc qdisc add dev eth0 root netem delay "$delay" rate "$rate" \
    limit 100000 2>/dev/null; then
    return
  fi
  if [ -z "${warned_netem:-}" ]; then
    echo "emulated_cluster: this kernel has no netem qdisc: links shaped to $rate by tbf," \
      "with no added delay" >&2
    warned_netem=1
  fi
  ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$rate" burst 256kb latency 100ms
}

up() {
  local name=$1 hosts=$2 rate=${3:-1gbit} delay=${4:-50us}
  ip netns add "$name-sw"
  ip -n "$name-sw" link add br0 type bridge
  ip -n "$name-sw" link set br0 up
  # Persistent IPC and UTS namespaces, one each per host: bind mounts on a private mount
  # point.
  mkdir -p "$NS_DIR"
  if ! mountpoint -q "$NS_DIR"; then
    mount --bind "$NS_DIR" "$NS_DIR"
    mount --make-private "$NS_DIR"
  fi
  for ((h = 0; h < hosts; h++)); do
    local ns="$name-$h"
    ip netns add "$ns"
    ip link add eth0 netns "$ns" type veth peer "$name-p$h" netns "$name-sw"
    ip -n "$name-sw" link set "$name-p$h" master br0 up
    ip -n "$ns" addr add "$(address "$h")/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    shape "$ns" "$rate" "$delay"
    touch "$NS_DIR/$ns.ipc" "$NS_DIR/$ns.uts"
    unshare --ipc="$NS_DIR/$ns.ipc" true
    unshare --uts="$NS_DIR/$ns.uts" hostname "$ns"
    mkdir -p "$NS_DIR/$ns.tmp"
  done
  local late="$delay late"
  [ -n "${warned_netem:-}" ] && late="no added delay"
  echo "emulated_cluster: $hosts hosts $name-0..$name-$((hosts - 1)) at $(address 0) and on," \
    "each sending at most $rate, $late" >&2
}

down() {
  local name=$1 ns
  for ns in $(ip netns list | awk '{print $1}' | grep -E "^$name-([0-9]+|sw)$" || true); do
    ip netns del "$ns" || true
    for kind in ipc uts; do
      umount "$NS_DIR/$ns.$kind" 2>/dev/null || true
      rm -f "$NS_DIR/$ns.$kind"
    done
    rm -rf "$NS_DIR/$ns.tmp"
  done
  # The last cluster down takes the private mount point with it.
  if mountpoint -q "$NS_DIR" && [ -z "$(ls -A "$NS_DIR")" ]; then
    umount "$NS_DIR" && rmdir "$NS_DIR"
  fi
}

case "${1:-}" in
  up) shift; up "$@" ;;
  down) shift; down "$@" ;;
  run) shift; name=$1 host=$2; shift 2; enter "$name-$host" "$@" ;;
  agent) shift; host=$1; shift; enter "$host" sh -c "$*" ;;
  *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
