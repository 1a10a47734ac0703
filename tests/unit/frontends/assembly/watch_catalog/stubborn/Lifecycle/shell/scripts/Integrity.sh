[ -f "$LAGUNA_INSTANCE_NAME.ok" ] || { echo "no mark for $LAGUNA_INSTANCE_NAME"; exit 2; }
