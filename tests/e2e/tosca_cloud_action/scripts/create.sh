echo created > "$HOME/created"
