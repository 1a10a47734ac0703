export IS_RUNNING=true
export LOAD="$(cat load)"
