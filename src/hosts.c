#include "config.h"

#include "hosts.h"

#include "util.h"

#include <stdbool.h>
#include <string.h>

char *hosts_file_generate(const char *host, size_t len, const char *hostname)
{
    size_t n = host ? strnlen(host, len) : 0;
    bool newline = n && host[n - 1] != '\n';
    return xasprintf("# Made by sbx: the sandbox's hostname, then the host's /etc/hosts.\n"
                     HOSTS_SANDBOX_ADDRESS "\t%s\n%.*s%s",
                     hostname, (int)n, n ? host : "", newline ? "\n" : "");
}
