#!/bin/sh
# writes the daemon's configuration and starts it in the background
echo "port 8080" > "$HOME/drifter.conf"
nohup sleep 3600 > /dev/null 2>&1 &
echo started
