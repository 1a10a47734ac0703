echo "$who -> $target" >> backups
export WHERE="$target"
