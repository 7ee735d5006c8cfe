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
#include <stdint.h>

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

/* As capture_start(), with a result channel besides (`sbx audit`,
 * runner.h RUNNER_REPORT_FD): a socket pair, whose other end the command
 * gets (capture_report_fd(), sandbox_request.report_fd). `greeting` is
 * written to it before the command starts (the reporter's code and the
 * run's key, read by the reporter first thing: nothing else is ever
 * written there, so a test reading it later finds nothing); what the
 * command writes to it reaches fn as stream 3, never copied to the
 * originals, and capture_position() then counts that stream's bytes
 * instead: a denial's position is where the reporter's records were. */
struct capture *capture_start_report(capture_fn fn, void *data, unsigned flags, const void *greeting,
                                     size_t greeting_len);
/* The command's end of the result channel, or -1 without one. */
int capture_report_fd(const struct capture *c);

/* Puts the original 1 and 2 back, copies and hands on what the pipes
 * still hold, ends the thread and frees c. Output written after this by
 * a process that kept the pipe is not seen (none does: sandbox_run()
 * returns once everything inside is gone). */
void capture_stop(struct capture *c);

/* Where the merged stream is now: every byte the command has written so
 * far, read or still in the pipe (UINT64_MAX: not merged, or unknown). A
 * thread blocked in a denied call has all it wrote before the call below
 * this position, and nothing it writes after (the ledger reads it then,
 * ledger_event.output_pos). data: the struct capture, for
 * sandbox_request.output_position. */
uint64_t capture_position(void *data);

#endif
