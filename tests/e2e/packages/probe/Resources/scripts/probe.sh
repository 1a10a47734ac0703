#!/bin/sh
# probe.sh MODE: ok prints "probe ok"; fail writes to stderr and exits 3;
# hang waits for stdin, which never closes before the plan's timeout;
# hang:SECONDS sleeps that long.
case "$1" in
    fail)
        echo "probe: the disk is full" >&2
        exit 3 ;;
    hang)
        exec sleep 60 ;;
    hang:*)
        # a sleep of its own length, so that a test finds its own script
        exec sleep "${1#hang:}" ;;
    *)
        echo "probe ok" ;;
esac
