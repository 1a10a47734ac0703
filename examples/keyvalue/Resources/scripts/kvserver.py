"""A key-value service over HTTP: kvserver.py ADDRESS PORT DATAFILE.

GET /KEY answers the value (404 if none), PUT /KEY stores the body; the
values live in DATAFILE (JSON), rewritten on each PUT.
"""
import http.server
import json
import os
import sys

address, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]


def load():
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


class Handler(http.server.BaseHTTPRequestHandler):
    def _answer(self, status, text):
        body = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        value = load().get(self.path.lstrip("/"))
        if value is None:
            self._answer(404, "no such key\n")
        else:
            self._answer(200, value)

    def do_PUT(self):
        length = int(self.headers.get("Content-Length") or 0)
        data = load()
        data[self.path.lstrip("/")] = self.rfile.read(length).decode("utf-8")
        with open(path + ".new", "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(path + ".new", path)
        self._answer(200, "stored\n")


http.server.ThreadingHTTPServer((address, port), Handler).serve_forever()
