/* Unit test of the arguments sbx gives pasta: they hold the isolation
 * choices (no inbound ports, the host's loopback closed except the
 * forwarded ports, no gateway mapping), so a change to them must be
 * deliberate. */
#include "config.h"

#include "../tap.h"

#include "outbound.h"
#include "profile.h"
#include "resolv.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The value after option `opt` in argv, or NULL. */
static const char *value_of(char **argv, const char *opt)
{
    for (char **a = argv; *a; a++)
        if (!strcmp(*a, opt))
            return a[1];
    return NULL;
}

static bool has(char **argv, const char *word)
{
    for (char **a = argv; *a; a++)
        if (!strcmp(*a, word))
            return true;
    return false;
}

static const char *last(char **argv)
{
    const char *l = NULL;
    for (char **a = argv; *a; a++)
        l = *a;
    return l;
}

static void free_argv(char **argv)
{
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

int main(void)
{
    plan(19);
    struct profile p;
    profile_init_defaults(&p);
    p.outbound = true;
    struct outbound ob = { .pasta_path = "/usr/bin/pasta" };

    char **argv = outbound_pasta_argv(&ob, &p, 4242, "/run/x/pid", false);
    ok(!strcmp(argv[0], "/usr/bin/pasta"), "argv[0] is the pasta found in PATH");
    ok(has(argv, "--foreground"), "pasta stays in the foreground (our child, reaped by us)");
    ok(has(argv, "--config-net"), "pasta configures addresses and routes inside");
    ok(value_of(argv, "--tcp-ports") && !strcmp(value_of(argv, "--tcp-ports"), "none"),
       "no TCP port of the sandbox is published to the host (-t none)");
    ok(value_of(argv, "--udp-ports") && !strcmp(value_of(argv, "--udp-ports"), "none"),
       "no UDP port either (-u none)");
    ok(value_of(argv, "--tcp-ns") && !strcmp(value_of(argv, "--tcp-ns"), "none"),
       "no host loopback TCP port is reachable without forward (-T none)");
    ok(value_of(argv, "--udp-ns") && !strcmp(value_of(argv, "--udp-ns"), "none"),
       "nor UDP (-U none)");
    ok(has(argv, "--no-map-gw"), "the gateway address is not mapped to the host's loopback");
    ok(value_of(argv, "--pid") && !strcmp(value_of(argv, "--pid"), "/run/x/pid"),
       "the pid file says when pasta is ready");
    ok(!has(argv, "--runas"), "unprivileged: pasta keeps the caller's uid (no --runas)");
    ok(!strcmp(last(argv), "4242"), "pasta joins the user and network namespaces of init's pid");
    ok(!has(argv, "--dns-forward"), "no sandbox resolv.conf made: no DNS forwarding");
    free_argv(argv);

    ob.resolv_conf = "nameserver " RESOLV_FORWARD_ADDRESS "\n";
    argv = outbound_pasta_argv(&ob, &p, 4242, "/run/x/pid", false);
    ok(value_of(argv, "--dns-forward") &&
           !strcmp(value_of(argv, "--dns-forward"), RESOLV_FORWARD_ADDRESS),
       "DNS to " RESOLV_FORWARD_ADDRESS " (what the sandbox's resolv.conf names) is forwarded");
    free_argv(argv);
    ob.resolv_conf = NULL;

    argv = outbound_pasta_argv(&ob, &p, 4242, "/run/x/pid", true);
    ok(value_of(argv, "--runas") && !strcmp(value_of(argv, "--runas"), "0:0"),
       "as root: --runas 0:0, since the sandbox's user namespace belongs to root");
    free_argv(argv);

    uint16_t ports[] = { 5432, 6379 };
    p.forward = ports;
    p.nforward = 2;
    argv = outbound_pasta_argv(&ob, &p, 4242, "/run/x/pid", false);
    ok(value_of(argv, "--tcp-ns") && !strcmp(value_of(argv, "--tcp-ns"), "5432,6379"),
       "forward = 5432 6379: exactly those TCP ports (-T 5432,6379)");
    ok(value_of(argv, "--udp-ns") && !strcmp(value_of(argv, "--udp-ns"), "5432,6379"),
       "and those UDP ports (-U 5432,6379)");
    ok(value_of(argv, "--tcp-ports") && !strcmp(value_of(argv, "--tcp-ports"), "none"),
       "forwarding into the sandbox publishes nothing out of it");
    free_argv(argv);
    p.forward = NULL;
    p.nforward = 0;

    p.ns[NS_USER] = false;
    argv = outbound_pasta_argv(&ob, &p, 4242, "/run/x/pid", true);
    ok(has(argv, "--netns-only") && value_of(argv, "--netns") &&
           !strcmp(value_of(argv, "--netns"), "/proc/4242/ns/net"),
       "user = no: pasta joins only the network namespace, by path");
    ok(has(argv, "--no-netns-quit"), "user = no: and does not watch /proc for it (sbx ends it)");
    free_argv(argv);

    profile_free(&p);
    return done_testing();
}
