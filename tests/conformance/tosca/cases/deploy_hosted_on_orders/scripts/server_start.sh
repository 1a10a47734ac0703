sleep 0.3
touch server.started
