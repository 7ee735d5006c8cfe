/* The ledger's table of command lines (ledger_argv.h). */
#include "config.h"

#include "ledger_argv.h"

#include "util.h"

#include <string.h>

#define SLOTS (2 * LEDGER_MAX_ARGVS)  /* open addressing, half full at most */

struct argv_table {
    char (*text)[LEDGER_ARGV_MAX];
    uint16_t len[LEDGER_MAX_ARGVS];
    size_t n;
    uint16_t slot[SLOTS];  /* number, 0: empty */
};

struct argv_table *argv_table_new(void)
{
    struct argv_table *t = xcalloc(1, sizeof *t);
    t->text = xcalloc(LEDGER_MAX_ARGVS, sizeof *t->text);
    return t;
}

void argv_table_free(struct argv_table *t)
{
    if (!t)
        return;
    free(t->text);
    free(t);
}

static uint64_t hash(const char *b, size_t len)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)b[i]) * 1099511628211ull;
    return h;
}

uint16_t argv_table_intern(struct argv_table *t, const char *bytes, size_t len)
{
    if (!len)
        return 0;
    if (len > LEDGER_ARGV_MAX) {
        /* cut at the end of the last argument that fits whole */
        len = LEDGER_ARGV_MAX;
        while (len && bytes[len - 1] != '\0')
            len--;
        if (!len)
            len = LEDGER_ARGV_MAX;
    }
    for (size_t k = (size_t)hash(bytes, len) % SLOTS;; k = (k + 1) % SLOTS) {
        uint16_t idx = t->slot[k];
        if (!idx) {
            if (t->n == LEDGER_MAX_ARGVS)
                return 0;
            memcpy(t->text[t->n], bytes, len);
            t->len[t->n] = (uint16_t)len;
            t->slot[k] = (uint16_t)++t->n;
            return t->slot[k];
        }
        if (t->len[idx - 1] == len && !memcmp(t->text[idx - 1], bytes, len))
            return idx;
    }
}

const char *argv_table_get(const struct argv_table *t, uint16_t idx, size_t *len)
{
    if (!t || !idx || idx > t->n)
        return NULL;
    *len = t->len[idx - 1];
    return t->text[idx - 1];
}

size_t argv_table_memory(const struct argv_table *t)
{
    return t ? sizeof *t + LEDGER_MAX_ARGVS * sizeof *t->text : 0;
}
