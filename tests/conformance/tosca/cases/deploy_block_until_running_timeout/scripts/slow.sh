sleep 1
