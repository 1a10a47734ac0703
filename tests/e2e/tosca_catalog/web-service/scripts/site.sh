# the inner node's create: a page in the host's directory, its path exported
printf '%s\n' "$GREETING" > page.txt
export PAGE="$PWD/page.txt"
