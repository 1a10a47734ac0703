nohup sleep 300 >/dev/null 2>&1 &
echo $! > app.pid
