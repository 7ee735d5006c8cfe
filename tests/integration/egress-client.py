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
    s.settimeout(10)
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    print(data.rstrip(b"\n").split(b"\n")[-1].decode("latin-1"))
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
        q += bytes([len(label)]) + label.encode()
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
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((sys.argv[2], int(sys.argv[3])))
    srv.listen(16)
    open(sys.argv[4], "w").close()
    while True:
        c, _ = srv.accept()
        c.settimeout(10)
        data = b""
        try:
            while len(data) < 5 or len(data) < 5 + int.from_bytes(data[3:5], "big"):
                chunk = c.recv(65536)
                if not chunk:
                    break
                data += chunk
            c.sendall(("sni %s\n" % sni_of(data)).encode())
        except Exception as e:
            c.sendall(("error %s\n" % e).encode())
        c.close()
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
