# a web server on a free port of 127.0.0.1; its pid and port in the working directory
rm -f port
nohup python3 -c '
import http.server
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
open("port.tmp", "w").write(str(server.server_address[1]))
__import__("os").rename("port.tmp", "port")
server.serve_forever()' > server.log 2>&1 &
echo $! > server.pid
tries=0
while [ ! -s port ] && [ $tries -lt 200 ]; do sleep 0.05; tries=$((tries + 1)); done
