sleep 1.5
