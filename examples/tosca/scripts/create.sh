# the page, in the host's home folder
mkdir -p "$HOME/site"
echo "$greeting" > "$HOME/site/index.html"
