rm -rf "$HOME/site"
