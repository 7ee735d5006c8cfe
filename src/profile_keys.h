/* Inside the profile engine: the key table and what its rows point to.
 *
 * Only the profile_*.c files include this; the rest of sbx sees
 * profile.h. The modules:
 *   profile_keys.c    the table: one row per key
 *   profile_ini.c     INI bytes (through inih) into KEY = VALUE entries
 *   profile_values.c  what a value means: each row's parse function
 *   profile.c         files, includes, the order entries apply in, checks
 *                     across keys, the public API
 *   profile_print.c   `sbx profile show`: each row's print function
 *   profile_json.c    the run record's profile: each row's JSON function */
#ifndef SBX_PROFILE_KEYS_H
#define SBX_PROFILE_KEYS_H

#include "profile.h"

#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct json_object;

/* One load (or one command-line option): where errors go, what variables
 * expand to, the chain of files being read. */
struct loader {
    struct profile *p;
    const struct profile_search *search;
    const struct profile_vars *vars;
    struct profile_errors *errs;
    size_t nerrors;           /* including those not stored */
    /* the chain of files being read, for cycle detection and messages */
    const char *chain[PROFILE_MAX_INCLUDE_DEPTH + 2];
    int depth;
    /* canonical paths already applied: a file included twice through
     * different paths (a diamond) is applied once, the first time */
    struct strv loaded;
};

/* "FILE:LINE: message" into L->errs (at NULL or at->file NULL: no prefix). */
void add_error(struct loader *L, const struct origin *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* " (did you mean 'X'?)" when a candidate is close to word, else "". */
void suggest(const char *word, const char *const *candidates, char *out, size_t len);

/* What a row's parse function is handed: one KEY = VALUE, with the key's
 * '-' prefix and '?' suffix already taken off and checked against the
 * row's flags. */
struct key_input {
    struct loader *L;
    struct profile *p;
    const struct origin *at;
    char *value;       /* variables expanded; the parser may change it */
    bool remove;       /* "-key = ...": drop inherited entries */
    bool optional;     /* "key? = ...": a missing path is skipped */
    const char *raw;   /* the value as written (NULL: the same as value) */
};

struct key_def;

/* Stores the value in the profile, or reports an error and returns false.
 * Scalars need not record their origin: the caller does (p->at[key]). */
typedef bool key_parse_fn(struct key_input *in, const struct key_def *d);
/* Writes the key's lines for `sbx profile show` (print_line). */
typedef void key_print_fn(const struct profile *p, const struct key_def *d, FILE *out);
/* The key's value in the run record's profile (NULL is JSON null). */
typedef struct json_object *key_json_fn(const struct profile *p, const struct key_def *d);

enum key_flags {
    KEY_LIST = 1 << 0,      /* may repeat; "-key" drops inherited entries */
    KEY_OPTIONAL = 1 << 1,  /* takes the '?' suffix */
    KEY_SET = 1 << 2,       /* a scalar holding a set: "-key" is refused with "set it again" */
    KEY_PATH = 1 << 3,      /* a path: relative on the command line = relative to the caller */
};

struct key_def {
    const char *section;
    const char *name;
    enum profile_key key;   /* p->at[key]: where a scalar was set */
    unsigned flags;         /* enum key_flags */
    size_t field;           /* offsetof(struct profile, ...) of the value */
    int aux;                /* fs kind, limit kind */
    const char *const *choices; /* enums: the values, NULL-terminated, index = stored value */
    const char *dflt;       /* built-in default as profile text; NULL: zero */
    key_parse_fn *parse;
    key_print_fn *print;    /* NULL: printed by another row */
    const char *json_in;    /* object of the record's profile it goes in; NULL: top level */
    const char *json_name;  /* NULL: not in the record's profile (the row says why) */
    key_json_fn *json;
};

/* The value a row stores, at d->field in the profile. */
#define KEY_FIELD(p, d, type) ((type *)(void *)((char *)(p) + (d)->field))
#define KEY_CFIELD(p, d, type) ((const type *)(const void *)((const char *)(p) + (d)->field))

extern const struct key_def profile_keys[];
extern const size_t profile_nkeys;
/* Section names in table order, NULL-terminated. */
extern const char *const profile_sections[];

const struct key_def *profile_key_find(const char *section, const char *name);
bool profile_section_known(const char *name);

/* profile_values.c */
void str_list_free(struct str_list *l);
char *expand_vars(struct loader *L, const struct origin *at, const char *in, const char *profile_dir);
bool profile_apply_entry(struct loader *L, const char *section, const char *rawkey,
                         const char *rawvalue, const struct origin *at, const char *profile_dir);
key_parse_fn parse_string, parse_hostname, parse_include, parse_bool, parse_enum, parse_id,
    parse_limit_count, parse_limit_size, parse_limit_seconds, parse_timeout, parse_fs_rule,
    parse_paths, parse_env_names, parse_assign, parse_ports, parse_caps, parse_deny,
    parse_allow;

/* profile_print.c */
key_print_fn print_string, print_bool, print_enum, print_id, print_limit, print_limit_seconds,
    print_timeout, print_fs_rules, print_strings, print_env_rules, print_ports, print_caps,
    print_deny;

/* profile_json.c */
key_json_fn json_of_string, json_of_files, json_of_bool, json_of_enum, json_of_id, json_of_limit,
    json_of_timeout, json_of_fs_rules, json_of_strings, json_of_ports, json_of_deny;

#endif
