( sleep 0.4; touch a.ready ) >/dev/null 2>&1 &
