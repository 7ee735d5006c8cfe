/* A test hook for fault injection: hold a process at a named setup step so
 * that a test can kill the supervisor there (tests/integration/fault-*.sh).
 *
 * SBX_TEST_HOLD_AT=TEXT: the first setup step (record_step()) whose name
 * contains TEXT prints "sbx: test hook: holding at 'STEP' (pid N)" on
 * stderr and waits forever (until killed) in whichever process reached it:
 * the supervisor, the sandbox's init or the command before exec. Unset, it
 * costs one getenv() per step. It grants nothing: the caller who can set
 * sbx's environment can stop sbx anyway. */
#ifndef SBX_FAULT_HOOK_H
#define SBX_FAULT_HOOK_H

void fault_hook_step(const char *step);

#endif
