/* The command's output, seen while it goes by: `sbx audit` reads each
 * test's result from what the runner prints, and the person running it
 * still sees every byte as it comes (capture.c).
 *
 * capture_start() turns this process's descriptors 1 and 2 into pipes,
 * which the sandbox's processes inherit; a thread copies what arrives to
 * the original 1 and 2, unchanged, and hands each chunk to fn, in order
 * per stream. The command's output is then a pipe, not the terminal it
 * may have been (runners stop colouring it). fn runs on the capture's
 * thread only; read what it gathered after capture_stop(). */
#ifndef SBX_CAPTURE_H
#define SBX_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

struct capture;

/* stream: 1 (stdout) or 2 (stderr). */
typedef void (*capture_fn)(int stream, const char *bytes, size_t len, void *data);

/* CAPTURE_MERGED: 1 and 2 share one pipe, so the bytes keep the order the
 * command wrote them across both (what the runner parsers read, runner.h);
 * they all go to the original 1 and reach fn as stream 1.
 * CAPTURE_QUIET: nothing is copied to the originals (audit's re-runs of one
 * test, which nobody needs to read). Dies (exit 125) when the pipes or the
 * thread cannot be made. */
#define CAPTURE_MERGED 1u
#define CAPTURE_QUIET 2u
struct capture *capture_start(capture_fn fn, void *data, unsigned flags);

/* Puts the original 1 and 2 back, copies and hands on what the pipes
 * still hold, ends the thread and frees c. Output written after this by
 * a process that kept the pipe is not seen (none does: sandbox_run()
 * returns once everything inside is gone). */
void capture_stop(struct capture *c);

#endif
