export A="$a" B="$b"
