# what drift watches: a file in the host's home and a process left running
echo "kept" > "$HOME/kept.conf"
nohup sleep 3603 > /dev/null 2>&1 &
