/* What the runner families (src/runner_*.c) share, and the operations each
 * implements (docs/hacking.md, "Adding a test runner"). Not for the rest
 * of sbx: the audit sees runner.h only. Pure, like the families. */
#ifndef SBX_RUNNER_IMPL_H
#define SBX_RUNNER_IMPL_H

#include "runner.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct runner_parser;

/* One runner's operations. argv is the user's command line as typed;
 * `at` is what anchor() returned for it. */
struct runner_ops {
    /* Recognise: where the runner's own arguments start (the index of
     * "test" in cargo test, of the -m token in python -m pytest, 0 where
     * the program itself is the runner), -1 when argv is not this
     * runner's; why filled (one line) when the program is the runner's
     * but the command is not a test run (cargo build). */
    int (*anchor)(char *const argv[], char *why, size_t why_size);
    /* Add the reporting it needs: out gets the command sbx runs instead
     * (the user's arguments in their order, what the runner needs added,
     * or removed where an argument only hides the per-test lines), notes
     * one entry per change, saying why. False with err filled when the
     * command cannot report per test as given. */
    bool (*command)(char *const argv[], int at, struct strv *out, struct strv *notes, char *err,
                    size_t err_size);
    /* Parse one line of the output (NUL-terminated, colours and CRs
     * removed; p->line_exact says whether its bytes are the output's). */
    void (*line)(struct runner_parser *p, char *line);
    /* The output ended (optional): results a runner gives only at its end. */
    void (*finish)(struct runner_parser *p);
    /* A run of exactly tests[0..n) (n >= 1), as the user would type it
     * (command() is applied after); false when the runner cannot select
     * that set in one run (n == 1 must work wherever a re-run can). */
    bool (*rerun)(char *const argv[], int at, const struct runner_test *const tests[], size_t n,
                  struct strv *out);
    /* The run that starts as t's re-run would and selects no test
     * (optional: NULL where the runner cannot select nothing). */
    bool (*baseline)(char *const argv[], int at, const struct runner_test *t, struct strv *out);
    /* Add sbx's result reporter (optional, runner_report.h): out is what
     * command() made; true when out now carries the reporter, notes saying
     * what was added; false where none can be added (out unchanged, a
     * note saying why the output is read instead). */
    bool (*add_reporter)(struct strv *out, struct strv *notes);
    /* Whether argv carries the reporter already (a re-run's command, made
     * by runner_command() once). */
    bool (*carries_reporter)(char *const argv[]);
    /* The greeting written to the channel (runner_report_greeting()). */
    char *(*greeting)(const char *key, size_t *len);
    /* Instead of a greeting (runner_report_keyed()): argv, a command
     * add_reporter() made, with key in place; its workers write to the
     * channel themselves (runner_parser_expect_clock()). */
    char **(*keyed)(char *const argv[], const char *key);
    /* The line fed so far is unterminated (optional): the id of the
     * test it announces, allocated, or NULL. unittest writes "name (id)
     * ... " and flushes before the test runs; the line ends only with
     * its result, so a test that hangs is named by this alone (sbx
     * audit's bound per test, issue 34). Read-only: the line is parsed
     * as usual once it ends. */
    char *(*partial)(struct runner_parser *p, const char *line, size_t len);
    /* The longest line it reads (0: RUNNER_MAX_LINE): jest writes its
     * whole report on one line. */
    size_t max_line;
    /* Per-runner parser state (optional): made with the parser, freed with it. */
    void *(*state_new)(void);
    void (*state_free)(void *state);
};

/* The families' runners (src/runner_FAMILY.c), listed in runner.c. */
extern const struct runner runner_cargo, runner_unittest, runner_pytest, runner_regrtest, runner_go,
    runner_node, runner_jest, runner_vitest, runner_mocha, runner_prove, runner_automake, runner_tap,
    runner_ctest;

/* The runner of that kind (for a stand-in struct runner without ops, as
 * a test may make one). */
const struct runner *runner_of_kind(enum runner_kind kind);

/* The script `name` of ./package.json (runner_npm.c: the runners' one
 * read of a file), or NULL with why filled. */
char *runner_npm_script(const char *name, char *why, size_t why_size);
/* The interpreter of `program` (found in PATH), from its #! line, when
 * that names one whose name starts with `interp` ("python", "node")
 * plainly ("#!/usr/bin/python3", "#!/usr/bin/env node"), *script set to the program's path (both owned, both only of
 * the characters [A-Za-z0-9/._+-]); NULL with why filled otherwise. */
char *runner_program_interpreter(const char *program, const char *interp, char **script, char *why,
                                 size_t why_size);
/* What `program flag` prints first (node --version: "v20.20.2"), program
 * found in PATH; false when it cannot be run, fails or says nothing
 * within a few seconds (runner_npm.c). */
bool runner_program_version(const char *program, const char *flag, char *out, size_t out_size);

/* ---- the parser: shared state and the table of tests (runner_parse.c) ---- */

#define TAP_MAX_DEPTH 64

struct runner_entry {
    bool running;     /* started and not finished */
    bool has_result;
    size_t package;   /* go: index into its packages, else SIZE_MAX */
};

struct runner_table {
    size_t *slots;    /* index + 1; 0 is empty */
    size_t nslots;
};

struct runner_parser {
    const struct runner *r;
    char *line;
    size_t len, cap;
    bool overlong;
    bool finished;
    bool truncated;
    bool killed;           /* finish(): the run was stopped */
    uint64_t fed;          /* bytes fed so far: the position in the output */
    uint64_t line_end;     /* the position after the line being parsed */
    uint64_t line_start;   /* and of its first byte */
    uint64_t next_line_start; /* where the line being fed began */
    bool line_exact;       /* its bytes are those of the output, none cut
                            * or cleaned: offsets in it are positions */
    size_t max_line;       /* RUNNER_MAX_LINE, or a family's own bound */

    struct runner_counts counts; /* the runner's own summaries */
    struct runner_test *tests;
    struct runner_entry *entries;
    size_t n, cap_tests;
    struct runner_table by_key;

    /* shared by several families */
    char *unit;            /* cargo: the target; prove: the script */
    size_t pending;        /* cargo, unittest: the test whose result is awaited */
    size_t last_announced; /* the test announced last (announced_at); SIZE_MAX: none */
    bool announces_serially; /* the output announces each test, flushed, before it runs
                              * (go test -v streamed): runner_parser_placeable() */
    char *announcing;      /* the id an unterminated last line announces (ops->partial) */

    /* TAP (runner_tap.c), which node --test, mocha and vitest print too */
    char *tap_stack[TAP_MAX_DEPTH];
    size_t tap_count;      /* top-level results of the current script */
    long long tap_plan;    /* -1 until a plan at the start */
    bool tap_done;         /* prove: the script's TAP has ended */
    size_t last_result;    /* the result its YAML block follows */
    size_t yaml_indent;    /* inside a YAML block ("---" to "...") at this indent */

    void *state;           /* the family's own (runner_ops.state_new) */

    /* with a reporter (runner_parser_expect_report, runner_report.c) */
    struct report_state *report;
    struct runner_span *suite_spans; /* runner_parser_suite_spans() */
    struct runner_inherited *inherited; /* runner_parser_inherited() */
    size_t ninherited, cap_inherited;
    struct runner_worker_run *worker_runs;    /* runner_parser_worker_runs() */
    size_t nworker_runs, cap_worker_runs;
    struct runner_worker_span *worker_spans;  /* runner_parser_worker_spans() */
    size_t nworker_spans, cap_worker_spans;
    int controller_pid;                       /* runner_parser_controller(); 0: none */
    size_t nsuite_spans, cap_suite_spans;
    struct runner_parser *fallback; /* the output's parser, for the fallback */
};

/* runner_report.c: the channel's part of runner_parser_finish() and _free(). */
/* true when the reporter never spoke and the output's results were put
 * in its place (the finish is then done) */
bool report_finish(struct runner_parser *p, bool killed);
void report_free(struct runner_parser *p);
/* the workers' runs (runner_parser_expect_clock) looked up in the table,
 * once the output has ended */
void report_resolve(struct runner_parser *p);

uint64_t runner_hash(uint64_t h, const char *s);
void runner_table_grow(struct runner_table *t, size_t count, uint64_t (*hash_of)(void *, size_t), void *ctx);
/* The test (unit, id), added when new; SIZE_MAX when the table is full. */
size_t find_test(struct runner_parser *p, const char *unit, const char *id, bool add);
size_t test_started(struct runner_parser *p, const char *unit, const char *id);
/* The table's index rebuilt after tests[0..n) was changed in place. */
void tests_reindex(struct runner_parser *p);
void result_at(struct runner_parser *p, size_t i, enum test_status s);
/* Test i's start was announced by the bytes of the current line up to
 * `end` (a pointer into it): where they end, exactly, or nothing. */
void announced_at(struct runner_parser *p, size_t i, const char *line, const char *end);
size_t test_result(struct runner_parser *p, const char *unit, const char *id, enum test_status s);
/* Row i's kind, parent (copied) and duration; a parent of nothing yet
 * recorded is left alone. */
void test_kind(struct runner_parser *p, size_t i, enum runner_test_kind kind);
void test_parent(struct runner_parser *p, size_t i, const char *parent);
void test_duration(struct runner_parser *p, size_t i, uint64_t us);
/* A summary line of the runner: adds to its own counts. */
void runner_count(struct runner_parser *p, uint64_t passed, uint64_t failed, uint64_t skipped, uint64_t other);

/* N of "N word" in a summary line ("3 passed; 1 failed"), 0 without;
 * *seen set when it is there. */
uint64_t runner_count_of(const char *line, const char *word, bool *seen);

/* TAP lines, for the families that print TAP (runner_tap.c). */
void tap_line(struct runner_parser *p, char *line);
void tap_script_end(struct runner_parser *p);
bool tap_result(char *s, size_t count, enum test_status *st, char **name);
/* JSON strings and values (runner_go.c), for the families reading JSON. */
char *json_string(const char **s);
bool json_skip(const char **s);
/* "12.5" seconds (or milliseconds with scale 1000) to microseconds; 0 when malformed. */
uint64_t runner_decimal_us(const char *s, uint64_t per_unit_us);

/* ---- small string helpers over one line ---- */

static inline bool starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

static inline char *skip_spaces(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static inline void trim_right(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
}

static inline bool ends(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && !memcmp(s + len - n, suffix, n);
}

static inline bool ends_with(const char *s, const char *suffix)
{
    return ends(s, strlen(s), suffix);
}

/* The last occurrence of needle in s, or NULL. */
static inline char *rfind(char *s, const char *needle)
{
    char *last = NULL;
    for (char *at = strstr(s, needle); at; at = strstr(at + 1, needle))
        last = at;
    return last;
}

/* ---- building command lines (runner.c) ---- */

const char *base_name(const char *path);
size_t argv_len(char *const argv[]);
void push(struct strv *sv, const char *s);
void push_range(struct strv *sv, char *const argv[], int from, int to);
/* The index of the first "--" at or after `from`, or the length of argv. */
int end_of_options(char *const argv[], int from);
bool has_arg(char *const argv[], int from, int to, const char *a);
bool has_prefix_arg(char *const argv[], int from, int to, const char *prefix);
void note_add(struct strv *notes, const char *what);
bool refuse(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Splits s on `sep` into sv. */
void push_split(struct strv *sv, const char *s, const char *sep);
/* A regular expression matching exactly s (Go's regexp, JavaScript's
 * RegExp and POSIX ERE read the same escapes for these). */
char *regex_exact(const char *s);
/* "^(a|b|c)$": any of the strings, exactly. */
char *regex_any(const char *const s[], size_t n);
/* Whether a is one of list (NULL-terminated): options taking a value. */
bool takes_value(const char *const list[], const char *a);

#endif
