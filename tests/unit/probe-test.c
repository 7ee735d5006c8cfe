/* sbx probe's output functions on results built by hand: what a hostile
 * environment can put in them (PID 1's name, SBX_PROFILE) must not break a
 * TAP line, the terminal or the JSON. */
#include "config.h"

#include "probe.h"
#include "probe_output.h"
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
        "landlock", "container", "inside_sbx",
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

static void print_table_colour(const struct probe_results *r, FILE *f) { probe_print_table(r, f, true); }
static void print_table_plain(const struct probe_results *r, FILE *f) { probe_print_table(r, f, false); }

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
    like_str(tap, "1..20\n", "TAP: plan of 20");
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
    return done_testing();
}
