touch ran
exit 1
