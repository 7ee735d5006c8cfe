#!/usr/bin/env python3
"""A stand-in for the model Codex CLI talks to (the Responses API, streamed
as server-sent events), on the loopback, for docs-agents-codex.sh.

Usage: codex-model.py PORTFILE LOG COMMAND

To the first request of a turn it answers with one call of Codex's shell
tool (whichever of shell_command, exec_command, shell the request offers)
running COMMAND; once the request carries that call's output, with a
final message. Every request body is appended to LOG, one a line, so the
test reads what Codex sent back: the tool's output."""
import http.server
import json
import os
import sys

port_file, log_file, command = sys.argv[1], sys.argv[2], sys.argv[3]
log = open(log_file, "a")


def shell_call(tools):
    if "shell_command" in tools:
        return "shell_command", {"command": command}
    if "exec_command" in tools:
        return "exec_command", {"cmd": command}
    return "shell", {"command": ["bash", "-lc", command]}


class Model(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(404)
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        log.write(body.decode(errors="replace").replace("\n", " ") + "\n")
        log.flush()
        try:
            request = json.loads(body)
        except ValueError:
            request = {}
        items = [i for i in request.get("input", []) if isinstance(i, dict)]
        tools = [t.get("name") for t in request.get("tools", []) if isinstance(t, dict)]
        if any(i.get("type") == "function_call_output" for i in items):
            item = {"type": "message", "id": "msg_1", "role": "assistant",
                    "content": [{"type": "output_text", "text": "done"}]}
        else:
            name, args = shell_call(tools)
            item = {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                    "name": name, "arguments": json.dumps(args)}
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1,
                 "output_tokens_details": None, "total_tokens": 2}
        for kind, data in (("response.created", {"response": {"id": "resp_1"}}),
                           ("response.output_item.done", {"item": item}),
                           ("response.completed", {"response": {"id": "resp_1", "usage": usage}})):
            data["type"] = kind
            self.wfile.write(("event: %s\ndata: %s\n\n" % (kind, json.dumps(data))).encode())
        self.wfile.flush()


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Model)
with open(port_file + ".new", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".new", port_file)
server.serve_forever()
