/* tree_text_test.c — unit tests of the tree drawing (tree_text.c) and of
 * names cut in the middle (tp_disp_put_middle, text_fit.c). */
#include <stdlib.h>
#include <string.h>
#include "table.h"
#include "testing.h"

/* b's text as a C string (b keeps growing; the caller frees it) */
static const char *text(struct tp_sbuf *b)
{
    tp_sbuf_putc(b, '\0');
    b->len--;
    return b->p ? b->p : "";
}

static void prefix(const char *name, const unsigned char *more, size_t depth, int ascii, const char *want)
{
    struct tp_sbuf b = {0};
    tp_tree_prefix(&b, more, depth, ascii);
    CHECK_STR(name, text(&b), want);
    tp_sbuf_free(&b);
}

static void bar(const char *name, double frac, size_t w, int ascii, const char *want)
{
    struct tp_sbuf b = {0};
    tp_tree_bar(&b, frac, w, ascii);
    CHECK_STR(name, text(&b), want);
    tp_sbuf_free(&b);
}

static void middle(const char *name, const char *s, size_t w, int ascii, const char *want)
{
    struct tp_sbuf b = {0};
    size_t used = tp_disp_put_middle(&b, s, strlen(s), w, ascii);
    CHECK_STR(name, text(&b), want);
    CHECK(name, used <= w && used == tp_disp_width(b.p ? b.p : "", b.len));
    tp_sbuf_free(&b);
}

int main(void)
{
    const unsigned char none[4] = {0, 0, 0, 0}, mid[4] = {1, 0, 1, 0}, all[4] = {1, 1, 1, 1};
    prefix("tree.prefix.root", all, 0, 0, "");
    prefix("tree.prefix.first_child", all, 1, 0, "├─ ");
    prefix("tree.prefix.last_child", none, 1, 0, "└─ ");
    /* ancestors at depth 1 (more) and 2 (last), the node itself with a later sibling */
    prefix("tree.prefix.depth3", mid, 3, 0, "│     ├─ ");
    prefix("tree.prefix.depth4_last", mid, 4, 0, "│     │  └─ ");
    prefix("tree.prefix.ascii", mid, 3, 1, "|     |- ");
    prefix("tree.prefix.ascii_last", none, 2, 1, "   `- ");

    bar("tree.bar.zero", 0, 10, 0, "");
    bar("tree.bar.nan", 0.0 / 0.0, 10, 0, "");
    bar("tree.bar.full", 1, 4, 0, "████");
    bar("tree.bar.over", 2.5, 3, 0, "███");
    bar("tree.bar.half_eighths", 0.5625, 2, 0, "█▏");      /* 9/8 cells */
    bar("tree.bar.seven_eighths", 0.875, 1, 0, "▉");
    bar("tree.bar.one_eighth", 0.125, 1, 0, "▏");
    bar("tree.bar.ascii", 0.5, 10, 1, "#####");
    bar("tree.bar.ascii_round", 0.26, 10, 1, "###");
    bar("tree.bar.ascii_full", 1, 6, 1, "######");

    middle("middle.fits", "Linear_0", 8, 0, "Linear_0");
    middle("middle.utf8", "Owlv2VisionTransformer_0", 12, 0, "Owlv2…rmer_0");
    middle("middle.ascii", "Owlv2VisionTransformer_0", 12, 1, "Owlv...mer_0");
    middle("middle.ascii_tiny", "Owlv2VisionTransformer_0", 3, 1, "Owl");
    middle("middle.utf8_tiny", "Owlv2VisionTransformer_0", 1, 0, "O");
    middle("middle.keeps_params", "f(int, int)", 8, 0, "f(i…int)");
    TEST_EXIT();
}
