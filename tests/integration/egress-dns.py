#!/usr/bin/python3
# A test DNS server over UDP for egress.sh (RFC 1035 4.1, no compression
# in questions):
#   egress-dns.py ADDR PORT ZONE LOG READY
# ZONE holds "NAME IPV4" lines; an A query for NAME gets that record (a
# name may have several lines), another type NODATA, any other name
# NXDOMAIN. Every query is appended to LOG as "NAME TYPE". READY is
# written once bound.
import socket, struct, sys

addr, port, zone_file, log_file, ready = sys.argv[1], int(sys.argv[2]), *sys.argv[3:6]
zone = {}
for line in open(zone_file):
    f = line.split()
    if len(f) == 2:
        zone.setdefault(f[0].lower(), []).append(f[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((addr, port))
open(ready, "w").close()
while True:
    q, peer = s.recvfrom(4096)
    if len(q) < 12:
        continue
    pos, labels = 12, []
    while pos < len(q) and q[pos]:
        labels.append(q[pos + 1:pos + 1 + q[pos]].decode("latin-1"))
        pos += 1 + q[pos]
    pos += 1
    if pos + 4 > len(q):
        continue
    name = ".".join(labels).lower()
    qtype = struct.unpack("!H", q[pos:pos + 2])[0]
    with open(log_file, "a") as log:
        log.write("%s %d\n" % (name, qtype))
    qend = pos + 4
    answers = zone.get(name)
    rcode = 0 if answers is not None else 3
    rrs = b""
    if answers and qtype == 1:
        for a in answers:
            rrs += b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 5, 4) + socket.inet_aton(a)
    n = len(answers) if answers and qtype == 1 else 0
    head = q[:2] + struct.pack("!BBHHHH", 0x81, 0x80 | rcode, 1, n, 0, 0)
    s.sendto(head + q[12:qend] + rrs, peer)
