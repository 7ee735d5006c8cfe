/* The run record as a document: one pure function from what was asked
 * (the profile and command as the CLI recorded them), what the acting
 * modules returned (env_build()'s diff, and what init and the command's
 * setup reported through the event log: the id maps written, the limits
 * as getrlimit() saw them, the mounts, the steps), and what sandbox_run()
 * returned (the ledger, how the command ended) to the JSON of
 * docs/run-record.md, with its verdict. No clock, no file, no process:
 * unit tests build the inputs by hand. */
#ifndef SBX_REPORT_DOCUMENT_H
#define SBX_REPORT_DOCUMENT_H

#include "env.h"
#include "sandbox.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* What processes of the run reported, each as the document shows it (the
 * event log replayed, or built by a test). Arrays and objects are never
 * NULL except nproc_enforcement (not reported). */
struct run_events {
    struct json_object *steps;        /* [{pid, t_us, step}] */
    struct json_object *uid_map;      /* [{inside, outside, count}]: written by init */
    struct json_object *gid_map;
    struct json_object *limits_applied; /* {name: {soft, hard}}: getrlimit() before exec */
    struct json_object *nproc_enforcement;
    struct json_object *network_state;  /* {key: value} */
    struct json_object *mounts;       /* [{pid, t_us, kind, source, target, note}] */
    struct json_object *env_by_sbx;   /* [{pid, t_us, action, name}] */
    struct json_object *failures;     /* [{pid, t_us, message}] */
    size_t bad_lines;                 /* lines that did not parse */
    bool truncated;                   /* the log overflowed */
};

void run_events_init(struct run_events *ev);   /* every member empty */
void run_events_free(struct run_events *ev);

struct run_facts {
    const char *label;                /* `sbx audit`'s name of the run, or NULL */
    struct timespec start_real;       /* when sbx started */
    long long elapsed_us;             /* sbx's own clock since then: the duration
                                       * when sandbox_run() did not return one */
    /* asked (record_profile, record_command); NULL: not known */
    struct json_object *profile;
    struct json_object *env_rules;    /* {clear, set, unset_rules, keep_rules} */
    struct json_object *command;      /* {argv, cwd} */
    /* done */
    const struct env_diff *env;       /* env_build()'s diff; NULL: never built */
    const struct run_events *events;
};

/* The document (a new object; the inputs are not changed). res: NULL when
 * sbx failed before sandbox_run() returned; exit_status: what sbx exits
 * with. */
struct json_object *run_document(const struct run_facts *f, const struct sandbox_result *res,
                                 int exit_status);

#endif
