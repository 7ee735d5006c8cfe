/* The INI front end of the profile engine: one file's bytes into
 * KEY = VALUE entries with their line numbers.
 *
 * inih does the INI syntax, reading through a line reader of our own,
 * which checks what inih cannot report well (line length, NUL bytes,
 * UTF-8, syntax) and names the line; Debian's inih does not pass line
 * numbers to handlers, so the reader counts them. Profile bytes are
 * untrusted: a bad line is an error with its number, never a crash, a
 * hang or a silent cut. */
#include "config.h"

#include "profile_ini.h"

#include "util.h"

#include <ini.h>
#include <stdlib.h>
#include <string.h>

struct file_parse {
    struct loader *L;
    const char *file;        /* the label errors use (stored in p->files) */
    const char *data;
    size_t len, pos;
    unsigned line;           /* number of the line just handed to inih */
    bool section_ok;         /* the current [section] is known */
    bool in_section;
    char section[64];
    struct ini_entries *entries;
};

static void check_section(struct file_parse *fp, const char *name, size_t n)
{
    struct origin at = {fp->file, fp->line};
    fp->in_section = true;
    if (n >= sizeof fp->section) {
        add_error(fp->L, &at, "unknown section (name too long)");
        fp->section_ok = false;
        fp->section[0] = '\0';
        return;
    }
    memcpy(fp->section, name, n);
    fp->section[n] = '\0';
    fp->section_ok = profile_section_known(fp->section);
    if (!fp->section_ok) {
        char hint[96], all[256] = "";
        size_t len = 0;
        suggest(fp->section, profile_sections, hint, sizeof hint);
        for (const char *const *s = profile_sections; *s && len < sizeof all; s++)
            len += (size_t)snprintf(all + len, sizeof all - len, "%s[%s]", len ? " " : "", *s);
        add_error(fp->L, &at, "unknown section [%s]%s; sections are %s", fp->section, hint, all);
    }
}

/* inih's reader: hands over one checked line at a time. A line that is
 * wrong is reported here with its number and replaced by an empty line. */
static char *line_reader(char *str, int num, void *stream)
{
    struct file_parse *fp = stream;
    if (fp->pos >= fp->len)
        return NULL;
    const char *start = fp->data + fp->pos;
    const char *nl = memchr(start, '\n', fp->len - fp->pos);
    size_t linelen = nl ? (size_t)(nl - start) : fp->len - fp->pos;
    fp->pos += linelen + (nl ? 1 : 0);
    fp->line++;
    struct origin at = {fp->file, fp->line};

    size_t content = linelen;
    if (content > 0 && start[content - 1] == '\r')
        content--;
    str[0] = '\n';
    str[1] = '\0';

    /* inih's buffer must hold the line, "\r\n" and "\0". */
    size_t max = num > 3 ? (size_t)num - 3 : 0;
    if (content > max) {
        add_error(fp->L, &at, "line too long (%zu bytes; profile lines hold at most %zu)",
                  content, max);
        return str;
    }
    if (memchr(start, '\0', content)) {
        add_error(fp->L, &at, "NUL byte in line");
        return str;
    }
    if (!utf8_valid(start, content)) {
        add_error(fp->L, &at, "invalid UTF-8");
        return str;
    }
    /* Leading white space is dropped: inih would otherwise read an
     * indented line as the continuation of the previous value. */
    size_t skip = 0;
    while (skip < content && (start[skip] == ' ' || start[skip] == '\t'))
        skip++;
    const char *s = start + skip;
    size_t n = content - skip;
    if (fp->line == 1 && n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
        s += 3;
        n -= 3;
    }
    if (n == 0 || s[0] == '#' || s[0] == ';') {
        return str;
    }
    if (s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close) {
            add_error(fp->L, &at, "unterminated section header (expected ']')");
            return str;
        }
        /* trailing text after ']' other than a comment is a mistake */
        for (const char *q = close + 1; q < s + n; q++) {
            if (*q == ';' || *q == '#')
                break;
            if (*q != ' ' && *q != '\t') {
                add_error(fp->L, &at, "text after section header");
                return str;
            }
        }
        const char *nm = s + 1;
        size_t nn = (size_t)(close - nm);
        while (nn && (*nm == ' ' || *nm == '\t'))
            nm++, nn--;
        while (nn && (nm[nn - 1] == ' ' || nm[nn - 1] == '\t'))
            nn--;
        check_section(fp, nm, nn);
    } else {
        const char *eq = NULL;
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '=' || s[i] == ':') {
                eq = s + i;
                break;
            }
        }
        if (!eq) {
            add_error(fp->L, &at, "expected 'KEY = VALUE', a [section] or a comment");
            return str;
        }
        if (eq == s) {
            add_error(fp->L, &at, "missing key before '%c'", *eq);
            return str;
        }
    }
    memcpy(str, s, n);
    str[n] = '\n';
    str[n + 1] = '\0';
    return str;
}

static int entry_handler(void *user, const char *section, const char *name, const char *value)
{
    struct file_parse *fp = user;
    struct origin at = {fp->file, fp->line};
    if (!fp->in_section) {
        add_error(fp->L, &at, "'%s' is outside any [section]", name);
        return 1;
    }
    if (!fp->section_ok)
        return 1; /* the section header was reported */
    (void)section;
    struct ini_entries *out = fp->entries;
    xgrow((void **)&out->v, &out->cap, out->n + 1, sizeof *out->v);
    struct ini_entry *e = &out->v[out->n++];
    e->section = xstrdup(fp->section);
    e->key = xstrdup(name);
    e->value = xstrdup(value);
    e->line = fp->line;
    return 1;
}

void profile_ini_parse(struct loader *L, const char *file, const char *data, size_t len,
                       struct ini_entries *out)
{
    struct file_parse fp = {.L = L, .file = file, .data = data, .len = len, .entries = out};
    int r = ini_parse_stream(line_reader, &fp, entry_handler, &fp);
    if (r == -2)
        add_error(L, NULL, "%s: out of memory while parsing", file);
    /* r > 0 means inih saw a syntax error; the reader has reported every one */
}

void ini_entries_free(struct ini_entries *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->v[i].section);
        free(e->v[i].key);
        free(e->v[i].value);
    }
    free(e->v);
    e->v = NULL;
    e->n = e->cap = 0;
}
