/* TCP echo over 127.0.0.1:0 for the C corpus suites. Returns 0 or the
 * errno of the first call that failed. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int echo_roundtrip(void)
{
    struct sockaddr_in sin = { .sin_family = AF_INET };
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sin;
    int srv = socket(AF_INET, SOCK_STREAM, 0);
    if (srv < 0)
        return errno;
    if (bind(srv, (struct sockaddr *)&sin, sizeof sin) < 0 || listen(srv, 1) < 0 ||
        getsockname(srv, (struct sockaddr *)&sin, &len) < 0) {
        int e = errno;
        close(srv);
        return e;
    }
    int cli = socket(AF_INET, SOCK_STREAM, 0);
    if (cli < 0 || connect(cli, (struct sockaddr *)&sin, sizeof sin) < 0)
        return errno;
    int conn = accept(srv, NULL, NULL);
    char buf[5] = { 0 };
    if (conn < 0 || write(cli, "ping", 4) != 4 || read(conn, buf, 4) != 4)
        return errno ? errno : EIO;
    close(conn);
    close(cli);
    close(srv);
    return strcmp(buf, "ping") == 0 ? 0 : EIO;
}
