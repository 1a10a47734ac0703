#!/bin/sh
# Starts the key-value service on ADDRESS:PORT as a daemon; the initial data
# (a Python dict's text, from the plan) comes on stdin.
# deployKeyValue.sh ADDRESS PORT
set -e
HERE="$(cd "$(dirname "$0")" && pwd)"
ADDRESS="$1"
PORT="$2"
mkdir -p "$HOME/kv"
cp "$HERE/kvserver.py" "$HOME/kv/kvserver.py"
python3 -c 'import ast, json, sys; json.dump(ast.literal_eval(sys.stdin.read() or "{}"), open(sys.argv[1], "w"))' \
    "$HOME/kv/data.json"
if [ -f "$HOME/kv.pid" ] && kill -0 "$(cat "$HOME/kv.pid")" 2>/dev/null; then
    echo "key-value store already running"
    exit 0
fi
setsid nohup python3 "$HOME/kv/kvserver.py" "$ADDRESS" "$PORT" "$HOME/kv/data.json" \
    > "$HOME/kv.log" 2>&1 < /dev/null &
echo $! > "$HOME/kv.pid"
python3 "$HERE/waitForPort.py" "$ADDRESS" "$PORT"
echo "serving http://$ADDRESS:$PORT/"
