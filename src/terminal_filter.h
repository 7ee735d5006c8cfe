/* What the pty relay (terminal_relay.c) lets through from the command's
 * output to the caller's terminal. A pure, streaming parser: escape
 * sequences may be split across reads at any byte, memory is the fixed
 * struct below whatever the input, and nothing is ever read back from the
 * terminal here.
 *
 * The command owns its screen; the caller's terminal acts on other
 * things too, which outlive the command or reach outside its screen, and
 * those are cut:
 * - OSC (ESC ]): every one but OSC 8 (a hyperlink, drawn in the screen).
 *   OSC 52 sets the clipboard (tmux's buffer: the next paste runs
 *   `curl ... | sh`); OSC 0/1/2 set the window and icon titles, which the
 *   shell's title reports (CSI 21 t) would type back; OSC 4/10-19/104...
 *   change the colours the caller's shell keeps using (foreground =
 *   background hides what is typed next); OSC 7, 9, 133, 633, 777, 1337,
 *   5113... are the terminal's working directory, notifications, shell
 *   integration, file transfers. Kept: OSC 10/11/12 queries ("?" alone),
 *   which programs send to learn a dark or light background, answered
 *   while the command runs.
 * - DCS (ESC P): sixel graphics (final q) and the DECRQSS / XTGETTCAP
 *   queries ($q, +q) pass; everything else is cut: DECUDK (| : function
 *   keys that type a command line), tmux's passthrough (tmux;, which
 *   would carry all of the above past tmux), kitty's remote control.
 * - SOS, PM, APC (ESC X, ESC ^, ESC _): cut (kitty's graphics protocol
 *   has the terminal read a file by its path on the host).
 * - CSI t (XTWINOPS): cut: moves, resizes, iconifies the window, pushes
 *   and reports its title.
 * - ENQ (0x05): cut: the terminal answers with its answerback string.
 * - Queries, whose answer the terminal types as input: DA1/DA2/DA3
 *   (CSI c, >c, =c), DECID (ESC Z), DSR and CPR (CSI n, ?n), DECRQM
 *   (CSI $p), XTVERSION (CSI >q), the kitty keyboard query (CSI ?u),
 *   XTQMODKEYS (CSI ?m), XTSMGRAPHICS (CSI ?S), DECREQTPARM (CSI x), the
 *   DCS and OSC queries above. They pass while the command runs (it
 *   reads their answers; cutting them makes editors and prompts wait for
 *   a timeout), are counted (the relay then waits out their answers at
 *   the end, terminal_relay.c), and are cut once the command is gone
 *   (command_gone): an answer to them could only reach the caller's
 *   shell.
 * 8-bit C1 controls: as the UTF-8 encoding of U+0090..U+009F (C2 xx),
 * which terminals in UTF-8 mode act on; a lone byte 0x9B is a UTF-8
 * continuation byte there, not a CSI, and passes. */
#ifndef SBX_TERMINAL_FILTER_H
#define SBX_TERMINAL_FILTER_H

#include <stdbool.h>
#include <stddef.h>

/* The longest introducer-to-final part of a CSI or DCS that is held to
 * decide on it (xterm keeps 30 parameters); a longer one is cut. */
#define TERMINAL_FILTER_HOLD 256

struct terminal_filter {
    int state;
    bool pass;               /* the string being read is let through */
    bool string_esc;         /* ESC seen inside a string: ST or abort */
    bool string_c2;          /* C2 seen inside a string: U+009C is ST */
    bool osc_query;          /* OSC 10/11/12 whose payload may still be "?" */
    int osc_number;          /* -1: none yet; capped */
    bool command_gone;       /* set by the caller: queries are cut */
    unsigned long queries;   /* queries let through so far */
    unsigned long da1;       /* of them DA1 and DECID, answered ESC [ ? ... c */
    size_t held;
    unsigned char hold[TERMINAL_FILTER_HOLD];
};

void terminal_filter_init(struct terminal_filter *f);

/* Filters n bytes of in into out, which has room for n +
 * TERMINAL_FILTER_HOLD bytes. Returns how many it wrote. */
size_t terminal_filter(struct terminal_filter *f, const unsigned char *in, size_t n,
                       unsigned char *out);

/* Counts the answers to DA1 (ESC [ ? digits and ; c) in what the
 * terminal sends, across calls: the relay counts those the command got,
 * and at the end waits for the rest and one to a DA1 of its own. */
struct terminal_da1_scan {
    int state;
};
unsigned long terminal_da1_answers(struct terminal_da1_scan *s, const unsigned char *in, size_t n);

#endif
