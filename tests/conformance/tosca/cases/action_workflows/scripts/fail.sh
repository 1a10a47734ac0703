echo fail >> trace
exit 9
