/* The command lines of the ledger's callers (ledger_set_record_argv):
 * each distinct one kept once, in a bounded table, and named by a small
 * number that the ledger's events carry. Pure: the bytes are the
 * command's own (/proc/PID/cmdline: what the process says it runs, which
 * it may rewrite), kept as they are, never parsed here. */
#ifndef SBX_LEDGER_ARGV_H
#define SBX_LEDGER_ARGV_H

#include <stddef.h>
#include <stdint.h>

/* Distinct command lines kept; later ones are numbered 0 (unknown). */
#define LEDGER_MAX_ARGVS 512
/* Bytes kept of one (its arguments, each ending in NUL): a longer one is
 * cut, at an argument's end where it can be. */
#define LEDGER_ARGV_MAX 512

struct argv_table;

struct argv_table *argv_table_new(void);
void argv_table_free(struct argv_table *t);
/* The number (1..LEDGER_MAX_ARGVS) of bytes[0..len) in t, added if new;
 * 0 when len is 0 or t is full. */
uint16_t argv_table_intern(struct argv_table *t, const char *bytes, size_t len);
/* Number idx's bytes, *len of them; NULL for 0 or a number never given. */
const char *argv_table_get(const struct argv_table *t, uint16_t idx, size_t *len);
/* Its heap, for ledger_memory_bytes(): allocated once. */
size_t argv_table_memory(const struct argv_table *t);

#endif
