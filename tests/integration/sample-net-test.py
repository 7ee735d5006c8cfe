# A test of network code over the sandbox's loopback: bind, listen,
# connect, send; each call fails the test when it is refused (no skip).
# Shared by explain.sh and profile-learn.sh.
import socket
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen()
client = socket.create_connection(server.getsockname())
conn, _ = server.accept()
client.sendall(b"ping")
assert conn.recv(4) == b"ping"
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.sendto(b"x", ("127.0.0.1", 9))
print("network test passed")
