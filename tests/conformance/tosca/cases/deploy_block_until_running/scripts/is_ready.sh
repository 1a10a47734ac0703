if [ -f a.ready ]; then export IS_RUNNING=true; else export IS_RUNNING=false; fi
