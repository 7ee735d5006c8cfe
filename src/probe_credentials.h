/* `sbx probe`'s credentials check: which credential-like files can this
 * process read? Outside a sandbox that is what a command run without sbx
 * gets; under `sbx probe --profile P`, what P leaves exposed. Only paths
 * and the reason are reported, never a byte of the file. */
#ifndef SBX_PROBE_CREDENTIALS_H
#define SBX_PROBE_CREDENTIALS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Bounds, so that the probe stays fast on a large $HOME (docs/probe-json.md
 * says them): directories deeper than this below a root are not entered,
 * at most this many entries are looked at, only regular files up to
 * this size are read, and the walk stops after this long. Known stores
 * are checked first, by path, whatever the walk reaches. */
#define CRED_SCAN_MAX_DEPTH 4
#define CRED_SCAN_MAX_ENTRIES 5000
#define CRED_SCAN_MAX_FILE_BYTES 65536
#define CRED_SCAN_MAX_MS 1000
#define CRED_SCAN_MAX_HITS 300

struct cred_hit {
    char *path;
    char *why;           /* "name: npm config" or "content: a private key" */
    dev_t dev;
    ino_t ino;
};

struct cred_scan {
    struct cred_hit *hits;
    size_t n, cap;
    char *roots[2];        /* $HOME, the working directory (NULL: none); owned */
    bool complete;         /* false: a bound stopped the walk */
    char *stopped_by;      /* which bound, when !complete */
    size_t entries;        /* entries looked at */
};

/* home and cwd: absolute paths or NULL. Scans both; each hit once. */
void cred_scan_run(struct cred_scan *s, const char *home, const char *cwd);
void cred_scan_free(struct cred_scan *s);

/* For unit tests: the marker label a buffer holds, or NULL. */
const char *cred_content_marker(const char *buf, size_t len);
/* The label when a file's name alone makes it credential-like, or NULL. */
const char *cred_name_label(const char *name);

#endif
