#include "config.h"

#include "fault_hook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void fault_hook_step(const char *step)
{
    const char *hold = getenv("SBX_TEST_HOLD_AT");
    if (!hold || !*hold || !strstr(step, hold))
        return;
    fprintf(stderr, "sbx: test hook: holding at '%s' (pid %d)\n", step, (int)getpid());
    fflush(stderr);
    /* Not SIGSTOP: a PID namespace's init ignores it from inside. pause()
     * returns for a caught signal only; sbx catches none here. */
    for (;;)
        pause();
}
