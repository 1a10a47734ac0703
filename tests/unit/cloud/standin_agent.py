"""A stand-in for ``python -m laguna.agent`` that follows its command-line contract.

``--name NAME --listen ADDR:PORT --root DIR --ready-file FILE --secret-file
KEY``: listen, then write FILE atomically as {"name", "url", "pid"}; ``GET
/v1/health`` answers {"name", "status": "ready"} (unsigned: the stand-in only
checks that KEY holds a secret, private to its owner). Test-only extras, given
before the contract's options: ``--daemon`` double-forks a detached ``sleep`` whose pid goes to
``DIR/daemon.pid``; ``--fail`` exits at once with a message; ``--hang-on NAME``
never becomes ready when its name is NAME.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import sys
import tempfile


def main() -> None:
    parser = argparse.ArgumentParser()
    for option in ("--name", "--listen", "--root", "--ready-file", "--secret-file"):
        parser.add_argument(option, required=True)
    parser.add_argument("--daemon", action="store_true")
    parser.add_argument("--fail", action="store_true")
    parser.add_argument("--hang-on", default=None)
    args = parser.parse_args()
    if args.fail:
        sys.exit("stand-in agent: told to fail")
    host, port = args.listen.rsplit(":", 1)
    if os.stat(args.secret_file).st_mode & 0o077 or len(open(args.secret_file).read()) < 32:
        sys.exit("stand-in agent: the secret file is not private or too short")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"name": args.name, "status": "ready",
                               "home": os.environ.get("HOME")}).encode()
            self.send_response(200 if self.path == "/v1/health" else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a: object) -> None:
            pass

    server = http.server.HTTPServer((host, int(port)), Handler)
    if args.daemon:
        if os.fork() == 0:
            os.setsid()
            daemon = os.fork()
            if daemon == 0:
                os.execvp("sleep", ["sleep", "1000"])
            with open(os.path.join(args.root, "daemon.pid"), "w") as f:
                f.write(str(daemon))
            os._exit(0)
        os.wait()
    if args.name == args.hang_on:
        server.serve_forever()
    url = f"http://{host}:{server.server_address[1]}"
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(args.ready_file))
    with os.fdopen(fd, "w") as f:
        json.dump({"name": args.name, "url": url, "pid": os.getpid()}, f)
    os.replace(tmp, args.ready_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
