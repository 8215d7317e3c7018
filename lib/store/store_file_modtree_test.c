/* store_file_modtree_test.c — the Module view's tree and numbers a .tprof
 * store holds (store_file_modtree.c): read back, they equal what the trace
 * gives, and `modules` on the store (read lazily) prints the trace's bytes
 * without inflating a column; a tree of another version, absent (a store
 * written before), damaged or not fitting the store is not used: the view
 * computes it from the columns it then asks for, and prints the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "modtree.h"
#include "store_file_int.h"
#include "testing.h"
#include "store_testing.h"
#include "views.h"

#define TRACE "testdata/lightning_stack.pt.trace.json"   /* nested modules, one called twice */

/* The edits: arg is {byte offset, value} (an int64 written there), or for
 * copy_rec {from, to, record size}. */
static void set_i64(unsigned char *b, size_t *lenp, void *arg)
{
    const int64_t *a = arg;
    size_t len = *lenp;
    if ((size_t)a[0] + 8 <= len)
        memcpy(b + a[0], &a[1], 8);
}
static void set_u32(unsigned char *b, size_t *lenp, void *arg)
{
    const int64_t *a = arg;
    size_t len = *lenp;
    uint32_t v = (uint32_t)a[1];
    if ((size_t)a[0] + 4 <= len)
        memcpy(b + a[0], &v, 4);
}
static void copy_rec(unsigned char *b, size_t *lenp, void *arg)
{
    const int64_t *a = arg;
    size_t len = *lenp;
    if ((size_t)((a[0] > a[1] ? a[0] : a[1]) + 1) * (size_t)a[2] <= len)
        memcpy(b + a[1] * a[2], b + a[0] * a[2], (size_t)a[2]);
}

/* The modules table, plain or as a tree, written as text. */
static char *table_text(const tp_store *st, int tree)
{
    struct tp_view_opts vo = {0};
    vo.tree = tree;
    return tt_view_text(&tp_view_modules, st, &vo,
                        tree ? TP_MODTREE_TREE_COLUMNS : "module,id,depth,occurrences,operators,host_total,host_self,"
                                                         "dev_total,dev_self");
}

static int same_tables(const tp_store *a, const tp_store *b)
{
    int same = 1;
    for (int tree = 0; tree < 2; tree++) {
        char *x = table_text(a, tree), *y = table_text(b, tree);
        same &= x && y && strchr(x, '\n') != strrchr(x, '\n') && strcmp(x, y) == 0;   /* (rows, not a header) */
        free(x);
        free(y);
    }
    return same;
}

/* The trees hold the same modules, links, top level and numbers. */
static int same_tree(const struct tp_modtree *a, const struct tp_modtree *b)
{
    if (a->nn != b->nn || a->nroots != b->nroots || a->ns != b->ns || a->orph_n != b->orph_n ||
        a->orph_host != b->orph_host || a->orph_dev != b->orph_dev || !a->orph_name != !b->orph_name ||
        (a->orph_name && strcmp(a->orph_name, b->orph_name) != 0) ||
        memcmp(a->roots, b->roots, a->nroots * sizeof *a->roots) != 0)
        return 0;
    for (size_t i = 0; i < a->nn; i++)
        if (strcmp(a->n[i].name, b->n[i].name) != 0 || a->n[i].id != b->n[i].id || a->n[i].first != b->n[i].first ||
            a->n[i].next != b->n[i].next)
            return 0;
    for (size_t i = 0; i < a->ns; i++) {
        const struct tp_modstat *x = &a->s[i], *y = tp_modtree_stat(b, x->name, x->id);
        if (!y || x->occ != y->occ || x->ops != y->ops || x->htot != y->htot || x->hself != y->hself ||
            x->dtot != y->dtot || x->dself != y->dself)
            return 0;
    }
    return 1;
}

/* A store read lazily, damaged by fn on section `name`: its tree refused,
 * the view's table the trace's (computed from the columns it asks for: a
 * column read without asking stops the process). */
static void refused(const char *label, const char *path, const tp_store *js, const char *name,
                    void (*fn)(unsigned char *, size_t *, void *), int64_t a0, int64_t a1, int64_t a2)
{
    char what[96];
    tp_store *fs = tt_load_store(path, 1);
    int64_t arg[3] = {a0, a1, a2};
    struct tp_modtree T = {0};
    int edited = fs && (fn ? tt_sf_edit(fs, name, fn, arg) == 0 : (tt_sf_blob(fs, name) && (tt_sf_blob(fs, name)->name[0] = 'X')));
    snprintf(what, sizeof what, "store_modtree.%s_refused", label);
    CHECK(what, edited && tp_store_file_modtree(fs, &T) == 0 && T.nn == 0 && !T.n && !T.s);
    snprintf(what, sizeof what, "store_modtree.%s_computed", label);
    CHECK(what, edited && same_tables(js, fs));
    tp_modtree_free(&T);
    tp_store_free(fs);
}

int main(void)
{
    char path[64];
    if (tt_tmpfile(path, sizeof path, "store_modtree") < 0)
        TEST_EXIT();
    tp_store *js = tt_load_store(TRACE, 0);
    tp_error err = {0};
    CHECK("store_modtree.saved", js && tp_store_save(js, NULL, path, &err) == TP_OK);
    tp_store *fs = tt_load_store(path, 1);
    CHECK("store_modtree.loaded", fs != NULL);
    if (!js || !fs) {
        tp_store_free(js);
        tp_store_free(fs);
        unlink(path);
        TEST_EXIT();
    }

    /* read back: what the trace gives */
    struct tp_modtree A = {0}, B = {0}, C = {0};
    CHECK("store_modtree.computed", tp_modtree_modules(&A, js) == 0 && A.nn >= 4 && A.nroots == 2 && A.ns >= 4);
    CHECK("store_modtree.read", tp_store_file_modtree(fs, &B) == 1);
    CHECK("store_modtree.equal", same_tree(&A, &B));
    CHECK("store_modtree.json_has_none", tp_store_file_modtree(js, &C) == 0 && C.nn == 0);

    /* the view on the store: the trace's bytes, and not one column read */
    const struct tp_sf_lazy *L = fs->models[TP_MODEL_FILE].p;
    CHECK("store_modtree.tables_equal", same_tables(js, fs));
    const char *cols[] = {"ev.ts", "ev.dur", "ev.name", "ev.cat", "ev.tid", "ev.aux"};
    int none = L != NULL;
    for (size_t i = 0; none && i < sizeof cols / sizeof *cols; i++)
        none = !tp_sf_lazy_loaded(L, cols[i]);
    CHECK("store_modtree.no_column_read", none);

    /* a store without the tree (as tprof wrote them before), of another
     * version, damaged or not fitting the store */
    int64_t nn = (int64_t)A.nn, nstr = (int64_t)js->strings.count;
    refused("absent", path, js, "opt.model.mod.version", NULL, 0, 0, 0);
    refused("absent_stats", path, js, "opt.model.mod.stats", NULL, 0, 0, 0);
    refused("other_version", path, js, "opt.model.mod.version", set_u32, 0, 2, 0);
    refused("name_past_strings", path, js, "opt.model.mod.nodes", set_u32, 0, nstr, 0);
    refused("pad_set", path, js, "opt.model.mod.nodes", set_u32, 4, 1, 0);
    refused("child_past_nodes", path, js, "opt.model.mod.nodes", set_i64, 16, nn, 0);
    refused("sibling_below_none", path, js, "opt.model.mod.nodes", set_i64, 24, -2, 0);
    refused("node_own_sibling", path, js, "opt.model.mod.nodes", set_i64, 24, 0, 0);
    refused("root_past_nodes", path, js, "opt.model.mod.roots", set_i64, 0, nn, 0);
    refused("root_twice", path, js, "opt.model.mod.roots", set_i64, 8, A.roots[0], 0);
    refused("stat_twice", path, js, "opt.model.mod.stats", copy_rec, 0, 1, 64);
    refused("stat_name_past_strings", path, js, "opt.model.mod.stats", set_u32, 0, nstr, 0);
    refused("stat_negative_count", path, js, "opt.model.mod.stats", set_i64, 16, -1, 0);
    refused("orphan_name_without_orphans", path, js, "opt.model.mod.orphans", set_i64, 24, 0, 0);
    refused("orphans_without_name", path, js, "opt.model.mod.orphans", set_i64, 0, 1, 0);

    tp_modtree_free(&A);
    tp_modtree_free(&B);
    tp_modtree_free(&C);
    tp_store_free(js);
    tp_store_free(fs);
    unlink(path);
    TEST_EXIT();
}
