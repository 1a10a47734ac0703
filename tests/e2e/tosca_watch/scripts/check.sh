# running while the service's process is (a zombie is not); LOAD: the number in
# the file `load` (the auto-scaler's metric)
pid=$(cat "svc.$id.pid" 2>/dev/null)
state=$(ps -o stat= -p "${pid:-0}" 2>/dev/null)
case "$state" in
  ""|Z*) echo "svc $id: process ${pid:-none} is gone"; exit 1 ;;
esac
export LOAD="$(cat load 2>/dev/null || echo 0)"
echo "svc $id: pid $pid up, load $LOAD"
