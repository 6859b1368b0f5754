"""Serves a folder over HTTP on 127.0.0.1 for the offline installer test and the release-job
benchmark: the port (chosen by the system) goes to PORT_FILE, every request is logged on stderr,
and the server stops by itself after MAX_SECONDS. Usage: serve-dir.py DIR PORT_FILE [MAX_SECONDS]"""

import functools
import http.server
import os
import sys
import threading


def main() -> None:
    folder, port_file = sys.argv[1], sys.argv[2]
    max_seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 600.0
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    with open(port_file + ".tmp", "w", encoding="utf-8") as out:
        out.write(str(server.server_address[1]))
    # Written then renamed, so a reader never sees a half-written port.
    os.replace(port_file + ".tmp", port_file)
    threading.Timer(max_seconds, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
