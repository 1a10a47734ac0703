export SAID="$greeting from $id to $db"
