#!/bin/sh
# Starts python3's http.server on ADDRESS:PORT serving $HOME/www, as a daemon:
# deployWebServer.sh ADDRESS PORT
set -e
HERE="$(cd "$(dirname "$0")" && pwd)"
ADDRESS="$1"
PORT="$2"
mkdir -p "$HOME/www"
if [ -f "$HOME/www.pid" ] && kill -0 "$(cat "$HOME/www.pid")" 2>/dev/null; then
    echo "web server already running"
    exit 0
fi
cd "$HOME/www"
setsid nohup python3 -m http.server --bind "$ADDRESS" "$PORT" \
    > "$HOME/www.log" 2>&1 < /dev/null &
echo $! > "$HOME/www.pid"
python3 "$HERE/waitForPort.py" "$ADDRESS" "$PORT"
echo "serving http://$ADDRESS:$PORT/"
