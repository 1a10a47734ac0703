[ -f "$HOME/server.pid" ] && kill "$(cat "$HOME/server.pid")" 2>/dev/null
rm -f "$HOME/server.pid"
exit 0
