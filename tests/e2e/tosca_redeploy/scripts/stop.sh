kill "$(cat "$NAME.pid")" && rm -f "$NAME.pid"
