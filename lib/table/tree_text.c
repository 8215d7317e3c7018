/* tree_text.c — a tree's branch prefixes and proportional bars, as text for
 * a terminal (the module views' --tree).  Box-drawing characters, or ASCII
 * where the terminal cannot show them (--ascii, a locale that is not UTF-8). */
#include <math.h>
#include "table.h"

void tp_tree_prefix(struct tp_sbuf *b, const unsigned char *more, size_t depth, int ascii)
{
    for (size_t k = 0; k + 1 < depth; k++) {
        if (more[k])
            tp_sbuf_put(b, ascii ? "|  " : "\xe2\x94\x82  ", ascii ? 3 : 5);   /* │ */
        else
            tp_sbuf_put(b, "   ", 3);
    }
    if (depth == 0)
        return;
    if (ascii)
        tp_sbuf_put(b, more[depth - 1] ? "|- " : "`- ", 3);
    else   /* ├─ or └─ */
        tp_sbuf_put(b, more[depth - 1] ? "\xe2\x94\x9c\xe2\x94\x80 " : "\xe2\x94\x94\xe2\x94\x80 ", 7);
}

void tp_tree_bar(struct tp_sbuf *b, double frac, size_t w, int ascii)
{
    if (!(frac > 0))   /* NaN too */
        return;
    if (frac > 1)
        frac = 1;
    if (ascii) {
        tp_sbuf_pad(b, '#', (size_t)llround(frac * (double)w));
        return;
    }
    /* U+2588 FULL BLOCK, then U+2589..U+258F: seven eighths .. one eighth */
    size_t eighths = (size_t)llround(frac * (double)w * 8);
    for (size_t i = 0; i < eighths / 8; i++)
        tp_sbuf_put(b, "\xe2\x96\x88", 3);
    if (eighths % 8) {
        char part[3] = {'\xe2', '\x96', (char)(0x88 + (8 - eighths % 8))};
        tp_sbuf_put(b, part, 3);
    }
}
