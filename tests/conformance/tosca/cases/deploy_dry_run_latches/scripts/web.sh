# what of db was there when this phase of web ran
saw=""
[ -f db.created ] && saw="$saw created"
[ -f db.started ] && saw="$saw started"
export SAW="$phase:$saw"
