/* A suite that fails when the network is denied. */
#include "net_echo.h"

int main(void)
{
    int rc = echo_roundtrip();
    printf("%s 1 - echo over 127.0.0.1%s%s\n", rc == 0 ? "ok" : "not ok",
           rc ? ": " : "", rc ? strerror(rc) : "");
    return rc == 0 ? 0 : 1;
}
