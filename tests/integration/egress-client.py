#!/usr/bin/python3
# Clients for egress.sh, each printing one line:
#   egress-client.py send HOST PORT TEXT   TEXT (\r \n \x.. escapes) sent,
#                                          then the first line read back
#   egress-client.py body HOST PORT TEXT   the same, then the last line of
#                                          all that comes back
#   egress-client.py connect HOST PORT     "connected" or the error, and
#                                          how long it took (ms) when > 1 s
#   egress-client.py dns SERVER NAME TYPE  one UDP query: rcode and answers
#   egress-client.py sniserve ADDR PORT READY
#                                          a TLS server's front door: reads a
#                                          ClientHello, answers "sni NAME"
#   egress-client.py hello HOST PORT SNI [connect|socks NAME:PORT]
#                                          a ClientHello for SNI, sent
#                                          directly or through a tunnel:
#                                          the first line back, or "closed"
#   egress-client.py socks HOST PORT ATYP DEST DPORT
#                                          a SOCKS5 CONNECT (ATYP 1, 3, 4):
#                                          the reply code
#   egress-client.py sendclose HOST PORT TEXT
#                                          TEXT sent, the write side shut,
#                                          then the last line of all that
#                                          comes back
#   egress-client.py rawserve ADDR PORT READY
#                                          a server that reads all a client
#                                          sends until it shuts its side and
#                                          answers "hosts H1 H2 ...": the
#                                          Host header of each request that
#                                          reached it
#   egress-client.py rawhello HOST PORT KIND NAME:PORT
#                                          a hand-made ClientHello through
#                                          CONNECT NAME:PORT: KIND nosni (no
#                                          server name), ech or esni (naming
#                                          NAME, with that extension too),
#                                          notls (a TLS record that is not a
#                                          handshake): the first line back
#   egress-client.py dnsflood SERVER N     N A queries for junkI.flood.test
import socket, ssl, struct, sys, time

def first_line(s):
    data = b""
    s.settimeout(10)
    try:
        while b"\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError as e:
        return "error %s" % e
    return data.split(b"\n")[0].decode("latin-1").rstrip("\r") or "(closed)"

def read_all(s):
    """Everything s sends until it closes; an error ends it too."""
    s.settimeout(10)
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError as e:
        data += ("error %s" % e).encode()
    return data

def last_line(data):
    return data.rstrip(b"\n").split(b"\n")[-1].decode("latin-1") or "(closed)"

def serve(addr, port, ready, handle):
    """Accepts on addr:port (READY written once bound), each client served
    in a thread of its own by handle(socket), which returns the reply."""
    import threading
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, int(port)))
    srv.listen(16)
    open(ready, "w").close()
    def one(c):
        c.settimeout(10)
        try:
            reply = handle(c)
        except Exception as e:
            reply = "error %s" % e
        try:
            c.sendall((reply + "\n").encode())
        except OSError:
            pass
        c.close()
    while True:
        c, _ = srv.accept()
        threading.Thread(target=one, args=(c,), daemon=True).start()

cmd = sys.argv[1]
if cmd == "send":
    host, port, text = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    payload = text.encode("latin-1").decode("unicode_escape").encode("latin-1")
    s = socket.create_connection((host, port))
    s.sendall(payload)
    print(first_line(s))
elif cmd == "body":
    host, port, text = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    payload = text.encode("latin-1").decode("unicode_escape").encode("latin-1")
    s = socket.create_connection((host, port))
    s.sendall(payload)
    print(last_line(read_all(s)))
elif cmd == "connect":
    host, port = sys.argv[2], int(sys.argv[3])
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(20)
    t = time.monotonic()
    try:
        s.connect((host, port))
        print("connected")
    except OSError as e:
        ms = int((time.monotonic() - t) * 1000)
        print("%s%s" % (e.strerror or e, " after %d ms" % ms if ms > 1000 else ""))
elif cmd == "dns":
    server, name, qtype = sys.argv[2], sys.argv[3], int(sys.argv[4])
    q = struct.pack("!HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
    # "=a.b": one label holding a dot
    labels = [name[1:]] if name.startswith("=") else name.split(".")
    for label in labels:
        b = label.encode().decode("unicode_escape").encode("latin-1")
        q += bytes([len(b)]) + b
    q += b"\0" + struct.pack("!HH", qtype, 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    s.sendto(q, (server, 53))
    try:
        r = s.recv(4096)
    except OSError as e:
        print("error %s" % e)
        sys.exit(0)
    rcode, an = r[3] & 15, struct.unpack("!H", r[6:8])[0]
    if struct.unpack("!H", r[4:6])[0] == 0:
        print("rcode %d" % rcode)
        sys.exit(0)
    pos, out = len(q), []
    for _ in range(an):
        pos += 2
        t, c, ttl, l = struct.unpack("!HHIH", r[pos:pos + 10])
        pos += 10
        if t == 1:
            out.append(socket.inet_ntoa(r[pos:pos + 4]))
        pos += l
    print("rcode %d %s" % (rcode, " ".join(out)))
elif cmd == "sniserve":
    def sni_of(d):
        p = 5 + 4 + 2 + 32
        p += 1 + d[p]
        p += 2 + int.from_bytes(d[p:p + 2], "big")
        p += 1 + d[p]
        end = p + 2 + int.from_bytes(d[p:p + 2], "big")
        p += 2
        while p < end:
            t, l = int.from_bytes(d[p:p + 2], "big"), int.from_bytes(d[p + 2:p + 4], "big")
            p += 4
            if t == 0:
                n = int.from_bytes(d[p + 3:p + 5], "big")
                return d[p + 5:p + 5 + n].decode("latin-1")
            p += l
        return "(none)"
    def hello(c):
        data = b""
        while len(data) < 5 or len(data) < 5 + int.from_bytes(data[3:5], "big"):
            chunk = c.recv(65536)
            if not chunk:
                break
            data += chunk
        return "sni %s" % sni_of(data)
    serve(sys.argv[2], sys.argv[3], sys.argv[4], hello)
elif cmd == "hello":
    host, port, sni = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(inc, out, server_hostname=sni)
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = out.read()
    s = socket.create_connection((host, port))
    s.settimeout(10)
    if len(sys.argv) > 6 and sys.argv[5] == "connect":
        s.sendall(("CONNECT %s HTTP/1.1\r\n\r\n" % sys.argv[6]).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(1)
            if not chunk:
                break
            head += chunk
        if not head.startswith(b"HTTP/1.1 200"):
            print("tunnel refused: %s" % head.split(b"\r\n")[0].decode())
            sys.exit(0)
    elif len(sys.argv) > 6 and sys.argv[5] == "socks":
        name, dport = sys.argv[6].rsplit(":", 1)
        s.sendall(b"\x05\x01\x00")
        s.recv(2)
        s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name.encode() + struct.pack("!H", int(dport)))
        r = s.recv(10)
        if len(r) < 2 or r[1] != 0:
            print("tunnel refused")
            sys.exit(0)
    s.sendall(hello)
    print(first_line(s))
elif cmd == "socks":
    host, port, atyp, dest, dport = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
    s = socket.create_connection((host, port))
    s.sendall(b"\x05\x01\x00")
    s.recv(2)
    if atyp == 1:
        addr = socket.inet_aton(dest)
    elif atyp == 4:
        addr = socket.inet_pton(socket.AF_INET6, dest)
    else:
        addr = bytes([len(dest)]) + dest.encode("latin-1")
    s.sendall(b"\x05\x01\x00" + bytes([atyp]) + addr + struct.pack("!H", dport))
    r = s.recv(10)
    print("reply %d" % r[1] if len(r) > 1 else "closed")
elif cmd == "sendclose":
    host, port, text = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    payload = text.encode("latin-1").decode("unicode_escape").encode("latin-1")
    s = socket.create_connection((host, port))
    s.sendall(payload)
    s.shutdown(socket.SHUT_WR)
    print(last_line(read_all(s)))
elif cmd == "rawserve":
    def hosts(c):
        return "hosts " + " ".join(l.split(b":", 1)[1].strip().decode("latin-1")
                                   for l in read_all(c).split(b"\r\n")
                                   if l.lower().startswith(b"host:"))
    serve(sys.argv[2], sys.argv[3], sys.argv[4], hosts)
elif cmd == "rawhello":
    host, port, kind, dest = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    name = dest.rsplit(":", 1)[0].encode()
    def ext(t, body):
        return struct.pack("!HH", t, len(body)) + body
    sni = ext(0, struct.pack("!H", len(name) + 3) + b"\0" + struct.pack("!H", len(name)) + name)
    exts = {"nosni": ext(43, b"\x02\x03\x04"),
            "ech": sni + ext(0xfe0d, b"\0" * 40),
            "esni": sni + ext(0xffce, b"\0" * 40)}.get(kind, sni)
    body = (b"\x03\x03" + b"\x11" * 32 + b"\0" + b"\x00\x02\x13\x01" + b"\x01\x00" +
            struct.pack("!H", len(exts)) + exts)
    hs = b"\x01" + len(body).to_bytes(3, "big") + body
    rec = b"\x16\x03\x01" + struct.pack("!H", len(hs)) + hs
    if kind == "notls":
        rec = b"\x17\x03\x03\x00\x05hello"
    s = socket.create_connection((host, port))
    s.settimeout(10)
    s.sendall(("CONNECT %s HTTP/1.1\r\n\r\n" % dest).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            break
        head += chunk
    if not head.startswith(b"HTTP/1.1 200"):
        print("tunnel refused: %s" % head.split(b"\r\n")[0].decode())
        sys.exit(0)
    s.sendall(rec)
    print(first_line(s))
elif cmd == "dnsflood":
    server, n = sys.argv[2], int(sys.argv[3])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    for i in range(n):
        q = struct.pack("!HHHHHH", i, 0x0100, 1, 0, 0, 0)
        for label in ("junk%d" % i, "flood", "test"):
            q += bytes([len(label)]) + label.encode()
        q += b"\0" + struct.pack("!HH", 1, 1)
        s.sendto(q, (server, 53))
        s.recv(4096)
    print("sent %d" % n)
