#include "config.h"

#include "resolv.h"

#include "util.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* glibc's rule (resolv/res_init.c): the keyword starts the line and is
 * followed by a blank. */
static bool keyword_is(const char *line, size_t len, const char *word)
{
    size_t n = strlen(word);
    return len > n && !memcmp(line, word, n) && (line[n] == ' ' || line[n] == '\t');
}

/* The address of a nameserver line as pasta (0.0~git20230309, conf.c
 * get_dns()) reads it, if it is an IPv4 one: the line starts with
 * "nameserver ", the address follows the line's last space and ends at a
 * '%'. sbx must name the resolver pasta really uses, so it follows
 * pasta's reading where glibc's differs (a tab, trailing words). */
static bool nameserver_ipv4(const char *line, size_t len, char *out, size_t out_len)
{
    static const char prefix[] = "nameserver ";
    if (len < sizeof prefix - 1 || memcmp(line, prefix, sizeof prefix - 1))
        return false;
    size_t start = len;
    while (line[start - 1] != ' ')
        start--;
    size_t end = start;
    while (end < len && line[end] != '%')
        end++;
    char addr[INET_ADDRSTRLEN];
    struct in_addr parsed;
    if (end - start == 0 || end - start >= sizeof addr)
        return false;
    memcpy(addr, line + start, end - start);
    addr[end - start] = '\0';
    if (inet_pton(AF_INET, addr, &parsed) != 1)
        return false;
    /* Written back by inet_ntop: the canonical form, never the host's
     * bytes, goes into messages and the run record. */
    return inet_ntop(AF_INET, &parsed, out, (socklen_t)out_len) != NULL;
}

char *resolv_conf_generate(const char *host, size_t len, const char *forward,
                           char *upstream, size_t upstream_len)
{
    if (upstream_len)
        upstream[0] = '\0';
    char *text = xasprintf("# Made by sbx: DNS queries to %s go through pasta to the "
                           "host's resolver.\nnameserver %s\n", forward, forward);
    size_t used = strlen(text), cap = used + 1;
    for (size_t pos = 0; pos < len;) {
        const char *line = host + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t line_len = nl ? (size_t)(nl - line) : len - pos;
        pos += line_len + (nl ? 1 : 0);
        /* A NUL inside a line: not text, and a C string would cut it. */
        if (memchr(line, '\0', line_len))
            continue;
        if (keyword_is(line, line_len, "nameserver")) {
            if (upstream_len && !upstream[0])
                nameserver_ipv4(line, line_len, upstream, upstream_len);
            continue;
        }
        if (!keyword_is(line, line_len, "search") && !keyword_is(line, line_len, "domain") &&
            !keyword_is(line, line_len, "options"))
            continue;
        xgrow((void **)&text, &cap, used + line_len + 2, 1);
        memcpy(text + used, line, line_len);
        used += line_len;
        text[used++] = '\n';
        text[used] = '\0';
    }
    return text;
}
