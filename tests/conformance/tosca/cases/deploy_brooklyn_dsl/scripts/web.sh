export OUT="$url|$again|$raw|$node|$self"
