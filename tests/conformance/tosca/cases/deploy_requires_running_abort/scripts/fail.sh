sleep 0.2
echo db is broken
exit 4
