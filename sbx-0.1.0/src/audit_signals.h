/* SIGINT, SIGTERM and SIGHUP stop a whole `sbx audit` at once, exit
 * 128+N (sbx(1) AUDIT), whichever run is under way: both the command-level
 * audit (audit_cmd.c) and the test-by-test one (audit_per_test.c) check
 * here before and after every sandbox they start. */
#ifndef SBX_AUDIT_SIGNALS_H
#define SBX_AUDIT_SIGNALS_H

#include "sandbox.h"

#include <stdbool.h>
#include <stdint.h>

/* Installs the handler for those the caller does not ignore. */
void audit_catch_stop_signals(void);
/* The stop signal that came, or 0: noted by the handler, received by a
 * run's supervisor (res, may be NULL), or pending while blocked. */
int audit_stop_requested(const struct sandbox_result *res);
/* sandbox_request.may_start: no stop signal yet. */
bool audit_may_start(void *data);
/* sandbox_request.stop_signals: bit N for each signal caught. */
uint64_t audit_caught_signals(void);

#endif
