# the page, in the host's home folder; the URL is the read-only property `url`
mkdir -p "$HOME/site"
echo "$PROP_text" > "$HOME/site/index.html"
echo "output__url=http://$LAGUNA_HOST_ADDRESS:$PROP_port/"
