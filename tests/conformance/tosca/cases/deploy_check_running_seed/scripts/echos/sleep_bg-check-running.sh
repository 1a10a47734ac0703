if kill -0 "$(cat sleep.pid)" 2>/dev/null && [ -f big_sleep_active ]; then
  export MAIN_URI=http://localhost/live
  export IS_RUNNING=true
else
  export IS_RUNNING=false
fi
