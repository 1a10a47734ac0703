# running while the file `alive` is there; each check reports a new load figure
echo x >> checks
export LOAD="$(wc -l < checks | tr -d ' ')"
if [ -f alive ]; then export IS_RUNNING=true; else export IS_RUNNING=false; fi
