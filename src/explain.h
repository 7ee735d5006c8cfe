/* A run record's refusals and their fixes, read back (explain_cmd.c), for
 * `sbx explain` and `sbx profile learn` (learn_cmd.c). */
#ifndef SBX_EXPLAIN_H
#define SBX_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>

struct record_fix {
    char section[16];      /* "security", "network" or "filesystem" */
    char line[404];
    bool safe;
    char why[404];
    char answers[320];     /* the refusal it answers: "bind(AF_INET 127.0.0.1:0) -> EPERM" */
};

struct record_fixes {
    struct record_fix *v;  /* distinct (section, line), first seen first */
    size_t n;
    size_t unfixed;        /* rows with no usable fix, and unlisted denials */
    char profile[4096];    /* the run's profile: its path, else its name; "" none */
};

/* Reads the run record at PATH (untrusted: bounded, a fix used only if it
 * is one printable line of a known section). False with a message in err. */
bool record_fixes_read(const char *path, struct record_fixes *out, char *err, size_t errlen);
void record_fixes_free(struct record_fixes *f);

#endif
