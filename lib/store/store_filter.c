/* store_filter.c — tp_store_filter: the events of some steps, or of a time
 * window, as a store of their own that every view reads as it reads a whole
 * trace (`--step 7`, `--window 1.2s..1.8s`).
 *
 * The rule is tprof cut's (export/trace_cut.c), on rows instead of text:
 * metadata always; with --step, the host events that overlap the steps'
 * host span, and the GPU work (kernels, copies, sets) they launched however
 * late it ran, none launched outside; with --window, every event that
 * overlaps it (complete events whole) and every instant inside it.  The kept
 * rows are copied (strings re-interned, side tables copied) into a new store
 * that is then linked on its own: steps, operator trees and attribution are
 * those of the slice.  The input store is not changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "tprof.h"

struct remap {
    const tp_store *src;
    tp_store *dst;
    uint32_t *ids;
    int oom;                 /* a string could not be interned */
};

static uint32_t rs(struct remap *m, uint32_t id)
{
    if (id == 0 || id >= m->src->strings.count)
        return 0;
    if (m->ids[id] == UINT32_MAX)
        m->ids[id] = tp_store_intern(m->dst, tp_store_str(m->src, id), tp_strtab_len(&m->src->strings, id));
    if (m->ids[id] == UINT32_MAX)
        m->oom = 1;
    return m->ids[id] == UINT32_MAX ? 0 : m->ids[id];
}

static int copy_row(tp_store *dst, const tp_store *src, size_t i, struct remap *m)
{
    int64_t row = tp_store_add(dst);
    if (row < 0)
        return -1;
    size_t o = (size_t)row;
    dst->kind[o] = src->kind[i];
    dst->ph[o] = src->ph[i];
    dst->ts[o] = src->ts[i];
    dst->dur[o] = src->dur[i];
    dst->name[o] = rs(m, src->name[i]);
    dst->cat[o] = rs(m, src->cat[i]);
    dst->pid[o] = src->pid[i];
    int64_t tid = src->tid[i];
    if (tid != TP_NONE && tid >= 0 && (tid & TP_TID_STRING))
        tid = TP_TID_STRING | rs(m, (uint32_t)(tid & ~TP_TID_STRING));
    dst->tid[o] = tid;
    dst->device[o] = src->device[i];
    dst->stream[o] = src->stream[i];
    dst->correlation[o] = src->correlation[i];
    if (tp_store_set_ext(dst, o, tp_store_ext(src, i)) < 0)
        return -1;
    if (tp_store_set_seq(dst, o, tp_store_seq(src, i)) < 0)
        return -1;
    const struct tp_coll_info *ci = tp_store_coll(src, i);
    if (ci) {
        struct tp_coll_info *c = tp_store_add_coll_info(dst, o);
        if (!c)
            return -1;
        *c = *ci;
        c->row = (int64_t)o;
        c->name = rs(m, c->name);
        c->dtype = rs(m, c->dtype);
        c->pg_name = rs(m, c->pg_name);
        c->pg_desc = rs(m, c->pg_desc);
        c->pg_ranks = rs(m, c->pg_ranks);
    }
    uint32_t a = src->aux[i];
    if (a == TP_NO_AUX)
        return 0;
    switch (src->kind[i]) {
    case TP_K_META:
        dst->aux[o] = rs(m, a);
        return 0;
    case TP_K_KERNEL: case TP_K_MEMCPY: case TP_K_MEMSET: case TP_K_SYNC: case TP_K_MEMORY:
    case TP_K_CPU_OP: case TP_K_USER_ANNOTATION: case TP_K_GPU_USER_ANNOTATION: case TP_K_PYTHON_FUNCTION: {
        struct tp_op_info *oi;
        if (tp_store_copy_info(dst, o, src, i, &oi) < 0)
            return -1;
        if (oi) {
            oi->input_dims = rs(m, oi->input_dims);
            oi->input_types = rs(m, oi->input_types);
            oi->concrete_inputs = rs(m, oi->concrete_inputs);
            oi->input_strides = rs(m, oi->input_strides);
            oi->call_stack = rs(m, oi->call_stack);
        }
        return 0;
    }
    default:
        dst->aux[o] = a;   /* a value, not an index into a side table */
        return 0;
    }
}

static int is_gpu_work(uint8_t k) { return k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET; }

/* Which rows the filter keeps; the window it used in *w0, *w1. */
static int keep_mask(const tp_store *st, const char *steps, const char *window, uint8_t *keep, int64_t *w0,
                     int64_t *w1, tp_error *err)
{
    int by_step = steps != NULL;
    if (by_step) {
        int64_t a, b;
        if (tp_parse_steps(steps, &a, &b, err) != TP_OK)
            return TP_ERR_USAGE;
        *w0 = INT64_MAX;
        *w1 = INT64_MIN;
        for (size_t s = 0; s < st->nsteps; s++)
            if (st->steps[s].number >= a && st->steps[s].number <= b) {
                if (st->steps[s].ts < *w0) *w0 = st->steps[s].ts;
                if (st->steps[s].end > *w1) *w1 = st->steps[s].end;
            }
        if (*w0 > *w1) {
            char have[160] = "";
            size_t n = 0;
            for (size_t s = 0; s < st->nsteps && n + 24 < sizeof have; s++)
                n += (size_t)snprintf(have + n, sizeof have - n, "%s%lld", s ? "," : "",
                                      (long long)st->steps[s].number);
            return tp_error_set(err, TP_ERR_USAGE, "%s: --step %s: no such ProfilerStep (steps: %s)", st->path,
                                steps, st->nsteps ? have : "none");
        }
    } else {
        int64_t from, to;
        if (tp_parse_window(window, &from, &to, err) != TP_OK)
            return TP_ERR_USAGE;
        int64_t t0 = INT64_MAX;
        for (size_t i = 0; i < st->n; i++)
            if (st->kind[i] != TP_K_META && st->kind[i] != TP_K_FLOW && st->ts[i] < t0)
                t0 = st->ts[i];
        if (t0 == INT64_MAX)
            return tp_error_set(err, TP_ERR_USAGE, "%s: --window: the trace has no timed events", st->path);
        *w0 = t0 + from;
        *w1 = to == INT64_MAX ? INT64_MAX : t0 + to;
    }
    for (size_t i = 0; i < st->n; i++) {
        uint8_t k = st->kind[i];
        int64_t ts = st->ts[i], end = ts + (st->dur[i] > 0 ? st->dur[i] : 0);
        if (k == TP_K_META) {
            keep[i] = 1;
        } else if (by_step && is_gpu_work(k)) {
            int64_t l = tp_store_launcher(st, i);
            keep[i] = l >= 0 && st->ts[l] >= *w0 && st->ts[l] <= *w1;
        } else if (st->ph[i] == 'X') {
            keep[i] = ts <= *w1 && end >= *w0;
        } else {
            keep[i] = ts >= *w0 && ts <= *w1;
        }
    }
    return TP_OK;
}

int tp_store_filter(const tp_store *st, const char *steps, const char *window, tp_store **out, tp_error *err)
{
    if (!st || !out || (!steps && !window) || (steps && window))
        return tp_error_set(err, TP_ERR_USAGE, "tp_store_filter: %s",
                            !st || !out ? "no store" : "give --step or --window (one of them)");
    *out = NULL;
    if (!st->linked)
        return tp_error_set(err, TP_ERR_USAGE, "%s: the store is not linked", st->path);
    if (st->npu)
        return tp_error_set(err, TP_ERR_USAGE, "%s: --step and --window apply to GPU traces, not Ascend folders",
                            st->path);
    /* The part would pass for a whole trace: the lean load's count of what
     * it left out, its span and its python records are not carried over. */
    if (st->left_out)
        return tp_error_set(err, TP_ERR_USAGE, "%s: the store was loaded without some events (tp_store_set_lean): "
                            "--step and --window read the whole trace", st->path);
    uint8_t *keep = calloc(st->n ? st->n : 1, 1);
    tp_store *dst = tp_store_new();
    struct remap m = {st, dst, malloc((st->strings.count + 1) * sizeof(uint32_t)), 0};
    int64_t w0, w1;
    int rc = keep && dst && m.ids ? TP_OK : tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
    if (rc == TP_OK)
        rc = keep_mask(st, steps, window, keep, &w0, &w1, err);
    if (rc == TP_OK) {
        memset(m.ids, 0xff, (st->strings.count + 1) * sizeof(uint32_t));
        memcpy(dst->path, st->path, sizeof dst->path);
        memcpy(dst->origin, st->origin, sizeof dst->origin);
        dst->format = st->format;
        dst->compression = st->compression;
        dst->input_bytes = st->input_bytes;
        dst->text_bytes = st->text_bytes;
        dst->base_time_ns = st->base_time_ns;
        dst->rank = st->rank;
        dst->world_size = st->world_size;
        dst->dist_backend = rs(&m, st->dist_backend);
        dst->schema_version = st->schema_version;
        dst->truncated = st->truncated;
        dst->annots_from_pyprof = st->annots_from_pyprof;
        memcpy(dst->skips, st->skips, sizeof dst->skips);
        dst->nskips = st->nskips;
        if (st->ndevices) {
            dst->devices = malloc(st->ndevices * sizeof *dst->devices);
            if (!dst->devices)
                rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
            else {
                memcpy(dst->devices, st->devices, st->ndevices * sizeof *dst->devices);
                for (size_t d = 0; d < st->ndevices; d++)
                    dst->devices[d].name = rs(&m, st->devices[d].name);
                dst->ndevices = st->ndevices;
            }
        }
    }
    for (size_t i = 0; i < st->n && rc == TP_OK; i++)
        if (keep[i] && copy_row(dst, st, i, &m) < 0)
            rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
    if (rc == TP_OK && m.oom)
        rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
    if (rc == TP_OK)
        rc = tp_store_link(dst, err);
    free(keep);
    free(m.ids);
    if (rc != TP_OK) {
        tp_store_free(dst);
        return rc;
    }
    *out = dst;
    return TP_OK;
}
