nohup python3 -m http.server "$PROP_port" --bind "$LAGUNA_HOST_ADDRESS" --directory "$HOME/site" >/dev/null 2>&1 &
echo $! > "$HOME/server.pid"
