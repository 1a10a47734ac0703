"""A loopback HTTP server for the tests of fetched TOSCA files: it serves a
folder, counts requests, and has a slow path, a huge path and a path behind
basic authentication."""

from __future__ import annotations

import base64
import collections
import contextlib
import http.server
import threading
import time
import typing as t
from pathlib import Path

#: the only credentials /private/ accepts
USER, TOKEN = "reader", "s3cret"


class Served:
    def __init__(self, folder: Path, port: int, hits: collections.Counter[str]) -> None:
        self.folder = folder
        self.url = f"http://127.0.0.1:{port}"
        self.hits = hits


def _handler(folder: Path, hits: collections.Counter[str]
             ) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: t.Any, **kwargs: t.Any) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            hits[self.path] += 1
            if self.path == "/slow.sh":
                time.sleep(1.5)
            elif self.path == "/huge.sh":
                self.send_response(200)
                self.send_header("Content-Length", str(1 << 40))
                self.end_headers()
                return
            elif self.path.startswith("/private/"):
                expected = base64.b64encode(f"{USER}:{TOKEN}".encode()).decode()
                if self.headers.get("Authorization") != f"Basic {expected}":
                    self.send_error(401)
                    return
            super().do_GET()

        def log_message(self, format: str, *args: t.Any) -> None:
            pass    # quiet tests

    return Handler


@contextlib.contextmanager
def serve(folder: Path) -> t.Iterator[Served]:
    """Serve ``folder`` on 127.0.0.1 (a free port) until the block ends."""
    hits: collections.Counter[str] = collections.Counter()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(folder, hits))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(folder, server.server_address[1], hits)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
