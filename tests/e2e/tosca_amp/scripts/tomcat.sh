# stands in for Tomcat: an HTTP server serving the deployment it was given
mkdir -p "www-$id"
echo "$deployment on $id" > "www-$id/index.html"
port=$(python3 "$(dirname "$0")/serve.py" "www-$id" "$id.pid")
export URL="http://127.0.0.1:$port/"
