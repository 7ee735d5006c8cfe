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
 * never follows it. */
#ifndef SBX_OUTPUT_FILE_H
#define SBX_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

struct output_file {
    int dir_fd;         /* O_PATH of the directory, opened before the sandbox */
    char *base;         /* the last component of path */
    char *path;         /* as the caller gave it, for messages */
};

/* Opens path's directory and checks, before the sandbox starts, that a
 * file can be created in it and that what the name holds now is a
 * regular file, a symbolic link to one, a dangling link, or nothing: a
 * directory, a fifo, a device or a link to one of those is refused, since
 * the caller cannot have meant to replace it. Dies (125) naming the path
 * and the fix; `what` names the option in messages ("--report"). */
void output_file_open(struct output_file *f, const char *path, const char *what);

/* Writes len bytes as the file's whole new content and puts it in place
 * of the name. Returns false with errno set when it could not (the name
 * is then left as it was, and no temporary file stays behind). Warns
 * when the name held a symbolic link or a file with other hard links:
 * they are replaced, never written through. */
bool output_file_publish(struct output_file *f, const char *text, size_t len, const char *what);

/* What the name holds now, when it is a regular file of at most max
 * bytes, read without following a symbolic link (O_NOFOLLOW) nor
 * blocking on a fifo: for a file sbx appends to by publishing its old
 * content and more ($GITHUB_STEP_SUMMARY). NULL (and *len 0) otherwise. */
char *output_file_read(struct output_file *f, size_t max, size_t *len);

/* Closes the directory fd and frees f's strings. */
void output_file_close(struct output_file *f);

#endif
