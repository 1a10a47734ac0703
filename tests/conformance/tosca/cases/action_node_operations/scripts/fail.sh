echo "cannot do that"
exit 3
