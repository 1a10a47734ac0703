#!/bin/sh
# Stores stdin as the value at URL: put.sh URL
set -e
python3 -c 'import sys, urllib.request
request = urllib.request.Request(sys.argv[1], data=sys.stdin.read().encode("utf-8"), method="PUT")
print(urllib.request.urlopen(request, timeout=10).read().decode("utf-8").strip())' "$1"
