# both creates must run at once: DependsOn orders nothing, and its cycles are legal
touch "$me.created"
i=0
while [ ! -f "$other.created" ]; do
  sleep 0.05
  i=$((i + 1))
  [ $i -gt 200 ] && exit 1
done
export MET="$other"
