/* Environment variables that name directories the command reads from
 * (PATH, PYTHONPATH, NODE_PATH, GOPATH, ...), checked against the mount
 * plan (issue 34): a PYTHONPATH under /tmp, which the sandbox replaces
 * with a private tmpfs, silently made a first qa run import nothing from
 * it. Pure: no system call; unit-tested (tests/unit/env-paths-test.c). */
#ifndef SBX_ENV_PATHS_H
#define SBX_ENV_PATHS_H

#include "mount-plan.h"
#include "util.h"

#include <stddef.h>

/* For each NAME=VALUE of env[0..n) whose NAME is one of those variables,
 * each absolute directory of VALUE (':'-separated) that a tmpfs or a hide
 * rule of plan covers (the rule's own path included: it is empty inside)
 * adds one line to out ("PYTHONPATH names /tmp/lib, which the sandbox
 * replaces with an empty tmpfs (tmpfs /tmp, at FILE:LINE): ..."). Returns
 * how many it added. */
size_t env_paths_hidden(char *const *env, size_t n, const struct mount_plan *plan, struct strv *out);

#endif
