# serve the page in the background; the URL is this operation's output
nohup python3 -m http.server "$port" --bind "$address" --directory "$HOME/site" >/dev/null 2>&1 &
echo $! > "$HOME/server.pid"
export URL="http://$address:$port/"
