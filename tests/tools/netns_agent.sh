#!/bin/sh
# A launch agent for the weftrun tests (--launch-agent): called as ssh would be, with a
# host and one shell command line, it runs the command in the network namespace of that
# name instead of on another machine.
host=$1
shift
exec ip netns exec "$host" sh -c "$1"
