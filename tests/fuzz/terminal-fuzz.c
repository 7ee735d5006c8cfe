/* libFuzzer target: the pty relay's output filter (terminal_filter.c),
 * which reads what the command writes. The first byte picks the size of
 * the pieces the input is fed in (escape sequences split across reads),
 * the second whether the command is gone. Checked on every piece: the
 * output fits the bound the relay allocates, and whatever came in,
 * nothing the filter cuts comes out: no OSC but 8 and the colour
 * queries, no ENQ. */
#include "../../src/terminal_filter.c"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An OSC that starts at out[i] (after ESC ] or C2 9D): OSC 8, or OSC
 * 10/11/12 with "?" alone. */
static void check_osc(const unsigned char *out, size_t n, size_t i)
{
    long number = 0;
    size_t digits = 0;
    while (i < n && out[i] >= '0' && out[i] <= '9' && digits < 20) {
        number = number * 10 + (out[i++] - '0');
        digits++;
    }
    if (i >= n)
        return; /* cut short by the end of the input */
    if (!digits || out[i] != ';')
        abort();
    if (number == 8)
        return;
    if (number < 10 || number > 12 || i + 2 >= n || out[i + 1] != '?')
        abort();
    if (out[i + 2] != 0x07 && out[i + 2] != ESC && out[i + 2] != 0xc2)
        abort();
}

static void check_output(const unsigned char *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (out[i] == ENQ)
            abort();
        if (i + 1 < n && ((out[i] == ESC && out[i + 1] == ']') || (out[i] == 0xc2 && out[i + 1] == 0x9d)))
            check_osc(out, n, i + 2);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t piece = data[0] ? data[0] : 1;
    struct terminal_filter f;
    terminal_filter_init(&f);
    f.command_gone = data[1] & 1;
    data += 2;
    size -= 2;
    unsigned char *out = malloc(piece + TERMINAL_FILTER_HOLD);
    /* the whole output, to check sequences split across pieces */
    unsigned char *all = malloc(size + TERMINAL_FILTER_HOLD * (size / piece + 1));
    size_t total = 0;
    for (size_t at = 0; at < size; at += piece) {
        size_t take = size - at < piece ? size - at : piece;
        size_t n = terminal_filter(&f, data + at, take, out);
        if (n > take + TERMINAL_FILTER_HOLD)
            abort();
        memcpy(all + total, out, n);
        total += n;
    }
    check_output(all, total);
    free(all);
    free(out);
    return 0;
}
