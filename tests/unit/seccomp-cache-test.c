/* Unit test of the compiled-filter cache (seccomp_cache.h): the program
 * loaded from the cache is byte for byte a fresh compile's, and each
 * attack on the cache directory is kept as a check: a truncated or
 * bit-flipped file, one for another key, a planted symlink (entry and
 * directory), a FIFO, a group/world-writable or foreign directory or
 * entry, a file rewritten after it was read. Run as root and as 65534
 * (the foreign-owner checks need a second uid: root chowns; 65534 uses a
 * root-owned directory). */
#include "config.h"

#include "../tap.h"

#include "profile.h"
#include "seccomp.h"
#include "seccomp_cache.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool same(const struct sock_fprog *a, const struct sock_fprog *b)
{
    return a->len == b->len && a->len && !memcmp(a->filter, b->filter, a->len * sizeof *a->filter);
}

/* The main filter of p: compiled (no cache), or through the cache in dir.
 * Each is freed at the end (compiled_free). */
static struct seccomp_program kept[64];
static size_t nkept;
static struct seccomp_program compiled(const struct profile *p, const char *dir)
{
    struct seccomp_program prog;
    seccomp_use_cache(dir);
    seccomp_compile(p, geteuid() == 0, -1, NULL, 0, &prog);
    seccomp_use_cache(NULL);
    if (nkept == sizeof kept / sizeof kept[0])
        bail_out("too many programs");
    kept[nkept++] = prog;
    return prog;
}

static void compiled_free(void)
{
    for (size_t i = 0; i < nkept; i++)
        seccomp_program_free(&kept[i]);
}

static char *entry_path(const char *dir)
{
    autofree char *cmd = xasprintf("ls %s/filter-* 2>/dev/null | head -1", dir);
    FILE *f = popen(cmd, "r");
    char line[4096] = "";
    if (!f || !fgets(line, sizeof line, f))
        line[0] = '\0';
    if (f)
        pclose(f);
    line[strcspn(line, "\n")] = '\0';
    return xstrdup(line);
}

static void write_bytes(const char *path, const void *b, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || !write_all(fd, b, n))
        bail_out("cannot write a test file");
    close(fd);
}

static void format_checks(void)
{
    struct seccomp_cache_key k = { 0 }, other = { 0 };
    seccomp_cache_key_add(&k, "rules", 5);
    seccomp_cache_key_add(&other, "rulez", 5);
    struct sock_filter code[3] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
                                   BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
                                   BPF_STMT(BPF_RET | BPF_K, 0x7fff0000u) };
    struct sock_fprog prog = { .len = 3, .filter = code }, got = { 0 };
    size_t n = 0;
    unsigned char *f = seccomp_cache_encode(&k, &prog, &n);
    ok(seccomp_cache_decode(f, n, &k, &got) && same(&got, &prog), "an encoded entry decodes to its program");
    free(got.filter);
    ok(!seccomp_cache_decode(f, n, &other, &got), "an entry for another key (same length) is refused");
    size_t bad_len = 0;
    for (size_t cut = 0; cut < n; cut++)
        if (seccomp_cache_decode(f, cut, &k, &got)) {
            bad_len++;
            free(got.filter);
        }
    is_int(bad_len, 0, "no truncation of the file verifies");
    size_t bad_flip = 0;
    for (size_t i = 0; i < n; i++)
        for (int bit = 0; bit < 8; bit++) {
            f[i] ^= (unsigned char)(1u << bit);
            if (seccomp_cache_decode(f, n, &k, &got)) {
                bad_flip++;
                free(got.filter);
            }
            f[i] ^= (unsigned char)(1u << bit);
        }
    is_int(bad_flip, 0, "no single flipped bit anywhere in the file verifies");
    /* a length field that points past the buffer, checksum made to match */
    unsigned char *g = xmalloc(n + 8);
    memcpy(g, f, n);
    memset(g + n, 0, 8);
    ok(!seccomp_cache_decode(g, n + 8, &k, &got), "trailing bytes are refused");
    uint32_t huge = 0xffffffffu;
    memcpy(g + 12, &huge, 4);
    ok(!seccomp_cache_decode(g, n, &k, &got), "an instruction count past BPF_MAXINSNS is refused");
    free(g);
    free(f);
    seccomp_cache_key_free(&k);
    seccomp_cache_key_free(&other);
}

int main(void)
{
    plan(29);
    format_checks();

    char base[] = "/var/tmp/sbx-seccomp-cache-test.XXXXXX";
    if (!mkdtemp(base))
        bail_out("mkdtemp");
    chmod(base, 0700);
    autofree char *dir = xasprintf("%s/cache/sbx", base);

    /* the defaults (seccomp = default), and with other rules */
    struct profile p, strict;
    profile_init_defaults(&p);
    profile_init_defaults(&strict);
    strict.nested_userns = false;

    /* 1. the program from the cache is a fresh compile's */
    struct seccomp_program fresh = compiled(&p, NULL);
    struct seccomp_program first = compiled(&p, dir);
    is_str(first.origin, "compiled, and cached", "a cold cache compiles and keeps the program");
    struct seccomp_program warm = compiled(&p, dir);
    is_str(warm.origin, "from the cache", "the next compile loads it");
    ok(same(&fresh.filter, &first.filter) && same(&fresh.filter, &warm.filter),
       "the program loaded from the cache is byte for byte a fresh compile's (%u instructions)",
       fresh.filter.len);
    struct stat st;
    ok(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700, "the directory is made 0700");
    autofree char *entry = entry_path(dir);
    ok(stat(entry, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_uid == geteuid(),
       "the entry is the caller's, 0600");
    struct seccomp_program s1 = compiled(&strict, NULL), s2 = compiled(&strict, dir),
                           s3 = compiled(&strict, dir);
    ok(!same(&s1.filter, &fresh.filter) && same(&s1.filter, &s2.filter) && same(&s1.filter, &s3.filter) &&
           !strcmp(s3.origin, "from the cache"),
       "other rules (nested_userns = no) are another entry, and it too is a fresh compile's");

    /* 2. a damaged entry is ignored and rewritten */
    size_t n;
    autofree char *good = read_file_text(entry, 1 << 20, &n);
    if (!good)
        bail_out("cannot read the entry");
    autofree char *bad = xmalloc(n);
    memcpy(bad, good, n);
    bad[n - 3] ^= 0x10; /* a bit of the last instruction: its return value */
    write_bytes(entry, bad, n);
    struct seccomp_program flipped = compiled(&p, dir);
    ok(!strcmp(flipped.origin, "compiled: the cached one (does not verify) was rewritten") &&
           same(&flipped.filter, &fresh.filter),
       "a flipped bit: not trusted, compiled afresh");
    struct seccomp_program again = compiled(&p, dir);
    ok(!strcmp(again.origin, "from the cache") && same(&again.filter, &fresh.filter),
       "... and rewritten: the next run loads the good one");
    write_bytes(entry, good, n / 2);
    struct seccomp_program cut = compiled(&p, dir);
    ok(!strcmp(cut.origin, "compiled: the cached one (does not verify) was rewritten") &&
           same(&cut.filter, &fresh.filter), "a truncated entry: not trusted");

    /* 3. a symlink planted as the entry is not followed, and replaced */
    autofree char *decoy = xasprintf("%s/decoy", base);
    write_bytes(decoy, good, n);
    unlink(entry);
    if (symlink(decoy, entry) < 0)
        bail_out("symlink");
    struct seccomp_program via_link = compiled(&p, dir);
    ok(!strcmp(via_link.origin, "compiled: the cached one (a symbolic link) was rewritten"),
       "a symlink as the entry (to a valid entry elsewhere) is not followed");
    ok(lstat(entry, &st) == 0 && S_ISREG(st.st_mode), "... and is replaced by a file of sbx's");
    autofree char *decoy_now = read_file_text(decoy, 1 << 20, &n);
    ok(decoy_now && !memcmp(decoy_now, good, n), "... without writing through it");

    /* 4. a FIFO as the entry does not hang the run */
    unlink(entry);
    if (mkfifo(entry, 0600) < 0)
        bail_out("mkfifo");
    struct seccomp_program fifo = compiled(&p, dir);
    ok(!strcmp(fifo.origin, "compiled: the cached one (not a regular file) was rewritten"),
       "a FIFO as the entry is refused without a wait");

    /* 5. an entry writable by others is not trusted */
    compiled(&p, dir);
    chmod(entry, 0666);
    struct seccomp_program loose = compiled(&p, dir);
    ok(!strcmp(loose.origin, "compiled: the cached one (writable by group or others) was rewritten"),
       "an entry writable by group or others is not trusted");

    /* 6. the directory: world-writable, a symlink, another user's */
    chmod(dir, 0777);
    struct seccomp_program open_dir = compiled(&p, dir);
    autofree char *dir_refused = xasprintf("compiled: the cache directory %s is not used: writable by group or others", dir);
    ok(!strcmp(open_dir.origin, dir_refused),
       "a world-writable cache directory is not used");
    chmod(dir, 0700);
    autofree char *moved = xasprintf("%s/cache/elsewhere", base);
    rename(dir, moved);
    if (symlink(moved, dir) < 0)
        bail_out("symlink");
    struct seccomp_program linked = compiled(&p, dir);
    autofree char *link_refused = xasprintf("compiled: the cache directory %s is not used: a symbolic link or not a directory", dir);
    ok(!strcmp(linked.origin, link_refused),
       "a symlink planted as the cache directory is not followed");
    unlink(dir);
    rename(moved, dir);
    const char *why = NULL;
    int fd;
    if (geteuid() == 0) {
        chown(dir, 65534, 65534);
        fd = seccomp_cache_open_dir(dir, false, &why);
        chown(dir, 0, 0);
    } else {
        fd = seccomp_cache_open_dir("/usr/share", false, &why);
    }
    ok(fd < 0 && why && !strcmp(why, "not the caller's own"), "another user's directory is not used (%s)",
       why ? why : "opened");
    if (fd >= 0)
        close(fd);
    if (geteuid() == 0) {
        compiled(&p, dir);
        chown(entry, 65534, 65534);
        struct seccomp_program foreign = compiled(&p, dir);
        ok(!strcmp(foreign.origin, "compiled: the cached one (not the caller's own) was rewritten"),
           "another user's entry is not trusted");
    } else {
        ok(seccomp_cache_open_dir("/tmp", false, &why) < 0, "a sticky world-writable directory is not used");
    }

    /* 7. read once: what was verified is what is loaded, whatever the file
     * holds after the read */
    compiled(&p, dir);
    struct seccomp_cache_key k = { 0 };
    seccomp_cache_key_add(&k, "k", 1);
    struct sock_filter ret_allow = BPF_STMT(BPF_RET | BPF_K, 0x7fff0000u);
    struct sock_fprog allow = { .len = 1, .filter = &ret_allow }, got = { 0 };
    fd = seccomp_cache_open_dir(dir, false, &why);
    ok(fd >= 0 && seccomp_cache_store(fd, &k, &allow, &why) && seccomp_cache_load(fd, &k, &got, &why) &&
           same(&got, &allow), "store and load through the directory's descriptor");
    free(got.filter);
    char name[64];
    seccomp_cache_name(&k, name, sizeof name);
    autofree char *kpath = xasprintf("%s/%s", dir, name);
    autofree char *kfile = read_file_text(kpath, 1 << 20, &n);
    /* a directory swapped for another after it was opened: the entry is
     * still read from the one that was checked */
    rename(dir, moved);
    mkdir(dir, 0700);
    ok(fd >= 0 && seccomp_cache_load(fd, &k, &got, &why) && same(&got, &allow),
       "the directory opened once: a swap of its path afterwards changes nothing");
    free(got.filter);
    rmdir(dir);
    rename(moved, dir);
    if (fd >= 0)
        close(fd);
    ok(kfile != NULL && n > 0, "the entry was written");
    seccomp_cache_key_free(&k);

    /* 8. SBX_SECCOMP_CACHE */
    setenv("SBX_SECCOMP_CACHE", "0", 1);
    ok(!seccomp_cache_enabled(), "SBX_SECCOMP_CACHE=0 turns the cache off");
    setenv("SBX_SECCOMP_CACHE", "1", 1);
    ok(seccomp_cache_enabled(), "SBX_SECCOMP_CACHE=1 leaves it on");
    unsetenv("SBX_SECCOMP_CACHE");

    compiled_free();
    profile_free(&p);
    profile_free(&strict);
    autofree char *rm = xasprintf("rm -rf %s", base);
    if (system(rm) != 0)
        diag("could not remove %s", base);
    return done_testing();
}
