#!/bin/sh
# Starts the dashboard page on ADDRESS:PORT as a daemon, reading SOURCE_URL:
# deployDashboard.sh ADDRESS PORT SOURCE_URL
set -e
HERE="$(cd "$(dirname "$0")" && pwd)"
ADDRESS="$1"
PORT="$2"
SOURCE="$3"
mkdir -p "$HOME/dashboard"
cp "$HERE/dashboard.py" "$HOME/dashboard/dashboard.py"
# the link must work before the page is served: read the value once now
python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=10).read()' "$SOURCE"
if [ -f "$HOME/dashboard.pid" ] && kill -0 "$(cat "$HOME/dashboard.pid")" 2>/dev/null; then
    echo "dashboard already running"
    exit 0
fi
setsid nohup python3 "$HOME/dashboard/dashboard.py" "$ADDRESS" "$PORT" "$SOURCE" \
    > "$HOME/dashboard.log" 2>&1 < /dev/null &
echo $! > "$HOME/dashboard.pid"
python3 "$HERE/waitForPort.py" "$ADDRESS" "$PORT"
echo "serving http://$ADDRESS:$PORT/"
