sleep 0.2
exit 5
