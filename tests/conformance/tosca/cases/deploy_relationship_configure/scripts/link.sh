export LINKED="$target_name:$port"
