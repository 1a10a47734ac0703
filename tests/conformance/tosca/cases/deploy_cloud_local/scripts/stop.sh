kill "$(cat app.pid)"
