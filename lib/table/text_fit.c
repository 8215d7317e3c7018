/* text_fit.c — display width and shortening of names for tprof's own views.
 *
 * prof.py's -w counts code points (Python's %-w.ws), and the prof view keeps
 * that (write.c's tp_text_width).  tprof's own views print for a terminal:
 * there an East Asian wide character takes two cells and a combining mark
 * none, so a CJK operator name counted in code points misaligns every column
 * after it.  tp_disp_width counts terminal cells.
 *
 * A name too long for its column is shortened so that what tells it apart
 * survives.  Kernel and operator names are C++ signatures; the part that
 * differs between two kernels is rarely the parameter list and rarely the
 * start ("void at::native::"), so the steps are, each only while the name is
 * still too long: drop the parameter list; fold template arguments to "<…>",
 * the innermost first; cut the middle, keeping the start and the (longer)
 * end:
 *     void at::native::vectorized_elementwise_kernel<4, at::native::…>(int, …)
 *  -> void at::native::vectorized_elementwise_kernel<…>
 *  -> void at::native::…elementwise_kernel<…>
 * Escapes (\xNN) and UTF-8 sequences are never cut. */
#include <stdlib.h>
#include <string.h>
#include "table.h"

static const char ELLIPSIS[] = "\xe2\x80\xa6";   /* U+2026, one cell */

static uint32_t decode(const unsigned char *s, size_t n)
{
    if (n == 1)
        return s[0];
    if (n == 2)
        return (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
    if (n == 3)
        return (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
    return (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 | (uint32_t)(s[2] & 0x3f) << 6 |
           (s[3] & 0x3f);
}

/* Terminal cells of one code point: the East Asian Wide and Fullwidth
 * blocks take 2, combining marks and zero-width characters 0 (the ranges
 * that matter for names; glibc's wcwidth would depend on the locale). */
static size_t cp_cells(uint32_t c)
{
    static const uint32_t zero[][2] = {
        {0x0300, 0x036f}, {0x0483, 0x0489}, {0x0591, 0x05bd}, {0x0610, 0x061a}, {0x064b, 0x065f},
        {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff}, {0x200b, 0x200f}, {0x20d0, 0x20ff}, {0xfe00, 0xfe0f},
        {0xfe20, 0xfe2f}, {0xfeff, 0xfeff},
    };
    static const uint32_t wide[][2] = {
        {0x1100, 0x115f}, {0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff},
        {0xa000, 0xa4cf}, {0xac00, 0xd7a3}, {0xf900, 0xfaff}, {0xfe30, 0xfe4f}, {0xff00, 0xff60},
        {0xffe0, 0xffe6}, {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
    };
    if (c < 0x300)
        return 1;
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
        if (c >= zero[i][0] && c <= zero[i][1])
            return 0;
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
        if (c >= wide[i][0] && c <= wide[i][1])
            return 2;
    return 1;
}

/* One display unit at s: its byte length and its cells (4 per escaped byte). */
static size_t unit(const unsigned char *s, size_t len, size_t *cells)
{
    int esc;
    size_t u = tp_text_unit(s, len, &esc);
    *cells = esc ? 4 * u : cp_cells(decode(s, u));
    return u;
}

size_t tp_disp_width(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] >= 0x20 && s[i] < 0x7f) {
            i++, w++;
            continue;
        }
        size_t c;
        i += unit(s + i, len - i, &c);
        w += c;
    }
    return w;
}

/* s[0..len) without its trailing parameter list "(...)", when it has one
 * that is not the whole name: the new length, else len. */
static size_t drop_params(const char *s, size_t len)
{
    if (len < 2 || s[len - 1] != ')')
        return len;
    int depth = 0;
    for (size_t i = len; i-- > 0;) {
        if (s[i] == ')' || s[i] == '>')
            depth++;
        else if (s[i] == '(' || s[i] == '<')
            depth--;
        if (depth == 0)
            return i > 0 && s[i] == '(' ? i : len;
    }
    return len;
}

/* Is s[i] a template bracket?  "operator<", "operator<<" and "->" are not. */
static int is_open(const char *s, size_t i)
{
    return s[i] == '<' && !(i >= 8 && memcmp(s + i - 8, "operator", 8) == 0) &&
           !(i >= 9 && memcmp(s + i - 9, "operator<", 9) == 0);
}
static int is_close(const char *s, size_t i) { return s[i] == '>' && !(i > 0 && s[i - 1] == '-'); }

/* The deepest template nesting of s, or -1 when its brackets do not
 * balance (then nothing is folded). */
static int template_depth(const char *s, size_t len)
{
    int depth = 0, max = 0;
    for (size_t i = 0; i < len; i++) {
        if (is_open(s, i) && ++depth > max)
            max = depth;
        else if (is_close(s, i) && --depth < 0)
            return -1;
    }
    return depth == 0 ? max : -1;
}

/* Copy s with every template argument list that opens at nesting `level`
 * (1: the outermost) folded to "<…>"; returns the copy's length. */
static size_t fold_templates(const char *s, size_t len, int level, char *out)
{
    int depth = 0;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (is_open(s, i) && ++depth == level) {
            out[n++] = '<';
            memcpy(out + n, ELLIPSIS, 3);
            n += 3;
        } else if (is_close(s, i) && depth-- == level) {
            out[n++] = '>';
        } else if (depth < level) {
            out[n++] = s[i];
        }
    }
    return n;
}

/* Append s cut in the middle to exactly w cells or fewer: start, "…", end;
 * the end gets three fifths of the room (the distinguishing part of a name
 * is more often at its end). */
/* The bytes of the longest start of s that fits in room cells; *cells its width. */
static size_t head_fit(const unsigned char *s, size_t len, size_t room, size_t *cells)
{
    size_t i = 0, w = 0;
    while (i < len) {
        size_t c, u = unit(s + i, len - i, &c);
        if (w + c > room)
            break;
        w += c;
        i += u;
    }
    *cells = w;
    return i;
}

static size_t put_middle(struct tp_sbuf *b, const char *str, size_t len, size_t w, int ascii)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t head, ell = ascii ? 3 : 1;   /* "..." or "…" */
    if (w < ell + 1) {   /* no room for the ellipsis and anything else */
        tp_text_put(b, str, head_fit(s, len, w, &head));
        return head;
    }
    size_t room = w - ell, head_end = head_fit(s, len, room - room * 3 / 5, &head), tail_room;
    /* the tail: the shortest suffix (on unit boundaries) that fits */
    size_t *starts = malloc((len - head_end + 1) * sizeof *starts), *cells = NULL, n = 0;
    if (starts)
        cells = malloc((len - head_end + 1) * sizeof *cells);
    if (!starts || !cells) {
        free(starts);
        b->oom = 1;
        return 0;
    }
    for (size_t j = head_end; j < len;) {
        starts[n] = j;
        j += unit(s + j, len - j, &cells[n]);
        n++;
    }
    size_t tail = 0, k = n;
    tail_room = room - head;   /* what the head left over goes to the tail */
    while (k > 0 && tail + cells[k - 1] <= tail_room)
        tail += cells[--k];
    tp_text_put(b, str, head_end);
    tp_sbuf_put(b, ascii ? "..." : ELLIPSIS, 3);
    if (k < n)
        tp_text_put(b, str + starts[k], len - starts[k]);
    free(starts);
    free(cells);
    return head + ell + tail;
}

size_t tp_disp_put_middle(struct tp_sbuf *b, const char *s, size_t len, size_t w, int ascii)
{
    if (tp_disp_width(s, len) <= w) {
        tp_text_put(b, s, len);
        return tp_disp_width(s, len);
    }
    return put_middle(b, s, len, w, ascii);
}

size_t tp_disp_put_fit(struct tp_sbuf *b, const char *s, size_t len, size_t w, int pad)
{
    size_t have = tp_disp_width(s, len), used;
    if (have <= w) {
        tp_text_put(b, s, len);
        used = have;
    } else {
        size_t n = drop_params(s, len);
        char *folded = malloc(n * 3 + 1);   /* a fold adds at most 3 bytes per '<' */
        if (!folded) {
            b->oom = 1;
            return 0;
        }
        /* fold the deepest template arguments first: what is left says the
         * most that fits (threshold_kernel_impl<…> inside
         * vectorized_elementwise_kernel<…> tells two kernels apart).  A fold
         * that would leave more than half the room empty is not taken: the
         * text before it, cut in the middle, says more. */
        char *prev = malloc(n * 3 + 1);
        if (!prev) {
            free(folded);
            b->oom = 1;
            return 0;
        }
        size_t fn = n, pn = 0;
        memcpy(folded, s, n);
        for (int level = template_depth(s, n); level >= 1 && tp_disp_width(folded, fn) > w; level--) {
            memcpy(prev, folded, fn);
            pn = fn;
            fn = fold_templates(s, n, level, folded);
            if (tp_disp_width(folded, fn) * 2 < w) {
                memcpy(folded, prev, pn);
                fn = pn;
                break;
            }
        }
        free(prev);
        used = tp_disp_width(folded, fn);
        if (used <= w)
            tp_text_put(b, folded, fn);
        else
            used = put_middle(b, folded, fn, w, 0);
        free(folded);
    }
    if (pad && used < w)
        tp_sbuf_pad(b, ' ', w - used);
    return used;
}
