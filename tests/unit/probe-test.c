/* sbx probe's output functions on results built by hand: what a hostile
 * environment can put in them (PID 1's name, SBX_PROFILE) must not break a
 * TAP line, the terminal or the JSON. */
#include "config.h"

#include "probe.h"
#include "probe_output.h"
#include "probe_verdict.h"
#include "util.h"

#include "../tap.h"

#include <errno.h>
#include <json-c/json.h>

static void fill(struct probe_results *r)
{
    memset(r, 0, sizeof *r);
    const char *names[CHECK_COUNT] = {
        "user_namespace", "net_namespace", "mount_namespace", "loopback_ipv4_bind",
        "loopback_ipv4_connect", "loopback_ipv6_bind", "loopback_ipv6_connect", "unix_bind",
        "unix_connect", "nofile_soft", "nofile_hard", "nr_open", "seccomp", "no_new_privs",
        "landlock", "container", "inside_sbx", "credentials", "proc_mount", "apparmor",
    };
    for (int i = 0; i < CHECK_COUNT; i++) {
        r->checks[i].name = names[i];
        r->checks[i].status = PROBE_OK;
        r->checks[i].detail = xstrdup("fine");
    }
    r->network.reason = xstrdup("n");
    r->descriptors.reason = xstrdup("d");
    r->sandbox.reason = xstrdup("s");
    r->network.ok = r->descriptors.ok = r->sandbox.ok = true;
    r->unprivileged_userns_clone = -1;
    r->max_user_namespaces = 10;
    r->apparmor_restrict_userns = -1;
    r->nr_open = 1048576;
}

static char *capture(void (*print)(const struct probe_results *, FILE *), const struct probe_results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    print(r, f);
    fclose(f);
    return buf;
}

/* What the check prints about a hit: none of it may read as a marker. */
static const char *const markers_in_labels[] = {
    "content: an npm auth token", "content: an OAuth token", "content: a private key",
    "content: an AWS secret key", "content: container registry auths", "content: a GitHub token",
};

static void print_table_colour(const struct probe_results *r, FILE *f) { probe_print_table(r, f, true); }
static void print_table_plain(const struct probe_results *r, FILE *f) { probe_print_table(r, f, false); }

/* The credentials check's pure parts: markers, key names, and how a hit
 * is shown (path and why, in all three formats, never hostile bytes). */
static void test_credentials(void)
{
    static const char pem[] = "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n";
    is_str(cred_content_marker(pem, strlen(pem)), "a private key", "marker: an OpenSSH private key header");
    static const char rsa[] = "-----BEGIN RSA PRIVATE KEY-----";
    is_str(cred_content_marker(rsa, strlen(rsa)), "a private key", "marker: an RSA private key header");
    static const char pub[] = "-----BEGIN PUBLIC KEY-----\n";
    ok(cred_content_marker(pub, strlen(pub)) == NULL, "marker: a public key is no hit");
    static const char endonly[] = "PRIVATE KEY-----";
    ok(cred_content_marker(endonly, strlen(endonly)) == NULL, "marker: no BEGIN before it, no hit");
    static const char npm[] = "//registry.npmjs.org/:_authToken=npm_fake\n";
    is_str(cred_content_marker(npm, strlen(npm)), "an npm auth token", "marker: npm's _authToken");
    static const char gh[] = "github.com:\n    oauth_token: gho_x\n";
    is_str(cred_content_marker(gh, strlen(gh)), "an OAuth token", "marker: gh's oauth_token");
    static const char aws[] = "[default]\naws_secret_access_key = x\n";
    is_str(cred_content_marker(aws, strlen(aws)), "an AWS secret key", "marker: aws_secret_access_key");
    static const char docker[] = "{\"auths\": {\"r\": {}}}";
    is_str(cred_content_marker(docker, strlen(docker)), "container registry auths", "marker: docker's auths");
    static const char plain[] = "nothing to see: token, key, password";
    ok(cred_content_marker(plain, strlen(plain)) == NULL, "marker: plain words are no hit");
    ok(cred_content_marker(npm, 5) == NULL, "marker: only the given length is searched");
    is_str(cred_name_label("id_ed25519"), "an SSH private key", "name: id_ed25519");
    ok(cred_name_label("id_ed25519.pub") == NULL, "name: a .pub key is no hit");
    is_str(cred_name_label("server.pem"), "a PEM file (key or certificate)", "name: *.pem");
    is_str(cred_name_label("tls.key"), "a key file", "name: *.key");
    ok(cred_name_label("keyboard.txt") == NULL, "name: an ordinary file is no hit");
    for (size_t i = 0; i < sizeof markers_in_labels / sizeof *markers_in_labels; i++)
        ok(!cred_content_marker(markers_in_labels[i], strlen(markers_in_labels[i])),
           "a report line is no hit itself: '%s'", markers_in_labels[i]);

    struct probe_results r;
    fill(&r);
    r.checks[CHECK_CREDENTIALS].status = PROBE_EXPOSED;
    r.creds.hits = xmalloc(sizeof *r.creds.hits);
    r.creds.hits[0] = (struct cred_hit){ .path = xstrdup("/h/.npmrc\n# SKIP\033[2J"),
                                         .why = xstrdup("name: npm config (auth tokens)") };
    r.creds.n = r.creds.cap = 1;
    r.creds.complete = true;
    char *tap = capture(probe_print_tap, &r);
    like_str(tap, "not ok 18 - credentials: exposed", "TAP: exposed credentials are not ok");
    like_str(tap, "\n# /h/.npmrc?\\# SKIP?[2J: name: npm config (auth tokens)\n",
             "TAP: a hit is a diagnostic line, its control bytes and '#' defused");
    free(tap);
    char *table = capture(print_table_plain, &r);
    like_str(table, "  /h/.npmrc?# SKIP?[2J: name: npm config (auth tokens)\n", "table: a hit, path: why");
    free(table);
    struct json_object *j = probe_to_json(&r), *creds, *hits, *why;
    ok(json_object_object_get_ex(j, "credentials", &creds) &&
       json_object_object_get_ex(creds, "hits", &hits) && json_object_array_length(hits) == 1 &&
       json_object_object_get_ex(json_object_array_get_idx(hits, 0), "why", &why) &&
       !strcmp(json_object_get_string(why), "name: npm config (auth tokens)"),
       "JSON: credentials.hits[0].why");
    json_object_put(j);
    probe_results_free(&r);
}

/* The verdicts are pure: every sentence they say, from results built by
 * hand (before, only reachable by breaking the machine the probe runs on). */
static void test_verdicts(void)
{
    struct probe_results r;
    is_int(probe_status_for_errno(EPERM), PROBE_DENIED, "EPERM is a refusal");
    is_int(probe_status_for_errno(EACCES), PROBE_DENIED, "EACCES is a refusal");
    is_int(probe_status_for_errno(ENETUNREACH), PROBE_UNAVAILABLE, "ENETUNREACH: not there");
    is_int(probe_status_for_errno(EAFNOSUPPORT), PROBE_UNAVAILABLE, "EAFNOSUPPORT: not there");

    fill(&r);
    r.checks[CHECK_NOFILE_SOFT].has_number = true;
    r.checks[CHECK_NOFILE_SOFT].number = 20000;
    probe_verdicts(&r);
    ok(r.network.ok, "network: every loopback check ok");
    is_str(r.network.reason, "network tests can be validated here: bind, connect and a byte "
           "through 127.0.0.1, ::1 and AF_UNIX", "network: the full sentence");
    ok(r.descriptors.ok, "descriptors: soft limit ok");
    is_str(r.descriptors.reason, "an async runtime gets enough descriptors: RLIMIT_NOFILE soft "
           "limit 20000 >= 4096", "descriptors: names the soft limit");
    ok(r.sandbox.ok, "sandbox: all three namespaces ok");
    is_str(r.sandbox.reason, "sbx can create its sandbox here: user, net and mount namespaces "
           "and a fresh /proc work (tier: namespaces)", "sandbox: the full sentence, naming the tier");

    /* ::1 missing is no policy: still ok, and said */
    r.checks[CHECK_LO6_BIND].status = r.checks[CHECK_LO6_CONNECT].status = PROBE_UNAVAILABLE;
    r.checks[CHECK_LO6_BIND].required = r.checks[CHECK_LO6_CONNECT].required = false;
    r.checks[CHECK_LO6_CONNECT].errnum = EADDRNOTAVAIL;
    probe_verdicts(&r);
    ok(r.network.ok, "network: ok without IPv6");
    like_str(r.network.reason, "::1 is unavailable (no IPv6), so tests that need IPv6 cannot",
             "network: says IPv6 tests cannot");

    /* a denied bind: not ok, and a pass on EPERM proves nothing */
    r.checks[CHECK_LO4_BIND].status = PROBE_DENIED;
    r.checks[CHECK_LO4_BIND].errnum = EPERM;
    r.checks[CHECK_UNIX_CONNECT].status = PROBE_UNAVAILABLE;
    r.checks[CHECK_UNIX_CONNECT].required = true;   /* as probe.c marks it */
    probe_verdicts(&r);
    ok(!r.network.ok, "network: a denied bind fails it");
    is_str(r.network.reason, "network tests CANNOT be validated here: loopback_ipv4_bind denied "
           "(EPERM), unix_connect unavailable; a test that skips or passes on EPERM here proves "
           "nothing", "network: every failed check named, then why it matters");
    /* a denied optional check still fails the network verdict */
    r.checks[CHECK_LO4_BIND].status = PROBE_OK;
    r.checks[CHECK_LO4_BIND].errnum = 0;
    r.checks[CHECK_UNIX_CONNECT].status = PROBE_OK;
    r.checks[CHECK_LO6_BIND].status = PROBE_DENIED;
    r.checks[CHECK_LO6_BIND].errnum = EPERM;
    r.checks[CHECK_LO6_CONNECT].status = PROBE_OK;
    r.checks[CHECK_LO6_CONNECT].errnum = 0;
    probe_verdicts(&r);
    ok(!r.network.ok, "network: a denied ::1 bind fails it although ::1 is optional");

    /* descriptors: low soft with a raisable hard limit, then both low */
    r.checks[CHECK_NOFILE_SOFT].status = PROBE_LOW;
    r.checks[CHECK_NOFILE_SOFT].number = 1024;
    r.checks[CHECK_NOFILE_HARD].status = PROBE_OK;
    r.checks[CHECK_NOFILE_HARD].has_number = true;
    r.checks[CHECK_NOFILE_HARD].number = 524288;
    probe_verdicts(&r);
    ok(!r.descriptors.ok, "descriptors: a soft limit of 1024 fails");
    is_str(r.descriptors.reason, "an async runtime may NOT get enough descriptors: soft limit 1024 "
           "< 4096 (hard limit 524288: sbx run --nofile max, or ulimit -n, raises it)",
           "descriptors: names the fix when the hard limit allows it");
    r.checks[CHECK_NOFILE_HARD].status = PROBE_LOW;
    r.checks[CHECK_NOFILE_HARD].number = 2048;
    probe_verdicts(&r);
    is_str(r.descriptors.reason, "an async runtime will NOT get enough descriptors: soft limit 1024, "
           "hard limit 2048 < 4096 (only root can raise the hard limit, up to fs.nr_open)",
           "descriptors: only root can help when the hard limit is low");
    r.checks[CHECK_NOFILE_SOFT].has_number = false;
    free(r.checks[CHECK_NOFILE_SOFT].detail);
    r.checks[CHECK_NOFILE_SOFT].detail = xstrdup("getrlimit(RLIMIT_NOFILE): Bad address");
    probe_verdicts(&r);
    is_str(r.descriptors.reason, "RLIMIT_NOFILE could not be read: getrlimit(RLIMIT_NOFILE): Bad address",
           "descriptors: an unreadable limit says why");

    /* sandbox: the first namespace that fails, with its detail */
    r.checks[CHECK_NET_NS].status = PROBE_DENIED;
    free(r.checks[CHECK_NET_NS].detail);
    r.checks[CHECK_NET_NS].detail = xstrdup("unshare(CLONE_NEWNET): Operation not permitted");
    r.checks[CHECK_MOUNT_NS].status = PROBE_UNAVAILABLE;
    probe_verdicts(&r);
    ok(!r.sandbox.ok, "sandbox: a denied net namespace fails it");
    is_str(r.sandbox.reason, "sbx cannot create its sandbox here: net_namespace: unshare(CLONE_NEWNET): "
           "Operation not permitted (tier: none, and no Landlock for --fallback landlock either)",
           "sandbox: names the first failing namespace and its detail, and the tier");
    /* with Landlock, the tier sbx run takes under fallback = landlock */
    r.checks[CHECK_LANDLOCK].has_number = true;
    r.checks[CHECK_LANDLOCK].number = 7;
    probe_verdicts(&r);
    ok(!r.sandbox.ok && !strcmp(r.tier, "landlock"), "sandbox: no namespaces but Landlock: tier landlock");
    ok(strstr(r.sandbox.reason, "(tier: landlock with --fallback landlock or [sandbox] fallback = "
              "landlock (Landlock ABI 7; sbx(1) TIERS), else none)") != NULL,
       "sandbox: says the Landlock tier needs the fallback, and its ABI");
    r.checks[CHECK_LANDLOCK].has_number = false;
    r.checks[CHECK_NET_NS].status = r.checks[CHECK_MOUNT_NS].status = PROBE_OK;
    r.checks[CHECK_PROC_MOUNT].status = PROBE_DENIED;
    probe_verdicts(&r);
    ok(!r.sandbox.ok, "sandbox: a refused fresh /proc fails it");
    like_str(r.sandbox.reason, "sbx cannot give its sandbox a fresh /proc here (profiles with "
             "proc = no still run): proc_mount: fine", "sandbox: says that proc = no still runs");
    probe_results_free(&r);
}

int main(void)
{
    struct probe_results r;
    fill(&r);

    /* status -> pass */
    struct probe_check c = {.required = true};
    c.status = PROBE_OK; ok(probe_check_passed(&c), "ok passes");
    c.status = PROBE_INFO; ok(probe_check_passed(&c), "info passes");
    c.status = PROBE_DENIED; ok(!probe_check_passed(&c), "denied fails");
    c.status = PROBE_LOW; ok(!probe_check_passed(&c), "low fails");
    c.status = PROBE_UNAVAILABLE; ok(!probe_check_passed(&c), "unavailable fails a required check");
    c.required = false; ok(probe_check_passed(&c), "unavailable passes an optional check");
    c.status = PROBE_DENIED; ok(!probe_check_passed(&c), "denied fails an optional check too");
    c.status = PROBE_EXPOSED; ok(!probe_check_passed(&c), "exposed fails (credentials readable)");

    /* hostile text */
    free(r.checks[CHECK_CONTAINER].detail);
    r.checks[CHECK_CONTAINER].detail = xstrdup("PID 1 is \"evil # SKIP\nok 99 - fake\033[2J\"");
    r.checks[CHECK_INSIDE_SBX].text = xstrdup("pro\xff" "file");
    r.pid1_comm = xstrdup("evil\xfe");
    r.checks[CHECK_LO4_CONNECT].status = PROBE_DENIED;
    r.checks[CHECK_LO4_CONNECT].errnum = EPERM;

    char *tap = capture(probe_print_tap, &r);
    like_str(tap, "evil \\# SKIP", "TAP: '#' in a description is escaped");
    ok(!strstr(tap, "\nok 99 - fake"), "TAP: a newline in a detail cannot add a test line");
    ok(!strchr(tap, '\033'), "TAP: no escape bytes");
    like_str(tap, "not ok 5 - loopback_ipv4_connect: denied EPERM (fine)", "TAP: a denied check is not ok with its errno");
    like_str(tap, "1..23\n", "TAP: plan of 23");
    free(tap);

    char *table = capture(print_table_plain, &r);
    ok(!strchr(table, '\033'), "table without colour: no escape bytes, even from a detail");
    like_str(table, "?ok 99 - fake?[2J", "table: control bytes shown as '?'");
    free(table);
    table = capture(print_table_colour, &r);
    like_str(table, "\033[1;31mdenied", "table with colour: denied in bold red");
    free(table);

    struct json_object *j = probe_to_json(&r);
    const char *text = json_object_to_json_string(j);
    ok(utf8_valid(text, strlen(text)), "JSON: valid UTF-8 although PID 1's name is not");
    struct json_object *hints, *comm, *b64;
    json_object_object_get_ex(j, "hints", &hints);
    json_object_object_get_ex(hints, "pid1_comm", &comm);
    ok(comm && json_object_object_get_ex(comm, "base64", &b64) &&
       !strcmp(json_object_get_string(b64), "ZXZpbP4="), "JSON: PID 1's name as base64 (ZXZpbP4=)");
    struct json_object *checks, *lo4, *en;
    json_object_object_get_ex(j, "checks", &checks);
    json_object_object_get_ex(checks, "loopback_ipv4_connect", &lo4);
    json_object_object_get_ex(lo4, "errno", &en);
    is_str(json_object_get_string(en), "EPERM", "JSON: errno by name");
    json_object_put(j);

    probe_results_free(&r);
    test_credentials();
    test_verdicts();
    return done_testing();
}
