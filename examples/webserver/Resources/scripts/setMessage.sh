#!/bin/sh
# Writes the page the web server serves; the message comes on stdin.
set -e
mkdir -p "$HOME/www"
MESSAGE="$(cat)"
printf '<html><body><h1>%s</h1></body></html>\n' "$MESSAGE" > "$HOME/www/index.html.new"
mv "$HOME/www/index.html.new" "$HOME/www/index.html"
echo "page written"
