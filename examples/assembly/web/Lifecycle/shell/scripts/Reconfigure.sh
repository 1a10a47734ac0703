echo "$PROP_text" > "$HOME/site/index.html"
