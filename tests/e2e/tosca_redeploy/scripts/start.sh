# a daemon: a sleep loop named after its node, its pid kept in NAME.pid
nohup sh -c 'while :; do sleep 3600; done' "redeploy-daemon-$NAME" > /dev/null 2>&1 &
echo $! > "$NAME.pid"
