kill "$(cat server.pid)" 2>/dev/null
rm -f port
