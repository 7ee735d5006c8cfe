/* Unit test of the pty relay's output filter (terminal_filter.c): what
 * the command's output may make the caller's terminal do. Each sequence
 * is checked whole and split at every byte (the relay reads in chunks),
 * and a hostile stream keeps the struct's fixed memory. */
#include "config.h"

#include "../tap.h"

#include "terminal_filter.h"

#include <stdlib.h>
#include <string.h>

/* The filter's output for in, fed in pieces of `piece` bytes (0: whole). */
static char *run(const char *in, size_t len, size_t piece, bool gone, unsigned long *queries)
{
    struct terminal_filter f;
    terminal_filter_init(&f);
    f.command_gone = gone;
    char *out = malloc(len + TERMINAL_FILTER_HOLD + 1);
    /* the bound the relay allocates: the piece, and what was held */
    unsigned char *buf = malloc((piece ? piece : len) + TERMINAL_FILTER_HOLD);
    size_t n = 0;
    for (size_t at = 0; at < len;) {
        size_t take = piece && len - at > piece ? piece : len - at;
        size_t got = terminal_filter(&f, (const unsigned char *)in + at, take, buf);
        memcpy(out + n, buf, got);
        n += got;
        at += take;
    }
    free(buf);
    out[n] = '\0';
    if (queries)
        *queries = f.queries;
    return out;
}

static int checks;

/* filters to want whole and split at every size; false on a mismatch */
static void check(const char *in, const char *want, bool gone, const char *what)
{
    size_t len = strlen(in);
    bool same = true;
    char *first = NULL;
    for (size_t piece = 0; piece <= len && same; piece++) {
        char *got = run(in, len, piece, gone, NULL);
        if (strcmp(got, want)) {
            same = false;
            first = got;
            diag("split every %zu bytes", piece);
        } else {
            free(got);
        }
        checks++;
    }
    ok(same, "%s", what);
    if (!same) {
        diag("got  '%s'", first);
        diag("want '%s'", want);
    }
    free(first);
}

#define BIG (1 << 20)

/* BIG bytes of fill between head and tail, filtered in 4 KiB pieces */
static char *hostile(char fill, const char *head, const char *tail)
{
    char *junk = malloc(BIG + 1);
    memset(junk, fill, BIG);
    memcpy(junk, head, strlen(head));
    memcpy(junk + BIG - strlen(tail), tail, strlen(tail));
    junk[BIG] = '\0';
    char *got = run(junk, BIG, 4096, false, NULL);
    free(junk);
    return got;
}

#define ESC "\x1b"
#define ST ESC "\\"

int main(void)
{
    plan(41);
    check("hello\r\nworld", "hello\r\nworld", false, "plain text and CR LF pass");
    check("gr\xc3\xbc\xc3\x9f \xc4\x9b \xe2\x94\x80", "gr\xc3\xbc\xc3\x9f \xc4\x9b \xe2\x94\x80", false,
          "UTF-8 passes, 0x9B as a continuation byte (U+011B) included");
    check(ESC "[1;31mred" ESC "[0m", ESC "[1;31mred" ESC "[0m", false, "SGR colours pass");
    check(ESC "[2J" ESC "[H" ESC "[?1049h" ESC "[10;20r", ESC "[2J" ESC "[H" ESC "[?1049h" ESC "[10;20r",
          false, "screen control (clear, home, alternate screen, scroll region) passes");
    check(ESC "(B" ESC "7" ESC "8" ESC "M", ESC "(B" ESC "7" ESC "8" ESC "M", false,
          "ESC sequences (charset, save/restore cursor, reverse index) pass");
    check("a" ESC "]52;c;Y3VybCBodHRwOi8vZXZpbC90ZXN0IHwgc2g=\a" "b", "ab", false,
          "OSC 52 (clipboard) with BEL is cut, the text around it kept");
    check("a" ESC "]52;c;Y3VybA==" ST "b", "ab", false, "OSC 52 with ST is cut");
    check("a\xc2\x9d" "52;c;Y3VybA==\xc2\x9c" "b", "ab", false, "OSC 52 as UTF-8 C1 (U+009D ... U+009C) is cut");
    check(ESC "]0;owned\a" ESC "]1;icon" ST ESC "]2;title\a" "x", "x", false, "OSC 0, 1, 2 (titles) are cut");
    check(ESC "]11;rgb:0000/0000/0000\a" ESC "]4;1;red\a" ESC "]7;file:///etc\a" ESC "]1337;File=x\a" "x", "x",
          false, "colour setting, OSC 7, iTerm2's 1337 are cut");
    check(ESC "]8;;http://example.test/\a" "link" ESC "]8;;\a", ESC "]8;;http://example.test/\a" "link" ESC "]8;;\a",
          false, "OSC 8 (hyperlink) passes");
    check(ESC "]11;?\a", ESC "]11;?\a", false, "OSC 11 query passes while the command runs");
    check(ESC "]10;?" ST, ESC "]10;?" ST, false, "OSC 10 query with ST passes while the command runs");
    check(ESC "]11;?\a" "x", "x", true, "... and is cut once the command is gone");
    check(ESC "]11;??\a" ESC "]11;?;?\a" "x", "x", false, "an OSC 11 that is not the bare query is cut");
    check(ESC "[c" ESC "[>c" ESC "[6n" ESC "[?6n" ESC "[>q" ESC "[?u" ESC "Z",
          ESC "[c" ESC "[>c" ESC "[6n" ESC "[?6n" ESC "[>q" ESC "[?u" ESC "Z", false,
          "DA1, DA2, CPR, DECXCPR, XTVERSION, kitty's query, DECID pass while the command runs");
    check(ESC "[c" ESC "[0c" ESC "[>c" ESC "[5n" ESC "[6n" ESC "[?2004$p" ESC "[>q" ESC "[?u" ESC "Z" ESC "[x"
          "x", "x", true, "... and are all cut once the command is gone");
    check(ESC "[21t" ESC "[8;100;100t" ESC "[2t" ESC "[22;0t" "x", "x", false,
          "CSI t (title report, resize, iconify, title stack) is cut");
    check("a\x05" "b", "ab", false, "ENQ (answerback) is cut");
    check(ESC "P0;1|17/6563686f206f776e65640a" ST "x", "x", false, "DECUDK (function keys) is cut");
    check(ESC "Ptmux;" ESC ESC "]52;c;eA==\a" ST "x", "x", false, "tmux passthrough is cut");
    check(ESC "P@kitty-cmd{}" ST "x", "x", false, "kitty remote control is cut");
    check(ESC "Pq#0;2;0;0;0~-" ST, ESC "Pq#0;2;0;0;0~-" ST, false, "sixel passes");
    check(ESC "P$qm" ST ESC "P+q544e" ST, ESC "P$qm" ST ESC "P+q544e" ST, false,
          "DECRQSS and XTGETTCAP pass while the command runs");
    check(ESC "P$qm" ST "x", "x", true, "... and are cut once it is gone");
    check(ESC "_Gf=100,t=f;L2V0Yy9wYXNzd2Q=" ST ESC "^pm" ST ESC "Xsos" ST "x", "x", false,
          "APC (kitty graphics reading a host file), PM and SOS are cut");
    check(ESC "]52;c;eA==" ESC "[1mB", ESC "[1mB", false, "an ESC aborts an OSC and starts the next sequence");
    check(ESC "]52;c;eA==\x18" "B", "B", false, "CAN aborts an OSC");
    check(ESC "]8;;x" ESC ESC "]52;c;eA==\a" "B", ESC "]8;;x" "B", false,
          "ESC ESC ends an OSC 8 that passes: the OSC 52 after it is cut");
    check(ESC "[1\x18" "B", "\x18" "B", false, "CAN aborts a CSI");
    check(ESC "[1\n2m", "\n" ESC "[12m", false, "a C0 control inside a CSI is executed where it stands");
    check(ESC ESC "[1m", ESC "[1m", false, "ESC ESC: the first is abandoned");
    check("\xc2" ESC "\x9d" "0;t\a" "x", "\x9d" "0;t\a" "x", false,
          "a lone C2 is dropped: a cut ESC cannot join C2 and 9D into an OSC");

    /* the count of queries, which tells the relay to wait out answers */
    unsigned long q;
    free(run(ESC "[c" ESC "]11;?\a" ESC "[1m", 13, 0, false, &q));
    is_int((int)q, 2, "two queries counted, SGR not");
    struct terminal_filter f;
    terminal_filter_init(&f);
    unsigned char out[64 + TERMINAL_FILTER_HOLD];
    terminal_filter(&f, (const unsigned char *)ESC "[c" ESC "[>c" ESC "Z" ESC "[0c", 13, out);
    is_int((int)f.da1, 3, "DA1, DECID and DA1 with 0 counted as DA1, DA2 not");
    struct terminal_da1_scan scan = { 0 };
    const char *answers = "ab" ESC "[?62;22c" ESC "[>1;2c" ESC "[?1;2" "c" ESC "[?x";
    unsigned long n = 0;
    for (size_t i = 0; i < strlen(answers); i++)
        n += terminal_da1_answers(&scan, (const unsigned char *)answers + i, 1);
    is_int((int)n, 2, "two DA1 answers found byte by byte, the DA2 one not");

    /* a hostile stream: long sequences are cut, memory stays the struct's */
    char *got = hostile(';', ESC "[", "tZ");
    is_str(got, "Z", "a 1 MiB CSI is cut (its final t too), the text after kept");
    free(got);
    got = hostile(';', ESC "]", "\aZ");
    is_str(got, "Z", "a 1 MiB OSC is cut");
    free(got);
    got = hostile('1', ESC "]", ";\aZ");
    is_str(got, "Z", "an OSC with a 1 MiB number is cut");
    free(got);
    got = hostile('x', ESC "]8;;", "\aZ");
    ok(strlen(got) == BIG, "a 1 MiB OSC 8 streams through whole");
    free(got);
    ok(checks > 0, "(%d filter runs)", checks);
    return done_testing();
}
