"""Waits (at most 30 seconds) until something listens on ADDRESS PORT."""
import socket
import sys
import time

address, port = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 30
while True:
    try:
        socket.create_connection((address, port), timeout=1).close()
        break
    except OSError as error:
        if time.monotonic() > deadline:
            sys.exit(f"nothing listens on {address}:{port}: {error}")
        time.sleep(0.05)
