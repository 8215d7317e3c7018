/* views_test.c — the command table (views.def) as the library hands it out:
 * every view and NPU twin whole and consistent.  The compiler checks the
 * types of an entry and each view's enum against its columns; this checks
 * what it cannot: names found again, default column lists and options that
 * select, no key twice, twins of a view that exists, shared columns shared. */
#include <string.h>
#include "testing.h"
#include "table.h"
#include "tprof.h"

/* What one descriptor must hold (a GPU view or an NPU twin); the first
 * failure, if any, into why. */
static const char *whole(const tp_view *v)
{
    size_t idx[256], n;
    tp_error err = {0};
    if (!v->name || !*v->name || !v->summary || !*v->summary)
        return "a name and a summary";
    if (!v->build || !v->cols || v->ncols == 0 || v->ncols > 256 || !v->default_columns)
        return "a build, columns and default columns";
    if (tp_table_select(v->cols, v->ncols, v->default_columns, idx, 256, &n, &err) != TP_OK || n == 0)
        return "default columns that are its columns";
    for (size_t i = 0; i < v->ncols; i++) {
        if (!v->cols[i].key || !v->cols[i].header || !v->cols[i].desc || !*v->cols[i].desc)
            return "a key, header and description per column";
        for (size_t j = 0; j < i; j++)
            if (strcmp(v->cols[i].key, v->cols[j].key) == 0)
                return "each column key once";
    }
    if (v->noptions && !v->options)
        return "its options where it counts some";
    for (size_t i = 0; i < v->noptions; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(v->options[i].name, v->options[j].name) == 0)
                return "each option once";
    if ((v->rank_summary != NULL) != (v->build_summaries != NULL) || (v->build_summaries && !v->build_run))
        return "rank summaries with build_summaries and build_run";
    return NULL;
}

int main(void)
{
    const tp_view *const *all = tp_views();
    size_t nviews = 0, ntwins = 0;
    char name[128];
    for (; all && all[nviews]; nviews++) {
        const tp_view *v = all[nviews], *twin = tp_view_npu_twin(v);
        const char *why = whole(v);
        snprintf(name, sizeof name, "view %s: %s", v->name ? v->name : "?", why ? why : "whole");
        CHECK(name, why == NULL);
        snprintf(name, sizeof name, "view %s: found by its name", v->name ? v->name : "?");
        CHECK(name, tp_view_find(v->name) == v);
        if (!twin)
            continue;
        ntwins++;
        why = whole(twin);
        snprintf(name, sizeof name, "twin %s: %s", v->name, why ? why : "whole");
        CHECK(name, why == NULL);
        snprintf(name, sizeof name, "twin %s: not in the registry, built for Ascend stores", v->name);
        CHECK(name, twin != v && strcmp(twin->name, v->name) == 0 && tp_view_npu_twin(twin) == twin);
    }
    CHECK("the registry holds the views", nviews >= 20);
    CHECK("some views have an Ascend twin", ntwins >= 1 && ntwins < nviews);

    /* modules and lightning share the module tree's columns: lightning's
     * --hooks columns follow modules' */
    const tp_view *mod = tp_view_find("modules"), *pl = tp_view_find("lightning");
    CHECK("modules and lightning share their columns",
          mod && pl && mod->cols == pl->cols && mod->ncols < pl->ncols);
    /* a view whose options are its own entry's (TP_VIEW_OPTS) and one with
     * the shared --step/--window table */
    const tp_view *queue = tp_view_find("queue"), *api = tp_view_find("api");
    CHECK("queue: its own options", queue && tp_view_option_find(queue, "max-queue") != NULL &&
                                        tp_view_option_find(queue, "hta-quirks") != NULL);
    CHECK("api: the filter options alone", api && api->noptions == 2 && tp_view_option_find(api, "window"));

    /* the leanest load each view takes */
    const tp_view *prof = tp_view_find("prof"), *kern = tp_view_find("kernels"), *ops = tp_view_find("ops"),
                  *info = tp_view_find("info");
    struct tp_view_opts vo = {0};
    CHECK("lean: prof, any columns", prof && tp_view_lean_level(prof, &vo) == TP_LEAN_FLOWS);
    vo.need_columns = "idx,dir,sub,mod,op,kernel,params,sil";
    CHECK("lean: prof, its default columns", prof && tp_view_lean_level(prof, &vo) == TP_LEAN_KERNELS);
    vo.need_columns = "idx,Layer";
    CHECK("lean: prof, the layer column", prof && tp_view_lean_level(prof, &vo) == TP_LEAN_FLOWS);
    vo.need_columns = "kernel,trace";
    CHECK("lean: prof, the trace column", prof && tp_view_lean_level(prof, &vo) == TP_LEAN_FLOWS);
    vo.need_columns = "ALL";
    CHECK("lean: prof, all columns", prof && tp_view_lean_level(prof, &vo) == TP_LEAN_FLOWS);
    vo.need_columns = "tracer,layers";
    CHECK("lean: prof, names that only begin like them", prof && tp_view_lean_level(prof, &vo) == TP_LEAN_KERNELS);
    vo.need_columns = NULL;
    CHECK("lean: kernels, its default options", kern && tp_view_lean_level(kern, &vo) == TP_LEAN_KERNELS);
    vo.group = "props";
    CHECK("lean: kernels --group", kern && tp_view_lean_level(kern, &vo) == TP_LEAN_PYGRAPH);
    vo.group = NULL;
    CHECK("lean: ops", ops && tp_view_lean_level(ops, &vo) == TP_LEAN_PYFUNCS);
    vo.group = "stack";
    CHECK("lean: ops --group stack", ops && tp_view_lean_level(ops, &vo) == TP_LEAN_PYFUNCS);
    vo.group = NULL;
    const tp_view *memv = tp_view_find("memory"), *advice = tp_view_find("advice");
    CHECK("lean: memory", memv && tp_view_lean_level(memv, &vo) == TP_LEAN_PYFUNCS);
    /* advice reads the GPUs' memory peaks alone */
    CHECK("lean: advice", advice && tp_view_lean_level(advice, &vo) == TP_LEAN_MEMORY_PEAKS);
    /* gpu and steps read no memory event */
    const tp_view *gpu = tp_view_find("gpu"), *steps = tp_view_find("steps");
    CHECK("lean: gpu", gpu && tp_view_lean_level(gpu, &vo) == TP_LEAN_TREE);
    CHECK("lean: steps", steps && tp_view_lean_level(steps, &vo) == TP_LEAN_TREE);
    /* the module tree walks every python frame's parent id: a record of
     * each, between the flows level and the python functions' */
    const tp_view *mods = tp_view_find("modules");
    CHECK("lean: modules keeps the python graph", mods && tp_view_lean_level(mods, &vo) == TP_LEAN_PYGRAPH);
    CHECK("lean: the python graph between flows and python functions",
          TP_LEAN_FLOWS < TP_LEAN_PYGRAPH && TP_LEAN_PYGRAPH < TP_LEAN_PYFUNCS);
    CHECK("lean: info counts the flows and python frames left out",
          info && tp_view_lean_level(info, &vo) == TP_LEAN_PYGRAPH);
    /* every view reads a store without the flows but fwdbwd (tbtree_bwd.c
     * reads those, info counts the others), so `tprof report` loads one */
    int flows_at_least = 1;
    for (const tp_view *const *v = tp_views(); *v; v++)
        if (tp_view_lean_level(*v, &vo) < TP_LEAN_FLOWS) {
            fprintf(stderr, "  %s: lean level %d\n", (*v)->name, tp_view_lean_level(*v, &vo));
            flows_at_least = 0;
        }
    CHECK("lean: every view takes TP_LEAN_FLOWS", flows_at_least);
    /* the HTA critical path reads the python frames where a host event has
     * a stream (tp_view_serves): report tries the python graph first */
    const tp_view *cp = tp_view_find("critical-path");
    CHECK("critical-path", cp && tp_view_lean_level(cp, &vo) == TP_LEAN_FLOWS &&
                               tp_view_lean_try(cp, &vo) == TP_LEAN_PYGRAPH);
    const char *const pygraph_views[] = {"launches", "check", "dist", "roofline"};
    for (size_t i = 0; i < sizeof pygraph_views / sizeof *pygraph_views; i++) {
        const tp_view *v = tp_view_find(pygraph_views[i]);
        CHECK(pygraph_views[i], v && tp_view_lean_level(v, &vo) == TP_LEAN_PYGRAPH &&
                                    tp_view_lean_try(v, &vo) == TP_LEAN_PYGRAPH);
    }
    /* labels nest the torch events alone (tp_link_torch_parents): no python
     * frame, flow or memory event of a TP_LEAN_TREE load is theirs */
    const tp_view *labels = tp_view_find("labels");
    CHECK("lean: labels", labels && tp_view_lean_level(labels, &vo) == TP_LEAN_TREE);
    TEST_EXIT();
}
