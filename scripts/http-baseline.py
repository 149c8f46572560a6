#!/usr/bin/env python3
"""The yardstick of `parley-bench http`: Python's standard-library HTTP server answering
GET /healthz with keep-alive (HTTP/1.1, one thread per connection), the body given on the
command line (the same JSON Parley answers). Prints "port N" once listening; runs until killed."""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODY = sys.argv[1].encode() if len(sys.argv) > 1 else b'{"status":"ok"}'


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: without this, Nagle holds the body until the
    # client's delayed ACK (40 ms), and the yardstick would measure the kernel's timer.
    disable_nagle_algorithm = True

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()
