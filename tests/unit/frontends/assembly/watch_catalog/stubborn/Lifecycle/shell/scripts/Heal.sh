echo "cannot heal $LAGUNA_INSTANCE_NAME" >&2
exit 1
