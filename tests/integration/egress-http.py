#!/usr/bin/python3
# Test HTTP servers for egress.sh:
#   egress-http.py LABEL READY ADDR:PORT...
# answers every request with "LABEL METHOD PATH host=HOST" (and serves
# files under $EGRESS_HTTP_ROOT when set and the path names one; a
# directory's index.json as JSON). READY is
# written once every address is bound.
import http.server, os, socket, socketserver, sys, threading

label, ready, binds = sys.argv[1], sys.argv[2], sys.argv[3:]
root = os.environ.get("EGRESS_HTTP_ROOT")

class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    def __init__(self, *a, **k):
        super().__init__(*a, directory=root or "/nonexistent", **k)
    def log_message(self, *a):
        pass
    def do_GET(self):
        if root and self.path != "/whoami" and not self.path.startswith("/whoami?"):
            # a directory with index.json is a registry document (npm's
            # packument at /NAME, its tarballs below /NAME/-/)
            doc = os.path.join(self.translate_path(self.path), "index.json")
            if os.path.isfile(doc):
                body = open(doc, "rb").read()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            return super().do_GET()
        body = ("%s %s %s host=%s\n" % (label, self.command, self.path,
                                       self.headers.get("Host"))).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_POST = do_GET

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

class Server6(Server):
    address_family = socket.AF_INET6

servers = []
for b in binds:
    host, port = b.rsplit(":", 1)
    if host.startswith("["):
        servers.append(Server6((host[1:-1], int(port)), Handler))
    else:
        servers.append(Server((host, int(port)), Handler))
open(ready, "w").close()
for srv in servers[1:]:
    threading.Thread(target=srv.serve_forever, daemon=True).start()
servers[0].serve_forever()
