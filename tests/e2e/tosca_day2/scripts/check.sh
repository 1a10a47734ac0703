url="http://127.0.0.1:$(cat port 2>/dev/null)/"
if python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" "$url" 2>/dev/null; then
  export URL="$url"
  export IS_RUNNING=true
else
  export IS_RUNNING=false
fi
