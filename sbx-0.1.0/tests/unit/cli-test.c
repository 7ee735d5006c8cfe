/* Unit tests of `sbx run` / `sbx audit` option parsing (cli_parse_run). */
#include "config.h"

#include "../tap.h"
#include "cli.h"
#include "log.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The parsed result points into argv, so argv must outlive each check:
 * it lives in static storage, not in a compound literal of the call. */
static char *argv_store[64];

static enum cli_result parse(enum cli_mode mode, struct run_cli *out, char *err, size_t errlen, ...)
{
    va_list ap;
    int argc = 0;
    va_start(ap, errlen);
    for (char *a; (a = va_arg(ap, char *)) && argc < 63;)
        argv_store[argc++] = a;
    va_end(ap);
    argv_store[argc] = NULL;
    return cli_parse_run(argc, argv_store, mode, out, err, errlen);
}
#define PARSE(mode, out, ...) parse(mode, out, err, sizeof err, __VA_ARGS__, (char *)NULL)

int main(void)
{
    struct run_cli c;
    char err[512];

    is_int(PARSE(CLI_MODE_RUN, &c, "run", "-p", "qa", "--", "cargo", "test"), CLI_OK, "plain run parses");
    is_str(c.profile, "qa", "-p sets the profile");
    is_int(c.ncommand, 2, "command after --");
    is_str(c.command[0], "cargo", "command argv[0]");
    is_str(c.command[2], NULL, "command NULL-terminated");
    run_cli_free(&c);

    is_int(PARSE(CLI_MODE_RUN, &c, "run", "--rw", "/a", "--nofile", "max", "--timeout", "5s", "--network", "none",
                 "--setenv", "A=1", "--unsetenv", "B", "--ro", "/b", "--tmpfs", "/c", "--hide", "/d", "--strict",
                 "--report", "r.json", "-C", "/x", "-v", "ls", "-l"),
           CLI_OK, "every run option parses");
    is_int(c.noverrides, 9, "nine profile overrides, in order");
    if (c.noverrides == 9) {
        is_str(c.overrides[0].key, "rw", "first override is --rw");
        is_str(c.overrides[1].section, "limits", "--nofile goes to [limits]");
        is_str(c.overrides[2].key, "timeout", "--timeout is [limits] timeout");
        is_str(c.overrides[3].key, "mode", "--network is [network] mode");
        is_str(c.overrides[4].value, "A=1", "--setenv value");
        is_str(c.overrides[8].label, "--hide", "--hide label");
    }
    ok(c.strict, "--strict");
    is_str(c.report, "r.json", "--report");
    is_str(c.chdir, "/x", "-C");
    is_int(c.verbosity, LOG_VERBOSE, "-v");
    is_str(c.command[0], "ls", "first non-option starts the command");
    is_str(c.command[1], "-l", "options after the command belong to it");
    run_cli_free(&c);

    is_int(PARSE(CLI_MODE_RUN, &c, "run", "-q", "true"), CLI_OK, "-q parses");
    is_int(c.verbosity, LOG_QUIET, "-q is quiet");
    run_cli_free(&c);

    is_int(PARSE(CLI_MODE_RUN, &c, "run"), CLI_USAGE, "no command is a usage error");
    like_str(err, "no command given", "no command: message");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "--"), CLI_USAGE, "only -- is a usage error");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "--bogus", "true"), CLI_USAGE, "unknown long option");
    like_str(err, "unknown option '--bogus'", "unknown long option: named");
    run_cli_free(&c);
    is_str(err, "unknown option '--bogus'", "nothing near --bogus: no hint");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "--profle", "qa", "true"), CLI_USAGE, "a mistyped option");
    is_str(err, "unknown option '--profle' (did you mean '--profile'?)",
           "a mistyped option: the message is kept, the nearest option appended");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "--nofle=max", "true"), CLI_USAGE, "a mistyped --opt=value");
    is_str(err, "unknown option '--nofle=max' (did you mean '--nofile'?)",
           "a mistyped --opt=value: the name before '=' is matched");
    run_cli_free(&c);
    size_t d;
    ok(near_word("qaa", "qa", &d) && d == 1, "near_word: qaa is 1 edit from qa");
    ok(!near_word("qa", "default", &d), "near_word: qa is not near default");
    ok(!near_word("ab", "xy", &d) && d == 2, "near_word: 2 edits of a 2-letter word is no match");
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "--x", "true"), CLI_USAGE, "a one-letter long option");
    is_str(err, "unknown option '--x'", "one letter is no basis for a hint (distance < length)");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "-Z", "true"), CLI_USAGE, "unknown short option");
    like_str(err, "unknown option '-Z'", "unknown short option: named");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "--nofile"), CLI_USAGE, "missing argument");
    like_str(err, "option '--nofile' needs an argument", "missing argument: named");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "-p"), CLI_USAGE, "missing -p argument");
    like_str(err, "option '-p' needs an argument", "missing -p argument: named");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "--against", "x", "true"), CLI_USAGE, "--against is audit-only");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "--help"), CLI_HELP, "--help");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", ""), CLI_USAGE, "empty command string");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "--report", "", "true"), CLI_USAGE, "empty --report");
    run_cli_free(&c);

    is_int(PARSE(CLI_MODE_AUDIT, &c, "audit", "--against", "restrictive", "-p", "qa", "--", "make", "test"),
           CLI_OK, "audit parses");
    is_str(c.against, "restrictive", "--against");
    is_str(c.command[0], "make", "audit command");
    ok(!c.against_timeout_set, "no --against-timeout: the default bound");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_AUDIT, &c, "audit", "--against-timeout", "90s", "true"), CLI_OK,
           "--against-timeout 90s");
    ok(c.against_timeout_set && c.against_timeout_ms == 90000, "--against-timeout 90s: 90000 ms");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_AUDIT, &c, "audit", "--against-timeout", "0", "true"), CLI_OK,
           "--against-timeout 0");
    ok(c.against_timeout_set && c.against_timeout_ms == 0, "--against-timeout 0: set, no bound");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_AUDIT, &c, "audit", "--against-timeout", "none", "true"), CLI_OK,
           "--against-timeout none");
    ok(c.against_timeout_set && c.against_timeout_ms == 0, "--against-timeout none: as 0");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_AUDIT, &c, "audit", "--against-timeout", "366d", "true"), CLI_USAGE,
           "--against-timeout 366d: more than a year");
    like_str(err, "--against-timeout: '366d' is not valid", "and says so");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_AUDIT, &c, "audit", "--against-timeout", "-5s", "true"), CLI_USAGE,
           "--against-timeout -5s");
    run_cli_free(&c);
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "--against-timeout", "5s", "true"), CLI_USAGE,
           "--against-timeout is audit-only");
    like_str(err, "--against-timeout belongs to 'sbx audit', not 'sbx run'", "and says so");
    run_cli_free(&c);
    /* parsing twice in one process works (getopt state is reset) */
    is_int(PARSE(CLI_MODE_RUN, &c, "run", "-p", "a", "x"), CLI_OK, "second parse in one process");
    is_str(c.profile, "a", "second parse reads its own arguments");
    run_cli_free(&c);
    /* The static build's password database: /etc/passwd read without
     * NSS. Lines it cannot parse are skipped, not fatal. */
    char path[] = "/tmp/sbx-cli-test-passwd.XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        bail_out("cannot create a scratch passwd file in /tmp");
    fputs("root:x:0:0:root:/root:/bin/bash\n"
          "garbage without colons\n"
          "::::::\n"
          "bad:x:notanumber:0::/nowhere:/bin/sh\n"
          "\n"
          "dev:x:1000:1000:Dev,,,:/home/dev:/bin/bash\n"
          "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n", f);
    fclose(f);
    struct passwd *pw = passwd_file_entry(path, 1000);
    ok(pw != NULL, "passwd_file_entry finds uid 1000 after lines it cannot parse");
    is_str(pw ? pw->pw_name : NULL, "dev", "its name");
    is_str(pw ? pw->pw_dir : NULL, "/home/dev", "its home");
    pw = passwd_file_entry(path, 0);
    is_str(pw ? pw->pw_name : NULL, "root", "the first line's entry");
    pw = passwd_file_entry(path, 65534);
    is_str(pw ? pw->pw_dir : NULL, "/nonexistent", "the last line's entry");
    ok(passwd_file_entry(path, 54321) == NULL, "a uid without an entry gives NULL");
    unlink(path);
    ok(passwd_file_entry(path, 0) == NULL, "a missing file gives NULL, not a crash");

    return done_testing();
}
