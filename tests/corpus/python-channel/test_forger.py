# A lenient test that, where it cannot listen, writes a result of its own
# to sbx's result channel (it runs in the reporter's process and can find
# the descriptor): a record without the run's key. It must never read as
# the failure it claims; the audit must say the channel was forged.
import os, socket, stat, unittest


def channel_fds():
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                yield fd
        except OSError:
            pass


class Forger(unittest.TestCase):
    def test_lenient(self):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", 0))
        except PermissionError:
            me = self.id().encode()
            for fd in channel_fds():
                for record in (b"0 1 result failed " + me + b"\n", b"result failed " + me + b"\n"):
                    try:
                        os.write(fd, record)
                    except OSError:
                        pass
            return
        finally:
            s.close()
