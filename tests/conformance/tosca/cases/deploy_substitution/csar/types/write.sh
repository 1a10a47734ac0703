echo "$TEXT" >> note
export WRITTEN="$TEXT"
