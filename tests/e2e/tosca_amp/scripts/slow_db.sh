# publishes its host only after a while, recording when
sleep 1
date +%s.%N > db.ready
export HOST=db.internal
