/* A suite that swallows EPERM (on purpose: see ../README.md). */
#include "net_echo.h"

int main(void)
{
    int rc = echo_roundtrip();
    if (rc == EPERM) {
        printf("ok 1 # SKIP network not available\n");
        return 0;   /* the false green */
    }
    printf("%s 1 - echo over 127.0.0.1\n", rc == 0 ? "ok" : "not ok");
    return rc == 0 ? 0 : 1;
}
