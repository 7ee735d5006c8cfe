/* Unit test of the egress proxy's decisions (egress.c) without a sandbox:
 * names and literals against the list, the refusal reasons the command is
 * told, a resolver that does not answer, and the proxy variables. */
#include "config.h"

#include "../tap.h"

#include "egress.h"
#include "util.h"

#include <json-c/json.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static char why[400];

static const char *decide(struct egress *e, const char *host, uint16_t port)
{
    uint32_t addr = 0;
    const char *r = egress_decide(e, host, strlen(host), port, &addr, why, sizeof why);
    return r ? r : "allowed";
}

int main(void)
{
    struct profile p;
    profile_init_defaults(&p);
    static const char *const entries[] = {"pkg.test", "*.sub.test", "198.18.0.1:80",
                                          "10.1.0.0/16:5432"};
    struct str_entry v[4];
    for (int i = 0; i < 4; i++)
        v[i] = (struct str_entry){ .value = (char *)entries[i] };
    p.allow.v = v;
    p.allow.n = 4;
    /* port 9 (discard) on this machine's loopback: nothing answers */
    setenv("SBX_TEST_RESOLVER", "127.0.0.1:9", 1);
    ok(egress_prepare(&p, 0) == NULL, "no network namespace: no proxy");
    struct egress *e = egress_prepare(&p, CLONE_NEWNET);
    ok(e != NULL, "allow with a network namespace: a proxy");

    is_str(decide(e, "evil.test", 443), "not in [network] allow", "an unlisted name");
    is_str(decide(e, "pkg.test", 9000), "allow lists pkg.test, but not on port 9000",
           "a listed name on another port");
    is_str(decide(e, "sub.test", 443), "not in [network] allow", "*. does not list the name itself");
    like_str(decide(e, "127.1", 80), "not a host name", "an address in shorthand");
    like_str(decide(e, "pkg.test\xc4\xa1", 443), "not a host name", "UTF-8 bytes");
    is_str(decide(e, "::1", 80), "an IPv6 literal (allow lists IPv4 only)", "an IPv6 literal");
    is_str(decide(e, "198.18.0.1", 80), "allowed", "a listed address on its port");
    is_str(decide(e, "198.18.0.1", 443), "an IP literal, and no address entry of allow lists it on port 443",
           "a listed address on another port");
    is_str(decide(e, "10.1.2.3", 5432), "allowed", "an address in a listed range");
    like_str(decide(e, "127.0.0.1", 80), "an IP literal", "loopback as a literal");
    like_str(decide(e, "pkg.test", 443), "no resolver listens at 127.0.0.1:9", "a resolver port nobody serves is named, at once");
    like_str(decide(e, "A.Sub.Test.", 443), "resolver", "a listed subdomain, any case, is resolved");

    char name[64];
    ok(!egress_name_of(e, "198.18.0.1:80", name, sizeof name), "no DNS answer given: no name");

    struct strv env = { 0 };
    strv_push(&env, xstrdup("HTTPS_PROXY=http://elsewhere:8080"));
    strv_push(&env, xstrdup("PATH=/bin"));
    struct strv recorded = { 0 };
    egress_set_env(&env, &recorded, EGRESS_PROXY_PORT);
    is_int(recorded.n, 9, "and their names for the run record");
    strv_free(&recorded);
    size_t proxies = 0;
    bool elsewhere = false, path = false;
    for (size_t i = 0; i < env.n; i++) {
        proxies += (strstr(env.v[i], "_PROXY=") || strstr(env.v[i], "_proxy=")) &&
                   strncmp(env.v[i], "NODE_USE_ENV_PROXY=", 19);
        elsewhere |= strstr(env.v[i], "elsewhere") != NULL;
        path |= !strcmp(env.v[i], "PATH=/bin");
    }
    is_int(proxies, 8, "eight proxy variables");
    ok(!elsewhere && path, "the caller's proxy replaced, the rest kept");
    strv_free(&env);

    struct json_object *j = egress_to_json(e);
    is_str(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
           "{\"allowed\":0,\"refused\":0,\"dns_answered\":0,\"refusals\":[],\"refusals_not_kept\":0,\"refusal_rows_not_kept\":0}",
           "decisions alone count nothing (the connection does)");
    json_object_put(j);
    egress_free(e);
    p.allow.v = NULL;
    p.allow.n = 0;
    profile_free(&p);
    return done_testing();
}
