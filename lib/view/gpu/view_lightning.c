/* view_lightning.c — `tprof lightning`: the TensorBoard plugin's Lightning
 * view (SPEC §10.2): for a PyTorch Lightning run, the same table as the
 * Module view over the modules Lightning's profiler recorded, and `--tree`
 * draws it with time bars.
 *
 * Lightning's PyTorchProfiler wraps each named submodule's forward in a
 * record_function "[pl][module]TYPE: NAME"; the hierarchy is by NAME's dots
 * (modtree_pl.c), the numbers from those module nodes of the plugin's op
 * trees (the PLModuleNodes, tbtree.h), summed per name (modtree.c).
 * Departures from the plugin: it reads these events only as cpu_op events
 * of a trace whose top-level "Framework" is "pytorch-lightning"; PyTorch
 * >= 1.10 writes record_functions as user_annotation events, which it
 * drops, so its Lightning view is empty for them: tprof reads both, and
 * recognises a Lightning run by these events.  --hooks shows the hooks'
 * call tree ("[pl][profile]HOOK", the plugin's bottom graph, which shows
 * the first thread's), a row per call, of every thread. */
#include "modtree.h"
#include "views.h"
#include "try.h"

/* --hooks: the call tree of Lightning's hooks (the plugin's bottom graph) */
static int build_hooks(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    struct tp_modtree T = {0};
    int64_t dropped = 0;
    tp_table *t = NULL;
    if (tp_modtree_from_hooks(&T, st, &dropped) == 0)
        t = tp_modtree_hooks_table(&T, st, vo);
    tp_modtree_free(&T);
    TP_TRY_NOMEM(t, err);
    if (tp_table_rows(t) == 0)
        tp_error_set(err, TP_OK, "%s: no PyTorch Lightning \"[pl][profile]\" hook events (profile with "
                     "Lightning's PyTorchProfiler)", st->path);
    else if (dropped)
        tp_error_set(err, TP_OK, "%s: %lld hook call%s partly inside the call around %s left out, as the "
                     "plugin does", st->path, (long long)dropped, dropped == 1 ? "" : "s",
                     dropped == 1 ? "it" : "them");
    *out = t;
    return TP_OK;
}

int tp_lightning_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    if (vo && vo->hooks)
        return build_hooks(st, vo, out, err);
    struct tp_modtree T = {0};
    const struct tb_model *m = NULL;
    if (tp_modtree_from_lightning(&T, st) < 0)
        goto oom;
    if (T.nn == 0)
        tp_error_set(err, TP_OK, "%s: no PyTorch Lightning \"[pl][module]\" events (profile with Lightning's "
                     "PyTorchProfiler, record_module_names=True)", st->path);
    else if (!(m = tp_store_tb(st)) || tp_modtree_stats(&T, st, m, CL_PLMOD) < 0)
        goto oom;
    return tp_modtree_finish(&T, vo, TP_MODTREE_NCOLS_PL, out, err);
oom:
    tp_modtree_free(&T);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
}
