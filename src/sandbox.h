/* Creating and running one sandbox: the entry point of `sbx run` (and of
 * each of `sbx audit`'s two runs). Owned by sandbox.c: it has plan.c build
 * the plan, clones init (init.c, then command.c) and supervises
 * (supervise.c); the steps live in ns.c, net.c, mount.c, rlimits.c,
 * caps.c, seccomp.c, cgroup.c, outbound.c. docs/hacking.md has the flow. */
#ifndef SBX_SANDBOX_H
#define SBX_SANDBOX_H

#include "profile.h"

#include <stdbool.h>
#include <stdint.h>

struct ledger;

/* sbx(1) TIERS: how the sandbox was made (tier.h). */
enum sandbox_tier { TIER_NAMESPACES, TIER_LANDLOCK };

struct sandbox_request {
    const struct profile *profile;
    char *const *argv;      /* the command; argv[0] looked up in PATH inside */
    const char *cwd;        /* absolute; where the command starts */
    const char *label;      /* NULL, or a run's name in `sbx audit` output */
    /* 0: the profile's [limits] timeout; else this one instead (`sbx
     * audit`'s bound on its --against run, never longer than the
     * profile's). */
    uint64_t timeout_ms;
    /* NULL, or asked with the forwarded signals blocked, just before
     * clone(): false and nothing starts (res->not_started). `sbx audit`
     * says no once SIGINT/SIGTERM/SIGHUP came: a signal that arrived while
     * the plan was being built would otherwise wait in the queue and only
     * reach the next command. */
    bool (*may_start)(void *data);
    void *may_start_data;
    /* Bit N: signal N stops the caller (`sbx audit`: SIGINT, SIGTERM,
     * SIGHUP). The command gets it as any forwarded signal; if it has not
     * exited SUPERVISE_GRACE_MS later, the sandbox is killed. */
    uint64_t stop_signals;
    /* NULL, or where the command's output is (capture_position()), read
     * for each denial (ledger_set_output_position()). */
    uint64_t (*output_position)(void *data);
    void *output_position_data;
    /* each denial also records its caller's and its parent's command
     * lines (ledger_set_record_argv()): `sbx audit` of prove, make check */
    bool caller_argv;
    /* > 2: a descriptor of the caller's that the command gets, at number
     * report_fd_at, inheritable (`sbx audit`'s result channel, capture.h:
     * the runner's reporter writes each test's records there, where the
     * command's output cannot reach). init never keeps it past the
     * command's start; every other descriptor above 2 is closed as ever.
     * 0: none. */
    int report_fd;
    int report_fd_at;
    /* NULL, or asked at least every SUPERVISE_STOP_AT_POLL_MS while the
     * command runs, with how many calls the sandbox has denied so far: a
     * CLOCK_MONOTONIC time in ms past which the command is stopped as at
     * its timeout (0: none now). `sbx audit`: the test running has had
     * its own bound, within a run of many (issue 34). */
    uint64_t (*stop_at)(void *data, uint64_t denied);
    void *stop_at_data;
    /* `sbx run`: the command gets a pty of the sandbox's own, relayed,
     * when standard input is a terminal (terminal.h; sbx(1) TERMINAL). */
    bool terminal;
};

struct sandbox_result {
    int exit_status;        /* sbx(1) EXIT STATUS: code, 128+N, 124, 125, 126, 127 */
    int wait_status;        /* the command's raw status, when it ran */
    int term_signal;        /* the signal that ended the command, or 0 */
    bool timed_out;
    bool command_ran;       /* false: setup failed or exec failed */
    bool not_started;       /* req->may_start said no: nothing was created */
    uint64_t timeout_ms;    /* the timeout that applied; 0: none */
    /* Bit N: sbx received signal N while the sandbox ran (supervise.h);
     * it went to the command as forwarded signals do. */
    uint64_t signals_received;
    uint64_t duration_us;   /* from the start of setup to the end */
    struct ledger *ledger;  /* denials; NULL when no deny rule applied */
    struct egress *egress;  /* [network] allow's proxy and its refusals; NULL: none */

    /* What was set up, filled as it happens (the run record has the
     * details, from the modules that acted: docs/run-record.md). */
    bool ns_created[NS_COUNT];  /* clone() made it; false for net under mode = host */
    uint32_t uid_inside, uid_outside, gid_inside, gid_outside; /* the id map's one line */
    bool loopback_up;           /* the supervisor brought lo up in the sandbox's netns */
    enum sandbox_tier tier;     /* the tier that ran */
    int landlock_abi;           /* the Landlock tier: the kernel's ABI version */
    char userns_refusal[768];   /* the Landlock tier: why the user namespace could not be had */
};

/* Runs req->argv in a new sandbox and waits for it. Setup failures exit
 * the process with 125 after a one-line diagnosis (die()). */
int sandbox_run(const struct sandbox_request *req, struct sandbox_result *res);
void sandbox_result_free(struct sandbox_result *res);

#endif
