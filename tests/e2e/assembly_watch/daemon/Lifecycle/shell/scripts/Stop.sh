pid=$(cat "daemons/$LAGUNA_INSTANCE_NAME.pid" 2>/dev/null)
[ -n "$pid" ] && kill "$pid" 2>/dev/null
rm -f "daemons/$LAGUNA_INSTANCE_NAME.pid"
exit 0
