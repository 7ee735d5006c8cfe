/* The CI reports of `sbx audit` (audit_ci.c): the names and denied calls
 * are the command's output, so each format escapes what would let a name
 * out of its place (an XML attribute, a TAP line, a Markdown cell). */
#include "config.h"

#include "../tap.h"

#include "audit_ci.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    plan(16);
    struct audit_ci_row rows[3] = {
        { .name = "a\"><x/>&'", .kind = "test", .verdict = "false-green", .under = "passed",
          .against = "passed", .denied = "bind(AF_INET 127.0.0.1:0) x1 -> EPERM", .note = "", .seconds = 0.5 },
        { .name = "pure\nnot ok 9 - forged # TODO |x|", .unit = "m", .kind = "test",
          .verdict = "unaffected", .under = "passed", .against = "passed", .denied = "", .note = "" },
        { .name = "s\x01kip", .kind = "test", .verdict = "skipped", .under = "skipped",
          .against = "skipped", .denied = "", .note = "" },
    };
    char *x = audit_ci_junit("suite<1>", rows, 3);
    ok(strstr(x, "<testsuite name=\"suite&lt;1&gt;\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\">") != NULL,
       "junit: the counts, the suite's name escaped");
    ok(strstr(x, "name=\"a&quot;&gt;&lt;x/&gt;&amp;&apos;\"") != NULL, "junit: a hostile name stays in its attribute");
    ok(strstr(x, "<failure type=\"false-green\" message=\"false-green: passed / passed; denied: bind(AF_INET 127.0.0.1:0) x1 -&gt; EPERM\"/>") != NULL,
       "junit: a false green is a failure, its denied calls in the message");
    ok(strstr(x, "classname=\"m\"") != NULL, "junit: the unit is the class name");
    ok(strstr(x, "s\xef\xbf\xbdkip") != NULL && !strchr(x, '\x01'), "junit: a control byte XML cannot hold is replaced");
    ok(strstr(x, "<skipped message=") != NULL, "junit: a skip is skipped");
    ok(strstr(x, "time=\"0.500\"") != NULL, "junit: its time under the profile");
    free(x);

    char *t = audit_ci_tap(rows, 3);
    ok(!strncmp(t, "TAP version 13\n1..3\n", 20), "tap: the plan");
    ok(strstr(t, "not ok 1 - a\"><x/>&' # false-green") != NULL, "tap: a false green is not ok");
    ok(strstr(t, "ok 2 - pure not ok 9 - forged \\# TODO |x| # unaffected") != NULL,
       "tap: a newline in a name cannot forge a line, nor '#' a directive");
    ok(strstr(t, "ok 3 - s kip # SKIP skipped") != NULL, "tap: a skip is a SKIP");
    free(t);

    char *m = audit_ci_markdown("sbx audit: x", "3 tests", rows, 3);
    ok(strstr(m, "### sbx audit: x\n\n3 tests\n\n| verdict | test |") != NULL, "markdown: title, summary, table");
    ok(strstr(m, "| false-green | a\"&#62;&#60;x/&#62;&#38;' |") != NULL, "markdown: HTML in a name is inert");
    ok(strstr(m, "pure") == NULL, "markdown: unaffected tests are left out");
    ok(strstr(m, "| skipped | s<br>kip |") != NULL, "markdown: a control byte breaks no row");
    free(m);
    struct audit_ci_row pipe = { .name = "a|b\nc", .kind = "test", .verdict = "fails", .under = "failed",
                                 .against = "failed", .denied = "", .note = "" };
    m = audit_ci_markdown("t", "s", &pipe, 1);
    ok(strstr(m, "| fails | a\\|b<br>c | failed / failed |  |") != NULL, "markdown: '|' and newlines escaped");
    free(m);
    return done_testing();
}
