# a process of its own (the check and the test find it by its pid file)
nohup sleep 600 >/dev/null 2>&1 &
echo $! > "daemons/$LAGUNA_INSTANCE_NAME.pid"
echo "started $LAGUNA_INSTANCE_NAME" >> daemons/starts.log
