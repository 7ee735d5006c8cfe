/* The command's environment per [environment]. Pure: builds a new vector
 * from a base (the caller's environ) without touching the process. */
#ifndef SBX_ENV_H
#define SBX_ENV_H

#include "profile.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

/* A keep/unset word holding '*' or '?' is a pattern (fnmatch(3) rules,
 * case ignored: `*TOKEN*` also matches `npm_config__authToken`); any other
 * word is an exact, case-sensitive name. */
bool env_word_is_pattern(const char *word);
bool env_word_matches(const char *word, const char *name, size_t len);

/* Whether the caller's variable NAME (len bytes, not NUL-terminated) gets
 * into the command: the last keep or unset rule that matches it decides
 * (keep: in, unset: out; on a tie, as in hand-built lists, unset wins);
 * with no match, clear decides (yes: out, no: in). `set` is applied
 * afterwards and is not consulted here. */
bool env_passes(const struct profile *p, const char *name, size_t len);

/* Why value looks like a secret whatever its variable's name ("a URL with
 * a password", "a JWT", "a GitHub token", ...), or NULL. Looks for a URL
 * whose authority holds user:password@, a JWT (three base64url parts, the
 * first a JSON object), a PEM private key, a connection string's
 * Password=/AccountKey=/SharedAccessKey=, and tokens by the prefixes their
 * issuers document (ghp_, github_pat_, glpat-, xoxb-, sk-, sk-ant-, AKIA,
 * hf_, npm_, ...) followed by enough token characters. */
const char *env_value_looks_secret(const char *value);

/* What env_build() did to the caller's environment, for the run record:
 * names only, never a value (the record is evidence attached to CI logs,
 * and values are where secrets live). Each list in the order of base. */
struct env_diff {
    struct strv passed;     /* base's variables the command gets (env_passes();
                             * a `set` of the same name may change the value) */
    struct strv removed;    /* base's entries it does not get (clear, unset, or
                             * not NAME=VALUE), but for names `set` gives again */
    struct strv set_by_sbx; /* beyond the rules: container, SBX_PROFILE */
};

/* Into out (empty on entry): the variables of base that env_passes() (and,
 * with unset_secret_values, whose value env_value_looks_secret() does not
 * flag, unless a keep rule names them: keep wins), then `set` applied (a later set of a name wins), and last container=sbx
 * and SBX_PROFILE=<p->name>, which always hold inside. Dies on a `set`
 * entry without '='. diff (empty on entry, or NULL): what it did. */
void env_build(const struct profile *p, char *const *base, struct strv *out,
               struct env_diff *diff);
void env_diff_free(struct env_diff *diff);

#endif
