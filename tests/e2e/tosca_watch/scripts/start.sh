# a long-running service: its pid in the working directory, by instance
nohup sleep 600 > /dev/null 2>&1 &
echo $! > "svc.$id.pid"
echo "svc $id started (pid $!)"
