/* sbx audit's stop signals (audit_signals.h). */
#include "config.h"

#include "audit_signals.h"

#include "log.h"

#include <signal.h>
#include <string.h>

/* SIGINT, SIGTERM and SIGHUP stop the whole audit (sbx(1) AUDIT). While a
 * sandbox runs they are blocked and its supervisor reads them (forwarding
 * them to the command, as `sbx run` does); in between, this handler notes
 * them, so that the next run is never started and --report is still
 * written. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t stop_signal;
static uint64_t caught;  /* bit N: signal N is one of ours (not ignored by the caller) */

static void note_stop_signal(int sig)
{
    if (!stop_signal)
        stop_signal = sig;
}

void audit_catch_stop_signals(void)
{
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++) {
        struct sigaction old, sa = { .sa_handler = note_stop_signal, .sa_flags = SA_RESTART };
        sigemptyset(&sa.sa_mask);
        /* Ignored by the caller (nohup, a background job of a script):
         * the audit ignores it too, and the command inherits SIG_IGN. */
        if (sigaction(stop_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        if (sigaction(stop_signals[i], &sa, NULL) < 0)
            die_errno("sigaction(%s) for sbx audit", strsignal(stop_signals[i]));
        caught |= UINT64_C(1) << stop_signals[i];
    }
}

/* The stop signal that came, or 0: noted by the handler, received by a
 * run's supervisor (res), or pending while blocked. */
int audit_stop_requested(const struct sandbox_result *res)
{
    if (stop_signal)
        return stop_signal;
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++) {
        int sig = stop_signals[i];
        uint64_t bit = UINT64_C(1) << sig;
        if ((caught & bit) && ((res && (res->signals_received & bit)) || sigismember(&pending, sig)))
            return sig;
    }
    return 0;
}

/* sandbox_request.may_start: asked with the signals blocked, just before clone(). */
bool audit_may_start(void *data)
{
    (void)data;
    return audit_stop_requested(NULL) == 0;
}

uint64_t audit_caught_signals(void)
{
    return caught;
}
