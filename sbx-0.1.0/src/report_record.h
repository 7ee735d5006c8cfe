/* The run record's own state, shared by the report_*.c files and by
 * record_profile() in report.c; no other module includes it (they use
 * report.h).
 *
 *  report_events.c    the event log in shared memory and what writes to it
 *  report_replay.c    reading the log back, as untrusted input
 *  report_document.c  the pure assembly of the document and its verdict
 *  report_file.c      the --report file: open, die_hook, atexit, audit
 *  report.c           the profile as asked (record_profile) */
#ifndef SBX_REPORT_RECORD_H
#define SBX_REPORT_RECORD_H

#include "report.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Room for the events of one run. Pages are only touched as events are
 * appended; a run that overflows it is marked "events_truncated". */
#define RECORD_ARENA_SIZE (4u << 20)
/* One event line at most (a mount of a PATH_MAX path is well below). */
#define RECORD_EVENT_MAX (64u << 10)

/* The event log: a MAP_SHARED anonymous mapping made before any fork, so
 * that what init and the command's pre-exec setup append reaches the
 * supervisor. Appends reserve space with an atomic add, so processes
 * appending at once never overlap. */
struct record_arena {
    size_t used;        /* bytes reserved so far (atomic) */
    int truncated;      /* an append did not fit (atomic) */
    char data[];
};

struct run_events;
struct env_diff;

struct run_record {
    struct record_arena *arena;
    size_t arena_size;
    struct timespec start_real;
    long long start_mono_us;
    char *label;
    /* known in the supervisor, kept in its memory: */
    struct json_object *profile;      /* record_profile(): as asked */
    struct json_object *environment;  /* record_profile(): the rules */
    struct json_object *command;      /* record_command() */
    struct env_diff *env;             /* record_environment(): env_build()'s diff
                                       * (names only); NULL until it was built */
};

/* CLOCK_MONOTONIC in microseconds. */
long long record_mono_us(void);

/* A new record with its event log mapped (dies when it cannot be). */
struct run_record *record_new(void);

/* report_file.c: rec is being freed; the file state forgets it. */
void report_file_forget(const struct run_record *rec);
/* report_file.c: `sbx audit` keeps the command of its runs (record_command). */
void report_file_note_argv(struct json_object *argv);

/* report_replay.c: the event log of rec read back into ev (every member
 * a new object; run_events_free() frees them). */
void run_events_read(const struct run_record *rec, struct run_events *ev);

#endif
