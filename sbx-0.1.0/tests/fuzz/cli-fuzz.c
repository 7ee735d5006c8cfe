/* libFuzzer target: `sbx run` / `sbx audit` arguments. The input is split
 * on NUL bytes into argv; the first byte picks run or audit. */
#include "config.h"

#include "cli.h"
#include "profile.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 4096)
        return 0;
    enum cli_mode mode = (data[0] & 1) ? CLI_MODE_AUDIT : CLI_MODE_RUN;
    char *buf = malloc(size + 1);
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    char *argv[256];
    int argc = 0;
    argv[argc++] = mode == CLI_MODE_AUDIT ? "audit" : "run";
    for (size_t i = 0; i < size - 1 && argc < 255;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    struct run_cli c;
    char err[512];
    if (cli_parse_run(argc, argv, mode, &c, err, sizeof err) == CLI_OK) {
        /* every override must be accepted or refused cleanly by the profile */
        struct profile p;
        struct profile_errors errs = {0};
        static const struct profile_vars vars = {.home = "/h", .cwd = "/w", .user = "u", .uid = "1", .gid = "1"};
        profile_init_defaults(&p);
        for (size_t i = 0; i < c.noverrides; i++)
            profile_apply_option(&p, c.overrides[i].section, c.overrides[i].key, c.overrides[i].value,
                                 c.overrides[i].label, &vars, &errs);
        profile_errors_free(&errs);
        profile_free(&p);
    }
    run_cli_free(&c);
    free(buf);
    return 0;
}
