#!/usr/bin/env python3
"""A terminal that answers late: runs `sh -c SCRIPT` on a pty and, for each
DA1 query (ESC [ c) in its output, types the answer ESC [ ? 6 2 ; 2 2 c
DELAY seconds later, as a terminal over a slow link would. Prints what
SCRIPT printed, CR removed. Used by session-pipeline.sh: after `sbx run`
exits, SCRIPT reads what is left in the terminal's input, which a shell
would have taken as typed.

usage: slow-terminal.py DELAY SCRIPT"""
import os
import pty
import select
import sys
import time

delay = float(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execv("/bin/sh", ["sh", "-c", sys.argv[2]])
out = b""
pending = []  # times at which an answer is due
seen = b""
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    now = time.monotonic()
    while pending and pending[0] <= now:
        pending.pop(0)
        os.write(fd, b"\x1b[?62;22c")
    timeout = max(0, pending[0] - now) if pending else 0.5
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        continue
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    out += data
    seen += data
    while b"\x1b[c" in seen:
        seen = seen[seen.index(b"\x1b[c") + 3:]
        pending.append(time.monotonic() + delay)
    seen = seen[-2:]
os.waitpid(pid, 0)
sys.stdout.write(out.replace(b"\r", b"").decode("utf-8", "replace"))
