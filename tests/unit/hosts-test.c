/* Unit test of the sandbox's /etc/hosts made from the host's bytes
 * (hosts.c): the sandbox's line first, the host's file after it as it is,
 * a final newline added when the host's lacks one, a NUL ending it. */
#include "config.h"

#include "../tap.h"

#include "hosts.h"

#include <stdlib.h>
#include <string.h>

#define HEAD "# Made by sbx: the sandbox's hostname, then the host's /etc/hosts.\n" \
             "127.0.1.1\tsbx\n"

static void check(const char *host, size_t len, const char *want, const char *what)
{
    char *got = hosts_file_generate(host, len, "sbx");
    is_str(got, want, "%s", what);
    free(got);
}

int main(void)
{
    plan(5);
    const char *debian = "127.0.0.1\tlocalhost\n127.0.1.1\tmyhost\n::1\tlocalhost ip6-localhost\n";
    check(debian, strlen(debian), HEAD "127.0.0.1\tlocalhost\n127.0.1.1\tmyhost\n::1\tlocalhost ip6-localhost\n",
          "a Debian file follows the sandbox's line, unchanged");
    check("127.0.0.1 localhost", 19, HEAD "127.0.0.1 localhost\n", "a missing final newline is added");
    check(NULL, 0, HEAD, "no host file: the sandbox's line alone");
    check("", 0, HEAD, "an empty host file: the same");
    check("127.0.0.1 a\0::1 b\n", 18, HEAD "127.0.0.1 a\n", "a NUL byte ends the host's file there");
    return done_testing();
}
