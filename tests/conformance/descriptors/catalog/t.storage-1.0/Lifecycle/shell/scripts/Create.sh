# conformance resource script: logs what ran, fails on request, reports an ip
line="$LAGUNA_TRANSITION $LAGUNA_INSTANCE_NAME"
[ -n "${LAGUNA_RELATIONSHIP:-}" ] && line="$line $LAGUNA_RELATIONSHIP $LAGUNA_SOURCE_NAME->$LAGUNA_TARGET_NAME"
[ -n "${PROP_label:-}" ] && line="$line label=$PROP_label"
echo "$line" >> "$LAGUNA_WORKDIR/log.txt"
[ "${PROP_fail_on:-}" = "$LAGUNA_TRANSITION" ] && { echo "failing $LAGUNA_TRANSITION" >&2; exit 3; }
[ "$LAGUNA_TRANSITION" = Install ] && echo "output__ip=10.0.0.$LAGUNA_INSTANCE_INDEX"
exit 0
