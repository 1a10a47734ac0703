if [ -f a.ready ]; then export SAW=yes; else export SAW=no; fi
