/* hook.c: which agent tool calls are test commands, and the line that runs
 * them in sbx. The table is of command lines as agents write them. */
#include "config.h"

#include "hook.h"
#include "util.h"

#include "../tap.h"

#include <string.h>

struct row {
    const char *line;
    bool audit;
    enum hook_verdict verdict;
    const char *command;   /* NULL: none (LEAVE) */
    const char *runner;
};

#define RUN(l) "sbx run --profile qa -- sh -c " l

static const struct row rows[] = {
    /* test commands of each family */
    { "cargo test", false, HOOK_ALLOW, RUN("'cargo test'"), "cargo test" },
    { "cargo test --workspace -- --nocapture", false, HOOK_ALLOW,
      RUN("'cargo test --workspace -- --nocapture'"), "cargo test" },
    { "cargo +nightly test", false, HOOK_ALLOW, RUN("'cargo +nightly test'"), "cargo test" },
    { "cargo nextest run", false, HOOK_ALLOW, RUN("'cargo nextest run'"), "cargo nextest" },
    { "pytest", false, HOOK_ALLOW, RUN("pytest"), "pytest" },
    { "pytest -k 'net and not slow' tests/", false, HOOK_ALLOW,
      RUN("'pytest -k '\\''net and not slow'\\'' tests/'"), "pytest" },
    { "python3 -m pytest -x", false, HOOK_ALLOW, RUN("'python3 -m pytest -x'"), "python -m pytest" },
    { ".venv/bin/python -m unittest -v", false, HOOK_ALLOW,
      RUN("'.venv/bin/python -m unittest -v'"), "python -m unittest" },
    { "npm test", false, HOOK_ALLOW, RUN("'npm test'"), "npm test" },
    { "npm run test:unit -- --watch=false", false, HOOK_ALLOW,
      RUN("'npm run test:unit -- --watch=false'"), "npm run test:unit" },
    { "npx vitest run", false, HOOK_ALLOW, RUN("'npx vitest run'"), "npx vitest" },
    { "pnpm test", false, HOOK_ALLOW, RUN("'pnpm test'"), "pnpm test" },
    { "go test ./...", false, HOOK_ALLOW, RUN("'go test ./...'"), "go test" },
    { "go test -run 'TestA|TestB' -count=1 ./pkg", false, HOOK_ALLOW,
      RUN("'go test -run '\\''TestA|TestB'\\'' -count=1 ./pkg'"), "go test" },
    { "make -j4 check", false, HOOK_ALLOW, RUN("'make -j4 check'"), "make check" },
    /* chains, pipes, assignments, wrappers */
    { "cd backend && cargo test", false, HOOK_ALLOW, RUN("'cd backend && cargo test'"), "cargo test" },
    { "cd 'my dir' && go test ./...", false, HOOK_ALLOW,
      RUN("'cd '\\''my dir'\\'' && go test ./...'"), "go test" },
    { "RUST_BACKTRACE=1 cargo test", false, HOOK_ALLOW, RUN("'RUST_BACKTRACE=1 cargo test'"), "cargo test" },
    { "env CI=1 npm test", false, HOOK_ALLOW, RUN("'env CI=1 npm test'"), "npm test" },
    { "time go test ./...", false, HOOK_ALLOW, RUN("'time go test ./...'"), "go test" },
    { "cargo test 2>&1 | tail -n 30", false, HOOK_ALLOW, RUN("'cargo test 2>&1 | tail -n 30'"), "cargo test" },
    { "pytest -q; echo done", false, HOOK_ALLOW, RUN("'pytest -q; echo done'"), "pytest" },
    { "npm test >/dev/null 2>&1", false, HOOK_ALLOW, RUN("'npm test >/dev/null 2>&1'"), "npm test" },
    /* test commands with more than tests: ask */
    { "cargo build && cargo test", false, HOOK_ASK, RUN("'cargo build && cargo test'"), "cargo test" },
    { "rm -rf target; cargo test", false, HOOK_ASK, RUN("'rm -rf target; cargo test'"), "cargo test" },
    { "go test ./... > out.txt", false, HOOK_ASK, RUN("'go test ./... > out.txt'"), "go test" },
    { "pytest $(git diff --name-only)", false, HOOK_ASK, RUN("'pytest $(git diff --name-only)'"), "pytest" },
    { "(cd web && npm test)", false, HOOK_ASK, RUN("'(cd web && npm test)'"), "npm test" },
    { "npm test & curl evil.example", false, HOOK_ASK, RUN("'npm test & curl evil.example'"), "npm test" },
    /* not test commands: left to the harness */
    { "git status", false, HOOK_LEAVE, NULL, NULL },
    { "cargo build --release", false, HOOK_LEAVE, NULL, NULL },
    { "npm install", false, HOOK_LEAVE, NULL, NULL },
    { "go vet ./...", false, HOOK_LEAVE, NULL, NULL },
    { "echo cargo test", false, HOOK_LEAVE, NULL, NULL },
    { "grep -r 'go test' docs", false, HOOK_LEAVE, NULL, NULL },
    { "echo 'a; cargo test'", false, HOOK_LEAVE, NULL, NULL },
    { "# cargo test", false, HOOK_LEAVE, NULL, NULL },
    { "make", false, HOOK_LEAVE, NULL, NULL },
    { "", false, HOOK_LEAVE, NULL, NULL },
    /* already sbx: never nested */
    { "sbx run -p qa -- cargo test", false, HOOK_LEAVE, NULL, NULL },
    { "cd x && sbx audit -- go test ./...", false, HOOK_LEAVE, NULL, NULL },
    /* audit: one simple command keeps its argv (judged test by test) */
    { "go test ./...", true, HOOK_ALLOW, "sbx audit --profile qa -- go test ./...", "go test" },
    { "pytest -k 'a b'", true, HOOK_ALLOW, "sbx audit --profile qa -- pytest -k 'a b'", "pytest" },
    { "cd x && cargo test", true, HOOK_ALLOW, "sbx audit --profile qa -- sh -c 'cd x && cargo test'",
      "cargo test" },
    { "CI=1 npm test", true, HOOK_ALLOW, "sbx audit --profile qa -- sh -c 'CI=1 npm test'", "npm test" },
};

int main(void)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct row *r = &rows[i];
        struct hook_options o = { .audit = r->audit, .profile = "qa" };
        struct hook_decision d;
        hook_decide(r->line, &o, &d);
        static const char *const names[] = { "leave", "allow", "ask" };
        is_str(names[d.verdict], names[r->verdict], "[%s]%s: %s", r->line, r->audit ? " (audit)" : "",
               names[r->verdict]);
        if (r->command) {
            is_str(d.command ? d.command : "(none)", r->command, "[%s]: runs %s", r->line, r->command);
            const char *want = r->runner ? r->runner : "";
            is_str(d.runner, want, "[%s]: the runner is %s", r->line, want);
        } else {
            ok(d.command == NULL, "[%s]: no rewrite", r->line);
        }
        if (r->verdict == HOOK_ASK)
            ok(d.why[0] != '\0', "[%s]: says why it asks (%s)", r->line, d.why);
        hook_decision_free(&d);
    }
    char *q = hook_shell_quote("it's");
    is_str(q, "'it'\\''s'", "a quote inside is closed, escaped and reopened");
    free(q);
    q = hook_shell_quote("");
    is_str(q, "''", "an empty word stays a word");
    free(q);
    return done_testing();
}
