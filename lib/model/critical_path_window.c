/* critical_path_window.c — what the critical path is taken over and what
 * its edges are called: the window (a step, an annotation instance, the
 * whole trace) and HTA's bound_by categories and edge type names. */
#include <stdlib.h>
#include <string.h>
#include "critical_path.h"

static int is_step_name(const char *s)
{
    return !strncmp(s, "ProfilerStep#", 13);
}

int tp_cp_window(const struct tp_hta *h, int64_t step, const char *annotation, int64_t instance,
                 int64_t *start, int64_t *end, tp_error *err)
{
    const tp_store *st = h->st;
    if (step >= 0) {
        for (size_t i = 0; i < st->nsteps; i++)
            if (st->steps[i].number == step) {
                *start = st->steps[i].ts;
                *end = st->steps[i].end;
                if (h->quirks)
                    *start = (*start + 999) / 1000 * 1000, *end = *end / 1000 * 1000;
                return TP_OK;
            }
        return tp_error_set(err, TP_ERR_USAGE, "%s: no ProfilerStep#%lld", st->path, (long long)step);
    }
    const char *match = annotation;
    if (!match)
        match = st->nsteps ? "ProfilerStep#" : "";
    if (!*match) {
        /* the whole trace */
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        if (st->left_out_py && !h->quirks)   /* the frames a lean load left out (tp_cp_lean_serves) */
            lo = st->left_out_lo, hi = st->left_out_hi;
        for (size_t r = 0; r < st->n; r++) {
            if (st->ph[r] != 'X')
                continue;
            int64_t s, e;
            tp_hta_times(h, r, &s, &e);
            if (s < lo) lo = s;
            if (e > hi) hi = e;
        }
        if (lo > hi)
            return tp_error_set(err, TP_ERR_FORMAT, "%s: no event with a duration: no critical path", st->path);
        *start = lo;
        *end = hi;
        return TP_OK;
    }
    /* HTA: every event whose name contains the annotation, in time order.
     * A name is matched once (per name id: 0 not yet, 1 a match, 2 not),
     * not once per event and instance. */
    uint8_t *matched = calloc(st->strings.count + 1, 1);
    if (!matched)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    int64_t best_s = 0, best_row = -1, prev_s = INT64_MIN, prev_row = -1;
    for (int64_t k = 0; k <= instance; k++) {
        best_row = -1;
        for (size_t r = 0; r < st->n; r++) {
            if (st->ph[r] != 'X')
                continue;
            uint8_t *m = &matched[st->name[r]];
            if (!*m) {
                const char *name = tp_store_str(st, st->name[r]);
                *m = (annotation ? strstr(name, match) != NULL : is_step_name(name)) ? 1 : 2;
            }
            if (*m != 1)
                continue;
            int64_t s, e;
            tp_hta_times(h, r, &s, &e);
            int after_prev = s > prev_s || (s == prev_s && (int64_t)r > prev_row);
            if (after_prev && (best_row < 0 || s < best_s || (s == best_s && (int64_t)r < best_row))) {
                best_s = s;
                best_row = (int64_t)r;
            }
        }
        if (best_row < 0) {
            free(matched);
            return tp_error_set(err, TP_ERR_USAGE, "%s: annotation '%s' has no instance %lld", st->path, match,
                                (long long)instance);
        }
        prev_s = best_s;
        prev_row = best_row;
    }
    free(matched);
    int64_t s, e;
    tp_hta_times(h, (size_t)best_row, &s, &e);
    *start = s;
    *end = e;
    return TP_OK;
}

/* A python frame reaches the critical path in three ways beside the whole
 * trace's span: as a window (named like a step: ProfilerStep#, which a
 * TP_LEAN_PYGRAPH load keeps as a row, or with --annotation any name), as
 * the event an edge is attributed to (--path names it), and through that
 * event's stream (a frame with one is kept as a row too).  An operator edge from one
 * call's end to its sibling's start is attributed to the call's parent in
 * the linker's tree (st->parent), which is a frame where a frame encloses
 * the call: without the frames, the parent is the next row up, e.g. a
 * Triton kernel's cpu_op that carries a "stream" (torch.compile traces),
 * so the edge counts as gpu_compute_bound instead of cpu_bound.  A frame
 * and a host event with no stream both count as cpu_bound (tp_cp_bound_by):
 * the attribution can only change where a host event (which the linker
 * nests, link.c) or a left-out frame has one. */
int tp_cp_lean_serves(const tp_store *st)
{
    if (!st->left_out_py)
        return 1;
    if (tp_hta_quirks_env())
        return 0;   /* HTA's rounding of each frame's end, which the span does not give */
    for (size_t r = 0; r < st->n; r++)
        if (st->stream[r] >= 0 && tp_cp_host_nested(st, r))
            return 0;
    return 1;
}

int tp_cp_host_nested(const tp_store *st, size_t r)
{
    uint8_t k = st->kind[r];   /* as link.c's build_trees nests */
    return st->ph[r] == 'X' && (k == TP_K_CPU_OP || k == TP_K_USER_ANNOTATION || k == TP_K_PYTHON_FUNCTION ||
                                k == TP_K_RUNTIME || k == TP_K_DRIVER);
}

enum tp_cp_bound tp_cp_bound_by(const struct tp_hta *h, const struct tp_cp_edge *e)
{
    switch (e->type) {
    case TP_CP_KERNEL_KERNEL: return TP_CP_KK_OVERHEAD;
    case TP_CP_LAUNCH: return TP_CP_LAUNCH_OVERHEAD;
    case TP_CP_DEPENDENCY:
    case TP_CP_SYNC: return TP_CP_BOUND_NONE;
    default: break;
    }
    const tp_store *st = h->st;
    if (e->attr_row < 0 || st->stream[e->attr_row] < 0)
        return TP_CP_CPU;   /* HTA's data_loading needs a list of data-loading events: none by default */
    return tp_hta_kernel_type(tp_store_str(st, st->name[e->attr_row]), h->quirks) == TP_HTA_COMM ? TP_CP_GPU_COMM
                                                                                             : TP_CP_GPU_COMPUTE;
}

const char *tp_cp_bound_name(enum tp_cp_bound b)
{
    static const char *const names[TP_CP_NBOUND] = {"cpu_bound", "data_loading", "gpu_compute_bound",
                                                    "gpu_communication_bound", "gpu_kernel_kernel_overhead",
                                                    "gpu_kernel_launch_overhead", ""};
    return b < TP_CP_NBOUND ? names[b] : "";
}

const char *tp_cp_edge_type_name(enum tp_cp_edge_type t)
{
    static const char *const names[] = {"critical_path_operator", "critical_path_dependency",
                                        "critical_path_kernel_launch_delay", "critical_path_kernel_kernel_delay",
                                        "critical_path_sync_dependency"};
    return t <= TP_CP_SYNC ? names[t] : "";
}
