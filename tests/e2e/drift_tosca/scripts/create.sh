echo "port 8080" > "$HOME/app.conf"
