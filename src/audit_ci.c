/* JUnit, TAP and Markdown reports of a per-test audit (audit_ci.h). */
#include "config.h"

#include "audit_ci.h"

#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct text {
    char *s;
    size_t len, cap;
};

static void put(struct text *t, const char *s, size_t len)
{
    if (t->len + len + 1 > t->cap) {
        while (t->len + len + 1 > t->cap)
            t->cap = t->cap ? 2 * t->cap : 1024;
        t->s = xrealloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, s, len);
    t->len += len;
    t->s[t->len] = '\0';
}

static void puts_(struct text *t, const char *s)
{
    put(t, s, strlen(s));
}

static void printf_(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(struct text *t, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        put(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* XML 1.0 holds no control character but tab, newline and return, even as
 * a character reference: those become U+FFFD. Bytes >= 0x80 pass (the
 * names are UTF-8 as the runner wrote them; a bad sequence is the
 * consumer's to reject, not a way out of the attribute). */
static void xml(struct text *t, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '<': puts_(t, "&lt;"); break;
        case '>': puts_(t, "&gt;"); break;
        case '&': puts_(t, "&amp;"); break;
        case '"': puts_(t, "&quot;"); break;
        case '\'': puts_(t, "&apos;"); break;
        case '\t': puts_(t, "&#9;"); break;
        case '\n': puts_(t, "&#10;"); break;
        case '\r': puts_(t, "&#13;"); break;
        default:
            if (c < 0x20 || c == 0x7f)
                puts_(t, "\xef\xbf\xbd");
            else
                put(t, (const char *)&c, 1);
        }
    }
}

/* One line of text: newlines and control bytes would start a new TAP
 * line or Markdown row; '#' would start a TAP directive; '|' a cell. */
static void line(struct text *t, const char *s, bool markdown)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n' || c == '\r' || c < 0x20 || c == 0x7f)
            puts_(t, markdown ? "<br>" : " ");
        else if (!markdown && c == '#')
            puts_(t, "\\#");
        else if (markdown && c == '|')
            puts_(t, "\\|");
        else if (markdown && (c == '<' || c == '>' || c == '&' || c == '`' || c == '*' ||
                              c == '[' || c == ']' || c == '\\'))
            printf_(t, "&#%d;", c);
        else
            put(t, (const char *)&c, 1);
    }
}

bool audit_ci_is_failure(const char *v)
{
    return !strcmp(v, "false-green") || !strcmp(v, "false-green-hiding-failure") ||
           !strcmp(v, "not-observed") || !strcmp(v, "fails");
}

bool audit_ci_is_skip(const char *v)
{
    return !strcmp(v, "skipped") || !strcmp(v, "skipped-here");
}

static void message(struct text *t, const struct audit_ci_row *r, bool markdown)
{
    line(t, r->verdict, markdown);
    puts_(t, ": ");
    line(t, r->under, markdown);
    puts_(t, " / ");
    line(t, r->against, markdown);
    if (r->denied && r->denied[0]) {
        puts_(t, "; denied: ");
        line(t, r->denied, markdown);
    }
    if (r->note && r->note[0])
        line(t, r->note, markdown);
}

char *audit_ci_junit(const char *suite, const struct audit_ci_row *rows, size_t n)
{
    size_t failures = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        failures += audit_ci_is_failure(rows[i].verdict);
        skipped += audit_ci_is_skip(rows[i].verdict);
    }
    struct text t = { 0 };
    puts_(&t, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"");
    xml(&t, suite);
    printf_(&t, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", n, failures,
            skipped);
    for (size_t i = 0; i < n; i++) {
        const struct audit_ci_row *r = &rows[i];
        puts_(&t, "    <testcase classname=\"");
        xml(&t, r->unit ? r->unit : suite);
        puts_(&t, "\" name=\"");
        xml(&t, r->name);
        printf_(&t, "\" time=\"%.3f\">\n", r->seconds);
        struct text m = { 0 };
        message(&m, r, false);
        if (audit_ci_is_failure(r->verdict)) {
            puts_(&t, "      <failure type=\"");
            xml(&t, r->verdict);
            puts_(&t, "\" message=\"");
            xml(&t, m.s);
            puts_(&t, "\"/>\n");
        } else if (audit_ci_is_skip(r->verdict)) {
            puts_(&t, "      <skipped message=\"");
            xml(&t, m.s);
            puts_(&t, "\"/>\n");
        }
        puts_(&t, "      <system-out>");
        xml(&t, m.s);
        puts_(&t, "</system-out>\n    </testcase>\n");
        free(m.s);
    }
    puts_(&t, "  </testsuite>\n</testsuites>\n");
    return t.s;
}

char *audit_ci_tap(const struct audit_ci_row *rows, size_t n)
{
    struct text t = { 0 };
    printf_(&t, "TAP version 13\n1..%zu\n", n);
    for (size_t i = 0; i < n; i++) {
        const struct audit_ci_row *r = &rows[i];
        printf_(&t, "%s %zu - ", audit_ci_is_failure(r->verdict) ? "not ok" : "ok", i + 1);
        line(&t, r->name, false);
        puts_(&t, audit_ci_is_skip(r->verdict) ? " # SKIP " : " # ");
        message(&t, r, false);
        puts_(&t, "\n");
    }
    return t.s;
}

char *audit_ci_markdown(const char *title, const char *summary, const struct audit_ci_row *rows,
                        size_t n)
{
    struct text t = { 0 };
    puts_(&t, "### ");
    line(&t, title, true);
    puts_(&t, "\n\n");
    line(&t, summary, true);
    puts_(&t, "\n\n");
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        const struct audit_ci_row *r = &rows[i];
        if (!strcmp(r->verdict, "unaffected"))
            continue;
        if (!shown++)
            puts_(&t, "| verdict | test | under / against | denied |\n|---|---|---|---|\n");
        puts_(&t, "| ");
        line(&t, r->verdict, true);
        puts_(&t, " | ");
        line(&t, r->name, true);
        puts_(&t, " | ");
        line(&t, r->under, true);
        puts_(&t, " / ");
        line(&t, r->against, true);
        puts_(&t, " | ");
        line(&t, r->denied, true);
        line(&t, r->note, true);
        puts_(&t, " |\n");
    }
    if (!shown)
        puts_(&t, "Every test unaffected.\n");
    puts_(&t, "\n");
    return t.s;
}
