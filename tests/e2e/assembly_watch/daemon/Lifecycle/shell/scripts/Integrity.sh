pid=$(cat "daemons/$LAGUNA_INSTANCE_NAME.pid" 2>/dev/null)
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
  exit 0
fi
echo "$LAGUNA_INSTANCE_NAME: process ${pid:-?} is not running" >&2
exit 3
