#include "config.h"

#include "terminal_filter.h"

#include <string.h>

enum {
    GROUND,
    ESCAPE,     /* ESC, and intermediates after it */
    C2,         /* 0xC2: maybe the UTF-8 encoding of a C1 control */
    CSI,        /* held until the final byte */
    CSI_CUT,    /* too long to hold: cut up to its final byte */
    OSC_NUMBER, /* the number of an OSC, held */
    DCS,        /* held until the final byte of its head */
    STRING,     /* the body of an OSC, DCS, SOS, PM or APC, up to ST */
};

#define ESC 0x1b
#define CAN 0x18
#define SUB 0x1a
#define BEL 0x07
#define ENQ 0x05

void terminal_filter_init(struct terminal_filter *f)
{
    memset(f, 0, sizeof *f);
    f->state = GROUND;
    f->osc_number = -1;
}

struct sink {
    unsigned char *out;
    size_t len;
};

static void put(struct sink *o, unsigned char c)
{
    o->out[o->len++] = c;
}

static void release(struct terminal_filter *f, struct sink *o)
{
    memcpy(o->out + o->len, f->hold, f->held);
    o->len += f->held;
    f->held = 0;
}

static void hold(struct terminal_filter *f, unsigned char c)
{
    if (f->held < sizeof f->hold)
        f->hold[f->held++] = c;
}

static void start_string(struct terminal_filter *f, bool is_osc, bool pass)
{
    f->state = STRING;
    f->pass = pass;
    f->string_esc = f->string_c2 = false;
    f->osc_query = false;
    if (!is_osc)
        f->osc_number = -1;
}

/* A query passes only while the command can read its answer. */
static bool query_passes(struct terminal_filter *f)
{
    if (f->command_gone)
        return false;
    f->queries++;
    return true;
}

/* The first byte after the introducer of a CSI (hold[0..intro)), and its
 * final byte: keep it or not. */
static bool csi_passes(struct terminal_filter *f, size_t intro, unsigned char final)
{
    unsigned char private = f->held > intro ? f->hold[intro] : 0;
    if (private < '<' || private > '?')
        private = 0;
    bool dollar = false;
    for (size_t i = intro; i < f->held; i++)
        dollar |= f->hold[i] == '$';
    if (final == 't')
        return false;
    bool query = final == 'c' || final == 'n' || final == 'x' || (final == 'p' && dollar) ||
                 (final == 'q' && private == '>') ||
                 ((final == 'u' || final == 'm' || final == 'S') && private == '?');
    if (query && final == 'c' && !private && query_passes(f)) {
        f->da1++;
        return true;
    }
    return !query || query_passes(f);
}

static bool dcs_passes(struct terminal_filter *f, size_t intro, unsigned char final)
{
    if (final != 'q')
        return false;
    bool intermediate = false, query = false;
    for (size_t i = intro; i < f->held; i++) {
        intermediate |= f->hold[i] >= 0x20 && f->hold[i] <= 0x2f;
        query |= f->hold[i] == '$' || f->hold[i] == '+';
    }
    if (query)
        return query_passes(f);
    return !intermediate; /* sixel */
}

/* Both introducers, ESC x and C2 xx, are two bytes. */
#define INTRO 2

static void step(struct terminal_filter *f, struct sink *o, unsigned char c);

/* The string ended with ST (or BEL for an OSC): what it held, if it was
 * an OSC 10/11/12 query, and the terminator. */
static void end_string(struct terminal_filter *f, struct sink *o, const unsigned char *st,
                       size_t stlen)
{
    if (f->osc_query && f->held > 0 && f->hold[f->held - 1] == '?' &&
        f->hold[f->held - 2] == ';' && query_passes(f)) {
        release(f, o);
        memcpy(o->out + o->len, st, stlen);
        o->len += stlen;
    } else if (f->pass) {
        memcpy(o->out + o->len, st, stlen);
        o->len += stlen;
    }
    f->held = 0;
    f->state = GROUND;
}

static void string_byte(struct terminal_filter *f, struct sink *o, unsigned char c)
{
    if (f->string_esc) {
        f->string_esc = false;
        if (c == '\\') {
            end_string(f, o, (const unsigned char *)"\x1b\\", 2);
            return;
        }
        /* ESC ESC in a string that is cut: tmux's passthrough escapes an
         * ESC so; cutting on to ST cuts more than a terminal that ends the
         * string here would act on, never less. In one that passes, the
         * ESC ends it, as the terminal will, and what follows is read
         * anew. */
        if (c == ESC && !f->pass)
            return;
        /* an ESC aborts the string and starts a sequence of its own */
        f->held = 0;
        f->state = GROUND;
        step(f, o, ESC);
        step(f, o, c);
        return;
    }
    if (f->string_c2) {
        f->string_c2 = false;
        if (c == 0x9c) {
            end_string(f, o, (const unsigned char *)"\xc2\x9c", 2);
            return;
        }
        if (c >= 0x80 && c <= 0x9f) {
            /* another C1 control ends the string, as ESC does */
            f->held = 0;
            f->state = GROUND;
            step(f, o, 0xc2);
            step(f, o, c);
            return;
        }
        /* a lone C2 is dropped, as above */
        if (f->pass && c >= 0x80 && c <= 0xbf) {
            put(o, 0xc2);
            put(o, c);
            f->osc_query = false;
            return;
        }
        f->osc_query = false;
    }
    if (c == ESC) {
        f->string_esc = true;
        return;
    }
    if (c == 0xc2) {
        f->string_c2 = true;
        return;
    }
    if (c == BEL && f->osc_number >= 0) {
        end_string(f, o, (const unsigned char *)"\a", 1);
        return;
    }
    if (c == CAN || c == SUB) {
        if (f->pass)
            put(o, c);
        f->held = 0;
        f->state = GROUND;
        return;
    }
    if (f->osc_query) {
        /* the payload of OSC 10/11/12 so far: "?" alone is the query */
        if (f->hold[f->held - 1] == ';' && c == '?')
            hold(f, c);
        else
            f->osc_query = false;
        return;
    }
    if (f->pass && c != ENQ)
        put(o, c);
}

static void step(struct terminal_filter *f, struct sink *o, unsigned char c)
{
    switch (f->state) {
    case GROUND:
        if (c == ESC) {
            f->held = 0;
            hold(f, c);
            f->state = ESCAPE;
        } else if (c == 0xc2) {
            f->held = 0;
            hold(f, c);
            f->state = C2;
        } else if (c != ENQ) {
            put(o, c);
        }
        return;
    case C2:
        f->held = 0;
        if (c == 0x9b || c == 0x9d || c == 0x90) {
            hold(f, 0xc2);
            hold(f, c);
            f->osc_number = -1;
            f->state = c == 0x9b ? CSI : c == 0x9d ? OSC_NUMBER : DCS;
        } else if (c == 0x98 || c == 0x9e || c == 0x9f) {
            start_string(f, false, false);
        } else if (c == 0x9a) {
            /* DECID in 8 bits, answered like DA1 */
            if (query_passes(f)) {
                f->da1++;
                put(o, 0xc2);
                put(o, c);
            }
            f->state = GROUND;
        } else if (c >= 0x80 && c <= 0xbf) {
            put(o, 0xc2);
            put(o, c);
            f->state = GROUND;
        } else {
            /* A lone C2 is invalid UTF-8, shown as a replacement by the
             * terminal: dropped, so that a byte cut after it cannot make
             * it the start of a C1 with the next one (C2 ESC 9D). */
            f->state = GROUND;
            step(f, o, c);
        }
        return;
    case ESCAPE:
        if (c == ESC) {
            /* a new one: the first is abandoned, as the terminal does */
            f->held = 0;
            hold(f, c);
        } else if (c == CAN || c == SUB) {
            put(o, c);
            f->held = 0;
            f->state = GROUND;
        } else if (c == ENQ) {
            /* cut */
        } else if (c < 0x20 || c == 0x7f) {
            put(o, c); /* executed where it stands */
        } else if (c >= 0x80) {
            /* no final byte: dropped, and the byte read anew (C2: maybe a C1) */
            f->held = 0;
            f->state = GROUND;
            step(f, o, c);
        } else if (f->held == 1 && c == '[') {
            hold(f, c);
            f->state = CSI;
        } else if (f->held == 1 && c == ']') {
            hold(f, c);
            f->osc_number = -1;
            f->state = OSC_NUMBER;
        } else if (f->held == 1 && c == 'P') {
            hold(f, c);
            f->state = DCS;
        } else if (f->held == 1 && (c == 'X' || c == '^' || c == '_')) {
            f->held = 0;
            start_string(f, false, false);
        } else if (c >= 0x20 && c <= 0x2f) {
            hold(f, c);
            if (f->held == sizeof f->hold) {
                f->held = 0;
                f->state = GROUND; /* junk: cut */
            }
        } else {
            /* the final byte; ESC Z (DECID) is answered like DA1 */
            bool decid = f->held == 1 && c == 'Z';
            if (!decid || query_passes(f)) {
                f->da1 += decid;
                release(f, o);
                put(o, c);
            }
            f->held = 0;
            f->state = GROUND;
        }
        return;
    case CSI:
    case CSI_CUT:
    case DCS:
        if (c == ESC || c == CAN || c == SUB || c >= 0x80) {
            /* aborted: the held part is dropped, the byte starts anew */
            f->held = 0;
            f->state = GROUND;
            if (c == CAN || c == SUB)
                put(o, c);
            else
                step(f, o, c);
        } else if (c < 0x20 || c == 0x7f) {
            if (c != ENQ)
                put(o, c);
        } else if (c >= 0x40 && c <= 0x7e) {
            if (f->state == CSI) {
                if (csi_passes(f, INTRO, c)) {
                    release(f, o);
                    put(o, c);
                }
                f->held = 0;
                f->state = GROUND;
            } else if (f->state == CSI_CUT) {
                f->held = 0;
                f->state = GROUND;
            } else {
                bool pass = dcs_passes(f, INTRO, c);
                if (pass) {
                    release(f, o);
                    put(o, c);
                }
                f->held = 0;
                start_string(f, false, pass);
            }
        } else if (f->held == sizeof f->hold) {
            if (f->state == CSI) {
                f->held = 0;
                f->state = CSI_CUT;
            } else {
                f->held = 0;
                start_string(f, false, false);
            }
        } else if (f->state != CSI_CUT) {
            hold(f, c);
        }
        return;
    case OSC_NUMBER:
        if (c >= '0' && c <= '9' && f->held < 16) {
            hold(f, c);
            f->osc_number = (f->osc_number < 0 ? 0 : f->osc_number) * 10 + (c - '0');
            if (f->osc_number > 100000)
                f->osc_number = 100000; /* none we keep */
            return;
        }
        if (c == ';') {
            int number = f->osc_number;
            if (f->osc_number < 0)
                f->osc_number = 0; /* an OSC: BEL ends it */
            hold(f, c);
            start_string(f, true, number == 8);
            if (number == 8)
                release(f, o);
            else if (number >= 10 && number <= 12)
                f->osc_query = true;
            else
                f->held = 0;
            return;
        }
        /* not OSC number;...: cut the whole of it */
        f->held = 0;
        if (f->osc_number < 0)
            f->osc_number = 0;
        start_string(f, true, false);
        string_byte(f, o, c);
        return;
    case STRING:
        string_byte(f, o, c);
        return;
    }
}

size_t terminal_filter(struct terminal_filter *f, const unsigned char *in, size_t n,
                       unsigned char *out)
{
    struct sink o = { out, 0 };
    for (size_t i = 0; i < n; i++)
        step(f, &o, in[i]);
    return o.len;
}

unsigned long terminal_da1_answers(struct terminal_da1_scan *s, const unsigned char *in, size_t n)
{
    unsigned long answers = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = in[i];
        if (c == ESC)
            s->state = 1;
        else if (s->state == 1)
            s->state = c == '[' ? 2 : 0;
        else if (s->state == 2)
            s->state = c == '?' ? 3 : 0;
        else if (s->state == 3 && c == 'c') {
            answers++;
            s->state = 0;
        } else if (s->state == 3 && !((c >= '0' && c <= '9') || c == ';'))
            s->state = 0;
    }
    return answers;
}
