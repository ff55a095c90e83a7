#!/usr/bin/env bash
# The tests of the layers where memory and threads are shared, under the sanitizers
# (.bazelrc's --config=asan, AddressSanitizer with UndefinedBehaviorSanitizer, and
# --config=tsan, ThreadSanitizer), each in its own output tree. Any report fails the
# test that made it, and the script exits non-zero.
#
#   default  the transports (TCP, shared-memory ring and segments), the point-to-point
#            engine, the shared-memory arena, and the store, under both (the messages
#            of more than 4 GiB over shared memory only, and under ASan only)
#   --full   also every collective test and the MPI programs, under both (slow: for a
#            change to the engine, the arena or the collectives)
#   --configs asan|tsan|asan,tsan   which sanitizers (default both)
#
# usage: tools/run_sanitizers.sh [--full] [--configs LIST] [extra bazel test options]
set -uo pipefail
cd "$(dirname "$0")/.."

full=0
configs=(asan tsan)
while [ $# -gt 0 ]; do
  case $1 in
    --full) full=1 ;;
    --configs) IFS=, read -r -a configs <<<"$2"; shift ;;
    *) break ;;
  esac
  shift
done

targets=(//tests/transport/... //tests/p2p/... //tests/collectives:arena_test
  //tests/rendezvous:store_test //tests/rendezvous:store_limits_test)
if [ $full -eq 1 ]; then
  targets+=(//tests/collectives/... //tests/mpi:mpi_programs_test //tests/runtime/...)
fi

# Under ThreadSanitizer the messages of more than 4 GiB take minutes and their shadow
# memory most of the machine's: the large-message test runs under ASan only.
tsan_excluded=(-//tests/p2p:large_message_test -//tests/p2p:large_message_test_tcp
  -//tests/p2p:large_message_test_mixed)
# Under ASan they take half a minute each: by default only the shared-memory one runs.
asan_excluded=()
[ $full -eq 1 ] || asan_excluded=(-//tests/p2p:large_message_test_tcp
  -//tests/p2p:large_message_test_mixed)

status=0
for config in "${configs[@]}"; do
  excluded=("${asan_excluded[@]}")
  [ "$config" = tsan ] && excluded=("${tsan_excluded[@]}")
  echo "== run_sanitizers: --config=$config: ${targets[*]} ${excluded[*]}"
  # --symlink_prefix=/: the default build's bazel-bin and bazel-testlogs stay as they are.
  bazel test --config="$config" --symlink_prefix=/ --keep_going "$@" -- "${targets[@]}" \
    "${excluded[@]}" || status=1
done
exit $status
