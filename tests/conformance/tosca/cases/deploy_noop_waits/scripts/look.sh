if [ -f token ]; then export SAW=yes; else export SAW=no; fi
