export ME="$name"
