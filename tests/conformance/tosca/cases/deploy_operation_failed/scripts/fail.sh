echo about to fail
exit 3
