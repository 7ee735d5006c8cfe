/* Writes the CI reports of an audit (audit_ci.h) to the files opened
 * before it ran (output_file.h: never through a link the command could
 * have planted, never into a device). */
#include "config.h"

#include "audit_ci_out.h"

#include "log.h"
#include "output_file.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A step summary bigger than this is not read back: GitHub shows 1 MiB. */
#define STEP_SUMMARY_MAX (16u << 20)

static bool publish(struct output_file *f, char *text, const char *what)
{
    bool ok = output_file_publish(f, text, strlen(text), what);
    if (!ok)
        warn("%s: cannot write %s: %s", what, f->path, strerror(errno));
    free(text);
    return ok;
}

bool audit_ci_write(const struct audit_ci_outputs *o, const char *suite, const char *summary,
                    const struct audit_ci_row *rows, size_t n)
{
    bool ok = true;
    if (o->junit)
        ok = publish(o->junit, audit_ci_junit(suite, rows, n), "--junit") && ok;
    if (o->tap)
        ok = publish(o->tap, audit_ci_tap(rows, n), "--tap") && ok;
    if (o->step_summary) {
        size_t len;
        char *old = output_file_read(o->step_summary, STEP_SUMMARY_MAX, &len);
        char title[256];
        snprintf(title, sizeof title, "sbx audit: %s", suite);
        char *table = audit_ci_markdown(title, summary, rows, n);
        size_t tlen = strlen(table);
        char *all = xcalloc(1, len + tlen + 1);
        if (old)
            memcpy(all, old, len);
        memcpy(all + len, table, tlen);
        free(old);
        free(table);
        ok = publish(o->step_summary, all, "GITHUB_STEP_SUMMARY") && ok;
    }
    return ok;
}
