echo "$LAGUNA_INSTANCE_NAME upstream=$PROP_upstream motto=$PROP_motto" > "$HOME/site/index.html"
