/* The compiled seccomp filter, kept across runs (issue 30): libseccomp's
 * export of the default deny-list costs about half a millisecond of CPU
 * per run; the same rules give the same program, so it is kept in a file
 * and loaded from there on the next run.
 *
 * What a file there holds is loaded into the command's kernel, so the
 * cache is trusted only as far as nobody but sbx can write it:
 *  - the directory ($XDG_CACHE_HOME/sbx, else ~/.cache/sbx) is opened
 *    once without following a symbolic link in its last component, made
 *    0700 when sbx creates it, and refused when it is not the caller's
 *    own or is group- or world-writable; every file is reached through
 *    that descriptor (openat), so a directory swapped after the check
 *    changes nothing;
 *  - an entry is opened O_NOFOLLOW (a planted symlink is not followed),
 *    must be a regular file of the caller's, not group- or world-writable,
 *    within the size bounds below, and is read into memory once: what is
 *    verified is the copy that is loaded (a file rewritten between the
 *    check and the load cannot reach the kernel);
 *  - it holds the whole key (every input that shapes the program, not
 *    only its hash) and a checksum of key and program: a file that does
 *    not verify (truncated, a bit flipped, another key) is ignored and
 *    rewritten, never trusted;
 *  - writes go to a new file (O_CREAT | O_EXCL, 0600) renamed over the
 *    entry: a reader sees the old file or the new one, never half of one;
 *  - no sandbox can write the directory: it is on the protect list of
 *    every run (plan_protect_list(), like the private write layers), so a
 *    command whose HOME or ~/.cache is writable (HOME inside the project,
 *    or a profile's rw = ~/.cache) cannot plant the next run's filter.
 * SBX_SECCOMP_CACHE=0 (or off, no) turns it off: every run compiles.
 *
 * The key (seccomp_cache_key_*) is composed by seccomp.c from the rule set
 * as data, the libseccomp version and API level, the kernel's machine and
 * release, the native architecture and sbx's build id (GNU build-id note
 * of the running binary; without one nothing is cached). */
#ifndef SBX_SECCOMP_CACHE_H
#define SBX_SECCOMP_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>

/* Bounds of what a cache file may hold: a key of at most this many bytes
 * and a program the kernel takes (1 to BPF_MAXINSNS instructions). */
#define SECCOMP_CACHE_KEY_MAX 65536u
/* The file: its header (magic, key length, instruction count, checksum),
 * then the key and the program; at most this many bytes in all. */
#define SECCOMP_CACHE_HEADER (8 + 4 + 4 + 8)
#define SECCOMP_CACHE_FILE_MAX \
    (SECCOMP_CACHE_HEADER + SECCOMP_CACHE_KEY_MAX + BPF_MAXINSNS * sizeof(struct sock_filter))

struct seccomp_cache_key {
    unsigned char *bytes;
    size_t len, cap;
    bool too_long;          /* over SECCOMP_CACHE_KEY_MAX: not cached */
};

/* Pure (seccomp_cache_file.c): the key, the file's bytes, the names. */

/* Appends n bytes to the key. */
void seccomp_cache_key_add(struct seccomp_cache_key *k, const void *p, size_t n);
void seccomp_cache_key_free(struct seccomp_cache_key *k);

/* FNV-1a, 64 bits (pure): the file name and the checksum. Not a MAC: the
 * trust is the directory's (above), the checksum catches a damaged file. */
uint64_t seccomp_cache_hash(const void *p, size_t n, uint64_t seed);

/* The file's bytes for key k and program prog (pure); *len is set. */
unsigned char *seccomp_cache_encode(const struct seccomp_cache_key *k, const struct sock_fprog *prog,
                                    size_t *len);

/* Whether buf (n bytes) is a file for exactly key k with a program that
 * verifies (pure): then a copy of the program is in *out (free its
 * filter) and true is returned. */
bool seccomp_cache_decode(const unsigned char *buf, size_t n, const struct seccomp_cache_key *k,
                          struct sock_fprog *out);

/* The directory (pure): $XDG_CACHE_HOME/sbx when that is absolute, else
 * HOME/.cache/sbx; NULL without an absolute HOME. */
char *seccomp_cache_dir(const char *home, const char *xdg_cache_home);

/* With side effects (seccomp_cache.c). False when SBX_SECCOMP_CACHE says
 * 0, off or no. */
bool seccomp_cache_enabled(void);

/* Opens the cache directory path (creating it 0700 when create is true,
 * and its parent, e.g. ~/.cache, when missing): a descriptor, or -1 with
 * *why set (static) when it is missing or may not be trusted. */
int seccomp_cache_open_dir(const char *path, bool create, const char **why);

/* Loads the entry for k from the directory dirfd into *out: true when one
 * verified. Otherwise *why (static) says what was found. */
bool seccomp_cache_load(int dirfd, const struct seccomp_cache_key *k, struct sock_fprog *out,
                        const char **why);

/* Writes the entry for k atomically; false (and *why) on failure. */
bool seccomp_cache_store(int dirfd, const struct seccomp_cache_key *k, const struct sock_fprog *prog,
                         const char **why);

/* The entry's file name for k (e.g. "filter-0123456789abcdef"), in buf. */
void seccomp_cache_name(const struct seccomp_cache_key *k, char *buf, size_t size);

#endif
