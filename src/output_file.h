/* A file sbx writes on the caller's behalf (the run record of --report),
 * often in a directory the sandbox can write.
 *
 * A command could replace the name with a symbolic link or a hard link to
 * a file of the caller's (~/.ssh/id_rsa) between runs or during one, and
 * open(O_TRUNC) would then write through it. So sbx never writes through
 * the name: it opens the directory (O_PATH) before the sandbox starts,
 * and at the end creates a new file in that directory fd (O_EXCL, a name
 * of its own), writes it and renameat()s it over the name. rename(2)
 * replaces the directory entry, whatever it was (a link, a fifo), and
 * never follows it.
 *
 * What the caller names is decided once, before the sandbox starts
 * (sbx(1), --report):
 *  - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the
 *    record is written to that descriptor of sbx's, which must be open for
 *    writing; nothing is created or replaced (a pipe, `>(jq .)`, a file
 *    stdout was redirected to).
 *  - a character device, or a fifo where no sandbox could have made it:
 *    written into (opened without O_CREAT or O_TRUNC; a fifo at the end,
 *    waiting for its reader), never replaced.
 *  - a symbolic link where no sandbox could have made it (the host's own:
 *    /dev/stdout, a link of yours outside every writable place): followed,
 *    and its target decided by these same rules; the link stays.
 *  - a symbolic link a sandbox could have made (mount_link_maybe_planted):
 *    replaced by the record, never followed.
 *  - a regular file, or nothing: replaced (rename).
 *  - a directory, a socket, a block device, a fifo a sandbox could have
 *    made: refused (125).
 * No directory on the way may go through a symlink a sandbox could have
 * made: the rule that keeps rw paths from being redirected (mount-plan.h). */
#ifndef SBX_OUTPUT_FILE_H
#define SBX_OUTPUT_FILE_H

#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct output_file {
    int dir_fd;         /* O_PATH of the directory, opened before the sandbox; -1: fd is used */
    int fd;             /* the descriptor written into (stdout, a device; -1: none) */
    bool reopen;        /* fd is an O_PATH on a fifo, opened for writing at the end */
    dev_t dev;          /* what was decided on: the directory, or fd's object */
    ino_t ino;
    char *base;         /* the last component of the name replaced */
    char *path;         /* as the caller gave it, for messages */
};

/* Decides what path names (above) and opens it, before the sandbox
 * starts: checks that a file can be created in the directory when the
 * name is to be replaced. writable: the places a sandbox could have
 * written (mount_writable_places()). Dies (125) naming the path and the
 * fix; `what` names the option in messages ("--report"). */
void output_file_open(struct output_file *f, const char *path, const char *what,
                      const struct strv *writable);

/* Decides again with a longer list of writable places (a profile's rw
 * rules, known once it is loaded): dies (125) when the name would now be
 * refused or decided otherwise. f is left unusable before dying, so that
 * nothing is written where the check failed. */
void output_file_recheck(struct output_file *f, const char *what, const struct strv *writable);

/* Writes len bytes as the file's whole new content and puts it in place
 * of the name (or into the descriptor). Returns false with errno set when
 * it could not (the name is then left as it was, and no temporary file
 * stays behind). Warns when the name held a symbolic link or a file with
 * other hard links: they are replaced, never written through. */
bool output_file_publish(struct output_file *f, const char *text, size_t len, const char *what);

/* What the name holds now, when it is a regular file of at most max
 * bytes, read without following a symbolic link (O_NOFOLLOW) nor
 * blocking on a fifo: for a file sbx appends to by publishing its old
 * content and more ($GITHUB_STEP_SUMMARY). NULL (and *len 0) otherwise. */
char *output_file_read(struct output_file *f, size_t max, size_t *len);

/* Whether anything is still to be written (not published, closed or
 * given up). */
bool output_file_usable(const struct output_file *f);

/* Closes the descriptors and frees f's strings. */
void output_file_close(struct output_file *f);

#endif
