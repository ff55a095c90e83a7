#!/usr/bin/env bash
# The tests of the layers where memory and threads are shared, under the sanitizers
# (.bazelrc's --config=asan, AddressSanitizer with UndefinedBehaviorSanitizer, and
# --config=tsan, ThreadSanitizer), each in its own output tree. Any report fails the
# test that made it, and the script exits non-zero.
#
#   default  ASan: the transports (TCP, shared-memory ring and segments), the
#            point-to-point engine, the shared-memory arena and the store (the messages
#            of more than 4 GiB over shared memory only); TSan: the transports, the
#            engine's own tests over shared memory and over TCP, the arena and the store
#   --core   both over the default's ASan set, with the >4 GiB messages over every link
#            under ASan (tools/run_tests.sh --full)
#   --full   --core, and every collective test and the MPI programs, under both (slow:
#            for a change to the engine, the arena or the collectives)
#   --configs asan|tsan|asan,tsan   which sanitizers (default both)
#
# usage: tools/run_sanitizers.sh [--core|--full] [--configs LIST] [extra bazel test options]
set -uo pipefail
cd "$(dirname "$0")/.."

level=default
configs=(asan tsan)
while [ $# -gt 0 ]; do
  case $1 in
    --core) level=core ;;
    --full) level=full ;;
    --configs) IFS=, read -r -a configs <<<"$2"; shift ;;
    *) break ;;
  esac
  shift
done

asan_targets=(//tests/transport/... //tests/p2p/... //tests/collectives:arena_test
  //tests/rendezvous:store_test //tests/rendezvous:store_limits_test)
if [ $level = full ]; then
  asan_targets+=(//tests/collectives/... //tests/mpi:mpi_programs_test //tests/runtime/...)
fi
# Under ASan the messages of more than 4 GiB take half a minute each: by default only
# the shared-memory one runs.
[ $level = default ] && asan_targets+=(-//tests/p2p:large_message_test_tcp
  -//tests/p2p:large_message_test_mixed)
# Under ThreadSanitizer they take minutes and their shadow memory most of the machine's:
# never there. By default TSan runs the tests of the code where threads meet (the
# engine's progress and waits, the links, the arena's rounds, the store's server),
# which its slowdown keeps to a few minutes.
# The 4 GiB + 4 KiB message test needs about 9 GiB: TSan's shadow memory makes that
# several times more than a machine like this has, at every level.
tsan_targets=(//tests/transport/... -//tests/transport/ib:huge_message_test //tests/p2p:p2p_test
  //tests/p2p:p2p_test_tcp //tests/collectives:arena_test //tests/rendezvous:store_test)
if [ $level != default ]; then
  tsan_targets=("${asan_targets[@]}" -//tests/p2p:large_message_test
    -//tests/p2p:large_message_test_tcp -//tests/p2p:large_message_test_mixed
    -//tests/transport/ib:huge_message_test)
fi

# Tests tagged "full" (tests/BUILD) are for tools/run_tests.sh --full (which asks for
# --core here), not for the default run.
filters=(--test_tag_filters=-full)
[ $level != default ] && filters=()

status=0
for config in "${configs[@]}"; do
  targets=("${asan_targets[@]}")
  [ "$config" = tsan ] && targets=("${tsan_targets[@]}")
  echo "== run_sanitizers: --config=$config: ${targets[*]}"
  # --symlink_prefix=/: the default build's bazel-bin and bazel-testlogs stay as they are.
  bazel test --config="$config" --symlink_prefix=/ --keep_going "${filters[@]}" "$@" -- \
    "${targets[@]}" ||
    status=1
done
exit $status
