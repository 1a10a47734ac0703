nohup sleep 3601 > /dev/null 2>&1 &
