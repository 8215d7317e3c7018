/* modtree_table.c — the module views' table: a row per module of the
 * hierarchy, depth first, with its statistics; and the columns of `--tree`,
 * the hierarchy drawn for a terminal.
 *
 * --tree draws what the plugin's flame graph shows: each module under its
 * parent (├─ └─ │), its host and device total, and a bar of its share of its
 * top-level module's device total (host total where that module launched no
 * device work).  For columnated output the columns are sized here for the
 * width the table will be printed in (vo->width, 80 when not given): the bar
 * gets what the longest line leaves, 10 to 40 cells, and names that still do
 * not fit are cut in the middle, never their branch lines, so no line is
 * wider than the width.  Other formats get whole names and 20-cell bars.
 * The numbers are the table's own: --tree only chooses other columns. */
#include <stdlib.h>
#include <string.h>
#include "modtree.h"
#include "tprof.h"
#include "try.h"
#include "coldefs.h"

#define TP_COLS_FILE "modtree_cols.def"
#define TP_COLS_ARRAY tp_modtree_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"
_Static_assert(C_HOOK == TP_MODTREE_NCOLS && C_N == TP_MODTREE_NCOLS_PL,
               "modtree.h counts the columns of modtree_cols.def");

#define MAX_DEPTH 10000

struct emit {
    const struct tp_modtree *T;
    const tp_store *st;           /* --hooks: the calls' events */
    int64_t t0;                   /* --hooks: the trace's first event */
    tp_table *t;
    int pass;                     /* 0: measure, 1: add the rows */
    int ascii, tree;
    unsigned char more[MAX_DEPTH + 1];
    size_t tree_w, num_w[2];      /* pass 0: widest tree text, host and device total */
    size_t deepest;               /* pass 0: the deepest level */
    size_t name_room, bar_w;      /* pass 1: the tree column's width, the bar's */
    int use_dev;                  /* the current top-level module measures device time */
    int64_t root_val;
    struct tp_sbuf b;
};

static const struct tp_modstat *stat_of(const struct emit *E, int64_t ni)
{
    static const struct tp_modstat none;
    const struct tp_modstat *M = tp_modtree_stat(E->T, E->T->n[ni].name, E->T->n[ni].id);
    return M ? M : &none;
}

/* Pass 0: widen the drawing to a row at this depth: its tree text and its
 * two numbers (host and device total; --hooks: start and duration). */
static void measure(struct emit *E, const char *name, size_t depth, int64_t num0, int64_t num1)
{
    size_t cells = 3 * depth + tp_disp_width(name, strlen(name));
    if (cells > E->tree_w) E->tree_w = cells;
    if (depth > E->deepest) E->deepest = depth;
    const int64_t num[2] = {num0, num1};
    for (int k = 0; k < 2; k++) {
        char buf[64];
        size_t w = tp_fmt_us(num[k], buf, sizeof buf);
        if (w > E->num_w[k]) E->num_w[k] = w;
    }
}

/* A name indented two spaces per level (the plugin's table, as text). */
static void set_indented(tp_table *t, size_t col, const char *name, size_t depth)
{
    char ind[2048];
    int pad = depth * 2 < 1000 ? (int)depth * 2 : 1000;
    memset(ind, ' ', (size_t)pad);
    snprintf(ind + pad, sizeof ind - (size_t)pad, "%s", name);
    tp_table_set_str(t, col, ind);
}

/* The text of a tree cell: the branch lines, then the name in what they
 * leave of the column. */
static void branch_text(struct emit *E, const char *name, size_t depth)
{
    E->b.len = 0;
    tp_tree_prefix(&E->b, E->more, depth, E->ascii);
    size_t room = E->name_room > 3 * depth ? E->name_room - 3 * depth : 0;
    tp_disp_put_middle(&E->b, name, strlen(name), room, E->ascii);
}

static void share_bar(struct emit *E, double share)
{
    tp_table_set_float(E->t, C_SHARE, share * 100);
    E->b.len = 0;
    tp_tree_bar(&E->b, share, E->bar_w, E->ascii);
    tp_table_set_strn(E->t, C_BAR, E->b.p ? E->b.p : "", E->b.len);
}

static void row(struct emit *E, int64_t ni, size_t depth)
{
    char name[1024];
    tp_modtree_display_name(E->T->n[ni].name, name, sizeof name);
    const struct tp_modstat *M = stat_of(E, ni);
    if (E->pass == 0) {
        measure(E, name, depth, M->htot, M->dtot);
        return;
    }
    if (depth == 0) {
        E->use_dev = M->dtot > 0;
        E->root_val = E->use_dev ? M->dtot : M->htot;
    }
    tp_table *t = E->t;
    tp_table_add_row(t);
    set_indented(t, C_MOD, name, depth);
    tp_table_set_int(t, C_ID, E->T->n[ni].id);
    tp_table_set_int(t, C_DEPTH, (int64_t)depth);
    tp_table_set_int(t, C_OCC, M->occ);
    tp_table_set_int(t, C_OPS, M->ops);
    tp_table_set_int(t, C_HTOT, M->htot);
    tp_table_set_int(t, C_HSELF, M->hself);
    tp_table_set_int(t, C_DTOT, M->dtot);
    tp_table_set_int(t, C_DSELF, M->dself);
    branch_text(E, name, depth);
    tp_table_set_strn(t, C_TREE, E->b.p ? E->b.p : "", E->b.len);
    share_bar(E, E->root_val > 0 ? (double)(E->use_dev ? M->dtot : M->htot) / (double)E->root_val : 0);
}

/* A Lightning hook call (--hooks): its event's row is the node's id. */
static void hook_row(struct emit *E, int64_t ni, size_t depth)
{
    const tp_store *st = E->st;
    int64_t r = E->T->n[ni].id;
    const char *name = E->T->n[ni].name;
    if (E->pass == 0) {
        measure(E, name, depth, st->ts[r] - E->t0, st->dur[r]);
        return;
    }
    if (depth == 0)
        E->root_val = st->dur[r];
    tp_table *t = E->t;
    tp_table_add_row(t);
    if (E->tree) {
        branch_text(E, name, depth);
        tp_table_set_strn(t, C_HOOK, E->b.p ? E->b.p : "", E->b.len);
    } else {
        set_indented(t, C_HOOK, name, depth);
    }
    tp_table_set_int(t, C_DEPTH, (int64_t)depth);
    tp_table_set_int(t, C_TID, st->tid[r]);
    tp_table_set_int(t, C_START, st->ts[r] - E->t0);
    tp_table_set_int(t, C_DUR, st->dur[r]);
    share_bar(E, E->root_val > 0 ? (double)st->dur[r] / (double)E->root_val : 0);
}

static void walk(struct emit *E, int64_t ni, size_t depth)
{
    if (depth > MAX_DEPTH)
        return;
    if (E->st)
        hook_row(E, ni, depth);
    else
        row(E, ni, depth);
    for (int64_t c = E->T->n[ni].first; c >= 0; c = E->T->n[c].next) {
        if (depth < MAX_DEPTH)
            E->more[depth] = E->T->n[c].next >= 0;
        walk(E, c, depth + 1);
    }
}

/* The tree column's and the bar's widths for a line of W cells holding
 * tree, two numbers (host and device total; start and duration), share and
 * bar, each with the space the writer puts after a column.  Names come before the bar: at a narrow
 * width the tree keeps its deepest branches and 6 cells of name (12 in
 * all at least), the bar what is left, 3 cells at least; a line that still
 * does not fit loses its rightmost columns in the writer (bar first, with a
 * note), never its width. */
static void layout(struct emit *E, int W)
{
    if (W <= 0) {   /* not columnated (CSV, a pipe): whole names, 20-cell bars */
        E->name_room = E->tree_w;
        E->bar_w = 20;
        return;
    }
    size_t h0 = E->st ? 9 : 13, h1 = E->st ? 12 : 15;   /* "Start(us)" "Duration(us)"; "HostTotal(us)" ... */
    size_t hw = E->num_w[0] > h0 ? E->num_w[0] : h0;
    size_t dw = E->num_w[1] > h1 ? E->num_w[1] : h1;
    long rest = (long)W - (long)(hw + 1) - (long)(dw + 1) - 9;   /* "Share(%) " */
    long natural = (long)E->tree_w, least = 3 * (long)E->deepest + 6;
    if (least < 12) least = 12;
    if (least > natural) least = natural;
    long bar = rest - natural - 2;
    if (bar > 40) bar = 40;
    if (bar < 10) bar = 10;
    long tree = rest - bar - 2;
    if (tree < least) {
        tree = least;
        bar = rest - tree - 2 < 3 ? 3 : rest - tree - 2;
    }
    E->name_room = (size_t)(tree < natural ? tree : natural);
    E->bar_w = (size_t)bar;
}

static tp_table *emit_table(const struct tp_modtree *T, const tp_store *st, const struct tp_view_opts *vo,
                            size_t ncols)
{
    tp_table *t = tp_table_new(tp_modtree_cols, ncols);
    struct emit *E = calloc(1, sizeof *E);
    if (!t || !E) {
        free(E);
        if (t) tp_table_free(t);
        return NULL;
    }
    E->T = T;
    E->t = t;
    E->st = st;
    E->ascii = vo && vo->ascii;
    E->tree = vo && vo->tree;
    for (size_t i = 0, seen = 0; st && i < st->n; i++)
        if (st->ph[i] == 'X' && (!seen++ || st->ts[i] < E->t0))
            E->t0 = st->ts[i];
    for (E->pass = 0; E->pass < 2; E->pass++) {
        if (E->pass == 1)
            layout(E, vo && vo->columnated ? (vo->width > 0 ? vo->width : 80) : 0);
        for (size_t r = 0; r < T->nroots; r++)
            walk(E, T->roots[r], 0);
    }
    int oom = E->b.oom;
    tp_sbuf_free(&E->b);
    free(E);
    if (oom || tp_table_nomem(t)) {
        tp_table_free(t);
        return NULL;
    }
    return t;
}

tp_table *tp_modtree_table(const struct tp_modtree *T, const struct tp_view_opts *vo, size_t ncols)
{
    return emit_table(T, NULL, vo, ncols);
}

tp_table *tp_modtree_hooks_table(const struct tp_modtree *T, const tp_store *st, const struct tp_view_opts *vo)
{
    return emit_table(T, st, vo, TP_MODTREE_NCOLS_PL);
}

int tp_modtree_finish(struct tp_modtree *T, const struct tp_view_opts *vo, size_t ncols, tp_table **out,
                      tp_error *err)
{
    tp_table *t = tp_modtree_table(T, vo, ncols);
    tp_modtree_free(T);
    TP_TRY_NOMEM(t, err);
    *out = t;
    return TP_OK;
}

const char *tp_modtree_columns_for(const struct tp_view_opts *vo)
{
    if (vo && vo->hooks)
        return vo->tree ? TP_MODTREE_HOOK_TREE_COLUMNS : TP_MODTREE_HOOK_COLUMNS;
    return vo && vo->tree ? TP_MODTREE_TREE_COLUMNS : NULL;
}
