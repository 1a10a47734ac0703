date +%s.%N > web.created
export SEEN="$db_host"
