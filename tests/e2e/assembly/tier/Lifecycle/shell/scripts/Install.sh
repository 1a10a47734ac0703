mkdir -p "$HOME/site"
echo "$LAGUNA_INSTANCE_NAME upstream=$PROP_upstream motto=$PROP_motto" > "$HOME/site/index.html"
echo "output__url=http://$LAGUNA_HOST_ADDRESS:$PROP_port/"
