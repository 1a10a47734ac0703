if [ -f server.started ]; then export SAW=yes; else export SAW=no; fi
export ADDR="$addr"
