sleep 0.3
echo slow >> trace
