"""Serve a folder over HTTP on a free port: print the port, then go on serving in a
child process (its pid in the file given), in the operation's own session so that
undeploy ends it."""
import functools
import http.server
import os
import sys

folder, pidfile = sys.argv[1], sys.argv[2]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=folder)
server = http.server.HTTPServer(("127.0.0.1", 0), handler)
child = os.fork()
if child:
    with open(pidfile, "w") as out:
        out.write(str(child))
    print(server.server_address[1], flush=True)
    os._exit(0)
devnull = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(devnull, fd)
server.serve_forever()
