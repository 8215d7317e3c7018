/* view_modules.c — `tprof modules`: the TensorBoard plugin's Module view
 * (SPEC §10.1): the nn.Module tree with, per module, how often it ran, its
 * direct operators and its host/device total and self times; `--tree` draws
 * it with time bars.
 *
 * The tree comes from the python_function events (with_modules or
 * with_stack, modtree_py.c); the numbers from the ModuleNodes of the
 * plugin's op trees (tbtree.h), summed per (name, module id) (modtree.c).
 * The plugin's backward re-parenting (SPEC §3.6) moves backward ops under
 * BackwardNodes, which this view never enters, and runs after these
 * statistics are taken, so it changes nothing here.  A module of the tree
 * that has no node in the op trees (e.g. a partially overlapping event the
 * tree dropped) makes the plugin fail with a KeyError; tprof shows it with
 * zero occurrences.
 *
 * Both depend on the store alone: `tprof import` writes them into the
 * .tprof file (store_file_modtree.c), and the view on such a store reads
 * them back instead of walking 2.3M python frames and the op tree. */
#include "modtree.h"
#include "store_file.h"
#include "views.h"

/* What the tree and its numbers read of a lazily read store (views.def asks
 * for none: a store that holds them, tp_store_file_modtree, inflates no
 * column). */
#define MODULES_NEEDS (TP_NEED_AUX | TP_NEED_CAT | TP_NEED_DUR | TP_NEED_NAME | TP_NEED_TID | TP_NEED_TS | \
                       TP_NEED_OP_INFO | TP_NEED_PY)

int tp_modules_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    struct tp_modtree T = {0};
    int got = tp_store_file_modtree(st, &T);
    if (got < 0)
        goto oom;
    if (!got) {
        int rc = tp_store_need(st, MODULES_NEEDS, err);
        if (rc != TP_OK)
            return rc;
        if (tp_modtree_modules(&T, st) < 0)
            goto oom;
    }
    if (T.nn == 0) {
        tp_error_set(err, TP_OK, "%s: no nn.Module events (profile with with_modules=True or with_stack=True)",
                     st->path);
    } else if (T.orph_n) {
        tp_error_set(err, TP_OK, "%s: %lld runtime call%s without External id (%s%s) outside the module the "
                     "plugin charges %s to: attributed to no module (%.3f us host, %.3f us device)",
                     st->path, (long long)T.orph_n, T.orph_n == 1 ? "" : "s", T.orph_n == 1 ? "" : "first: ",
                     T.orph_name, T.orph_n == 1 ? "it" : "them", (double)T.orph_host / 1e3,
                     (double)T.orph_dev / 1e3);
    }
    return tp_modtree_finish(&T, vo, TP_MODTREE_NCOLS, out, err);
oom:
    tp_modtree_free(&T);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
}
