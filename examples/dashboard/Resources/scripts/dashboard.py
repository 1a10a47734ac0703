"""The dashboard page: dashboard.py ADDRESS PORT SOURCE_URL.

Each GET / reads SOURCE_URL (a key of the key-value store) and shows the value.
"""
import html
import http.server
import sys
import urllib.request

address, port, source = sys.argv[1], int(sys.argv[2]), sys.argv[3]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        try:
            with urllib.request.urlopen(source, timeout=5) as answer:
                value = answer.read().decode("utf-8")
        except OSError as error:
            value = f"(cannot read {source}: {error})"
        body = (f"<html><body><h1>Dashboard</h1><p>{html.escape(source)} = "
                f"<b id=\"value\">{html.escape(value)}</b></p></body></html>\n").encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


http.server.ThreadingHTTPServer((address, port), Handler).serve_forever()
