/* view_info.c — `tprof info`: what an input holds (format, size, events by
 * kind, devices, streams, ranks, steps, time span, what was skipped). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "table.h"
#include "ascend.h"
#include "views.h"
#include "try.h"

#define TP_COLS_FILE "view_info.def"
#define TP_COLS_ARRAY tp_info_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

static void row(tp_table *t, const char *prop, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void row(tp_table *t, const char *prop, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tp_table_add_row(t);
    tp_table_set_str(t, I_PROPERTY, prop);
    tp_table_set_str(t, I_VALUE, buf);
}

static const char *format_name(enum tp_source_format f)
{
    switch (f) {
    case TP_SRC_KINETO_JSON: return "PyTorch profiler (kineto) JSON";
    case TP_SRC_NVPROF_SQLITE: return "nvprof SQLite";
    case TP_SRC_NSYS_SQLITE: return "Nsight Systems SQLite";
    case TP_SRC_PYPROF_DICT: return "PyProf parse.py dict";
    case TP_SRC_ASCEND: return "Ascend profiler folder";
    default: return "unknown";
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int tp_info_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    (void)vo;
    tp_table *t = tp_table_new(tp_info_cols, I_N);
    TP_TRY_NOMEM(t, err);
    row(t, "file", "%s", st->path);
    if (st->origin[0])
        row(t, "origin", "%s (a .tprof store; size and format are the original's)", st->origin);
    row(t, "format", "%s", format_name(st->format));
    row(t, "compression", "%s", st->compression);
    row(t, "size", "%" PRIu64 " bytes", st->input_bytes);
    if (st->text_bytes && st->text_bytes != st->input_bytes)
        row(t, "uncompressed", "%" PRIu64 " bytes", st->text_bytes);
    row(t, "events", "%zu", tp_store_event_count(st));
    size_t by_kind[TP_K_COUNT] = {0};
    /* A lean load (its level TP_LEAN_PYGRAPH at most, views.def) left out
     * flows, which the span below does not read either, and python frames
     * (left_out_py), whose span is the left-out events' (left_out_lo, hi:
     * flows have none).  A row's end is ts + dur, as a frame's (dur >= 0). */
    by_kind[TP_K_FLOW] = st->left_out - st->left_out_py;
    by_kind[TP_K_PYTHON_FUNCTION] = st->left_out_py;
    int64_t t0 = st->left_out_py ? st->left_out_lo : INT64_MAX, t1 = st->left_out_py ? st->left_out_hi : INT64_MIN;
    for (size_t i = 0; i < st->n; i++) {
        by_kind[st->kind[i]]++;
        if (st->kind[i] == TP_K_META || st->kind[i] == TP_K_FLOW)
            continue;
        if (st->ts[i] < t0) t0 = st->ts[i];
        if (st->ts[i] + st->dur[i] > t1) t1 = st->ts[i] + st->dur[i];
    }
    for (int k = 0; k < TP_K_COUNT; k++)
        if (by_kind[k]) {
            char p[64];
            snprintf(p, sizeof p, "events.%s", tp_kind_name((enum tp_kind)k));
            row(t, p, "%zu", by_kind[k]);
        }
    if (t0 <= t1) {
        row(t, "time.first_ns", "%" PRId64, t0);
        row(t, "time.last_ns", "%" PRId64, t1);
        row(t, "time.span_us", "%" PRId64 ".%03" PRId64, (t1 - t0) / 1000, (t1 - t0) % 1000);
    }
    if (st->base_time_ns != TP_NONE)
        row(t, "base_time_ns", "%" PRId64, st->base_time_ns);
    for (size_t d = 0; d < st->ndevices; d++) {
        const struct tp_device *dv = &st->devices[d];
        char p[64];
        snprintf(p, sizeof p, "device.%d", dv->id);
        row(t, p, "%s, %.2f GB, compute %d.%d, %d SMs", tp_store_str(st, dv->name),
            (double)dv->total_mem / (1024.0 * 1024 * 1024), dv->major, dv->minor, dv->num_sms);
    }
    /* Streams: distinct (device, stream) of device activity. */
    size_t nd = by_kind[TP_K_KERNEL] + by_kind[TP_K_MEMCPY] + by_kind[TP_K_MEMSET];
    if (nd) {
        int64_t *keys = malloc(nd * sizeof *keys);
        if (!keys) {
            tp_table_free(t);
            return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
        }
        {
            size_t m = 0;
            for (size_t i = 0; i < st->n; i++)
                if (st->kind[i] == TP_K_KERNEL || st->kind[i] == TP_K_MEMCPY || st->kind[i] == TP_K_MEMSET)
                    keys[m++] = (int64_t)((uint64_t)(uint32_t)st->device[i] << 32 | (uint32_t)st->stream[i]);
            qsort(keys, m, sizeof *keys, cmp_i64);
            char list[900] = "";
            size_t len = 0, distinct = 0;
            for (size_t i = 0; i < m; i++) {
                if (i && keys[i] == keys[i - 1])
                    continue;
                distinct++;
                if (len < sizeof list - 40)
                    len += (size_t)snprintf(list + len, sizeof list - len, "%s%d:%d", len ? " " : "",
                                            (int32_t)(keys[i] >> 32), (int32_t)(uint32_t)keys[i]);
            }
            row(t, "streams", "%zu (device:stream %s)", distinct, list);
            free(keys);
        }
    }
    if (st->rank != TP_NONE && st->world_size == TP_NONE)
        row(t, "rank", "%" PRId64, st->rank);
    else if (st->rank != TP_NONE)
        row(t, "rank", "%" PRId64 " of %" PRId64 "%s%s", st->rank, st->world_size,
            st->dist_backend ? ", backend " : "", st->dist_backend ? tp_store_str(st, st->dist_backend) : "");
    if (st->nsteps)
        row(t, "steps", "%zu (ProfilerStep#%" PRId64 "..#%" PRId64 ")", st->nsteps, st->steps[0].number,
            st->steps[st->nsteps - 1].number);
    else
        row(t, "steps", "0 (no ProfilerStep)");
    row(t, "kernels.annotated", "%zu", st->nannots);
    char akey[64], aval[512];
    for (size_t a = 0; tp_attr_info_line(st, a, akey, sizeof akey, aval, sizeof aval); a++)
        row(t, akey, "%s", aval);
    for (size_t a = 0; tp_npu_info_line(st, a, akey, sizeof akey, aval, sizeof aval); a++)
        row(t, akey, "%s", aval);
    for (size_t s = 0; s < st->nskips; s++) {
        char p[128];
        snprintf(p, sizeof p, "%s.%s", st->skips[s].malformed ? "malformed" : "skipped", st->skips[s].reason);
        row(t, p, "%" PRIu64 " (first at %s %" PRIu64 ")", st->skips[s].count, st->skips[s].at_row ? "row" : "byte",
            st->skips[s].first_offset);
    }
    if (st->truncated)
        row(t, "truncated", "yes: the input ends early; the events before the cut are kept");
    *out = t;
    return TP_OK;
}
