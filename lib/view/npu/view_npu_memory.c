/* view_npu_memory.c — `tprof memory` on an Ascend folder: the Ascend
 * plugin's Memory view (SPEC §A.6.3).
 *
 *   default           peaks per device and memory_record component (PTA+GE,
 *                     PTA, GE, APP, WORKSPACE): the plugin's "Peak Memory
 *                     Usage" (largest PTA+GE Allocated) and "Reserved Peak
 *                     Memory Usage" (largest Reserved per component), with
 *                     when each was first reached;
 *   --group component per device and driver component of npu_module_mem.csv:
 *                     the plugin's Component table (largest Total Reserved,
 *                     first reached at) — compared as numbers, where the
 *                     plugin compares the strings ("9.5" > "10.0");
 *   --events          one row per allocation of operator_memory.csv;
 *   --curve           every memory_record.csv sample;
 *   --curve --plot    the PTA+GE curve per device drawn in the terminal.
 * --device NPU:0 (or 0) keeps one device.  Times are µs since the profiler
 * started (the trace's first event; without a trace, the earliest CSV
 * timestamp — the plugin then prints epoch milliseconds). */
#include <stdlib.h>
#include <string.h>
#include "ascend.h"
#include "plot.h"
#include "views.h"
#include "try.h"
#include "coldefs.h"

#define TP_COLS_FILE "view_npu_memory.def"
#define TP_COLS_ARRAY tp_npu_memory_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

#define COMP_COLS "device,component,reserved,reserved_at,samples"
#define EVENTS_COLS "op,device,size,alloc_time,release_time,duration"
#define CURVE_COLS "device,component,time,allocated,reserved,active"

/* --device: NULL keeps all; "NPU:0" or "0" keeps that one. */
static int keep(const tp_store *st, uint32_t dev, const char *want)
{
    if (!want)
        return 1;
    const char *s = tp_store_str(st, dev);
    if (strcmp(s, want) == 0)
        return 1;
    return strncmp(s, "NPU:", 4) == 0 && strcmp(s + 4, want) == 0;
}

/* A new row of t, its device cell set, for a record of device dev that
 * --device keeps (want); 0 when it is another device's. */
static int device_row(tp_table *t, const tp_store *st, uint32_t dev, const char *want)
{
    if (!keep(st, dev, want))
        return 0;
    tp_table_add_row(t);
    tp_table_set_str(t, C_DEV, tp_store_str(st, dev));
    return 1;
}

static void set_rel(tp_table *t, size_t col, int64_t v, int64_t origin)
{
    if (v != TP_NONE)
        tp_table_set_int(t, col, v - origin);
}

static void set_mb(tp_table *t, size_t col, double v)
{
    if (!isnan(v))
        tp_table_set_float(t, col, v);
}

struct peak {
    uint32_t dev, comp;
    int64_t n;
    double alloc, res;
    int64_t alloc_at, res_at;
};

static int peaks(const tp_store *st, const struct tp_view_opts *vo, int modules, tp_table *t, tp_error *err)
{
    const struct tp_npu_data *d = st->npu;
    int64_t origin = tp_npu_origin(d);
    size_t n = modules ? d->nmodules : d->nrecords;
    struct peak *p = calloc(n + 1, sizeof *p);
    TP_TRY_NOMEM(p, err);
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t dev = modules ? d->modules[i].device : d->records[i].device;
        uint32_t comp = modules ? d->modules[i].component : d->records[i].component;
        int64_t ts = modules ? d->modules[i].ts : d->records[i].ts;
        double a = modules ? NAN : d->records[i].allocated_mb;
        double r = modules ? d->modules[i].reserved_mb : d->records[i].reserved_mb;
        if (!keep(st, dev, vo ? vo->device : NULL))
            continue;
        size_t j = 0;
        while (j < np && (p[j].dev != dev || p[j].comp != comp))   /* few components: linear */
            j++;
        if (j == np) {
            p[np].dev = dev;
            p[np].comp = comp;
            p[np].alloc = p[np].res = NAN;
            p[np].alloc_at = p[np].res_at = TP_NONE;
            np++;
        }
        struct peak *q = &p[j];
        q->n++;
        /* first reached: a later equal value keeps the earlier time */
        if (!isnan(a) && (isnan(q->alloc) || a > q->alloc || (a == q->alloc && ts < q->alloc_at))) {
            q->alloc = a;
            q->alloc_at = ts;
        }
        if (!isnan(r) && (isnan(q->res) || r > q->res || (r == q->res && ts < q->res_at))) {
            q->res = r;
            q->res_at = ts;
        }
    }
    /* grouped by device in first-seen order, components in first-seen order */
    for (size_t i = 0; i < np; i++) {
        int first = 1;
        for (size_t k = 0; k < i; k++)
            if (p[k].dev == p[i].dev)
                first = 0;
        if (!first)
            continue;
        for (size_t j = i; j < np; j++) {
            if (p[j].dev != p[i].dev)
                continue;
            tp_table_add_row(t);
            tp_table_set_str(t, C_DEV, tp_store_str(st, p[j].dev));
            tp_table_set_str(t, C_COMP, tp_store_str(st, p[j].comp));
            set_mb(t, C_ALLOCATED, p[j].alloc);
            set_rel(t, C_ALLOC_AT, p[j].alloc_at, origin);
            set_mb(t, C_RESERVED, p[j].res);
            set_rel(t, C_RES_AT, p[j].res_at, origin);
            tp_table_set_int(t, C_SAMPLES, p[j].n);
        }
    }
    free(p);
    return TP_OK;
}

static void fmt_ms(int64_t ns, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.1f ms", (double)ns / 1e6);
}

static void fmt_mb(int64_t kb, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.0f MB", (double)kb / 1024.0);
}

/* --plot: per device the PTA+GE curve (the plugin's total chart): allocated
 * filled, reserved as a line; y in KB so MB labels stay exact enough.
 * 0, -1 out of memory, -2 a size beyond int64 KB. */
static int plot(const tp_store *st, const struct tp_view_opts *vo, tp_table *t)
{
    const struct tp_npu_data *d = st->npu;
    int64_t origin = tp_npu_origin(d);
    /* the id of "PTA+GE" as the reader interned it (views do not intern) */
    uint32_t total = UINT32_MAX;
    for (size_t i = 0; i < d->nrecords && total == UINT32_MAX; i++)
        if (strcmp(tp_store_str(st, d->records[i].component), "PTA+GE") == 0)
            total = d->records[i].component;
    int width = vo->width > 0 ? vo->width - 1 : 79;
    for (size_t i = 0; i < d->nrecords; i++) {
        uint32_t dev = d->records[i].device;
        int first = 1;
        for (size_t k = 0; k < i && first; k++)
            if (d->records[k].device == dev && d->records[k].component == total)
                first = 0;
        if (!first || d->records[i].component != total || !keep(st, dev, vo->device))
            continue;
        size_t n = 0;
        for (size_t k = i; k < d->nrecords; k++)
            n += d->records[k].device == dev && d->records[k].component == total;
        int64_t *x = malloc(n * sizeof *x), *ya = malloc(n * sizeof *ya), *yr = malloc(n * sizeof *yr);
        if (!x || !ya || !yr) {
            free(x); free(ya); free(yr);
            return -1;
        }
        size_t m = 0, peak = i;
        int64_t ymax = 1;
        for (size_t k = i; k < d->nrecords; k++) {
            const struct tp_npu_record *r = &d->records[k];
            if (r->device != dev || r->component != total)
                continue;
            x[m] = r->ts - origin;
            /* range-checked: the cast of a value beyond int64 is undefined */
            ya[m] = yr[m] = 0;
            if ((!isnan(r->allocated_mb) && tp_npu_ns(r->allocated_mb, 1024.0, &ya[m]) < 0) ||
                (!isnan(r->reserved_mb) && tp_npu_ns(r->reserved_mb, 1024.0, &yr[m]) < 0)) {
                free(x); free(ya); free(yr);
                return -2;
            }
            if (ya[m] > ymax) ymax = ya[m];
            if (yr[m] > ymax) ymax = yr[m];
            if (!isnan(r->allocated_mb) && (isnan(d->records[peak].allocated_mb) || r->allocated_mb > d->records[peak].allocated_mb))
                peak = k;
            m++;
        }
        /* x runs in time order: memory_record.csv is written in time order */
        struct tp_plot_series s[2] = {{x, ya, m, 1}, {x, yr, m, 0}};
        struct tp_plot pl;
        int rc = tp_plot_steps(s, 2, x[0] < 0 ? x[0] : 0, x[m - 1], ymax, width, 12, fmt_ms, fmt_mb, &pl);
        free(x); free(ya); free(yr);
        if (rc < 0)
            return -1;
        char head[256];
        snprintf(head, sizeof head, "%s PTA+GE  peak %.1f MB at %.3f ms  (fill: allocated, line: reserved)",
                 tp_store_str(st, dev), d->records[peak].allocated_mb, (double)(d->records[peak].ts - origin) / 1e6);
        tp_plot_to_table(&pl, head, t, C_PLOT);
    }
    return 0;
}

int tp_npu_memory_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    const struct tp_npu_data *d = st->npu;
    int events = vo && vo->events, curve = vo && (vo->curve || vo->plot);
    int modules = vo && vo->group && (strcmp(vo->group, "component") == 0 || strcmp(vo->group, "module") == 0);
    if (vo && vo->group && !modules)
        return tp_error_set(err, TP_ERR_USAGE, "memory: --group must be component on Ascend folders, not %s", vo->group);
    unsigned need = events ? TP_NPU_OPERATOR_MEMORY : modules ? TP_NPU_MODULE_MEM : TP_NPU_MEMORY_RECORD;
    if (!d || !(d->files & need))
        return tp_npu_missing(st, need, events ? "memory --events" : modules ? "memory --group component"
                                       : curve ? "memory --curve" : "memory", tp_npu_memory_cols, C_N, out, err);
    if (vo && vo->device) {
        /* an unknown --device is a usage error naming the devices there are */
        char devs[256] = "";
        size_t dl = 0;
        int found = 0;
        for (int pass = 0; pass < 3; pass++) {
            size_t n = pass == 0 ? d->nrecords : pass == 1 ? d->nallocs : d->nmodules;
            for (size_t i = 0; i < n; i++) {
                uint32_t dev = pass == 0 ? d->records[i].device : pass == 1 ? d->allocs[i].device : d->modules[i].device;
                if (keep(st, dev, vo->device))
                    found = 1;
                const char *ds = tp_store_str(st, dev);
                if (!strstr(devs, ds) && dl < sizeof devs - 40)
                    dl += (size_t)snprintf(devs + dl, sizeof devs - dl, "%s%s", dl ? ", " : "", ds);
            }
        }
        if (!found)
            return tp_error_set(err, TP_ERR_USAGE, "memory: no device %s in %s (devices: %s)", vo->device, d->dir,
                                devs[0] ? devs : "none");
    }
    tp_table *t = tp_table_new(tp_npu_memory_cols, C_N);
    TP_TRY_NOMEM(t, err);
    int64_t origin = tp_npu_origin(d);
    int rc = TP_OK;
    if (events) {
        for (size_t i = 0; i < d->nallocs; i++) {
            const struct tp_npu_alloc *a = &d->allocs[i];
            if (!device_row(t, st, a->device, vo->device))
                continue;
            tp_table_set_str(t, C_OP, tp_store_str(st, a->name));
            tp_table_set_float(t, C_SIZE, a->size_kb < 0 ? -a->size_kb : a->size_kb);
            set_rel(t, C_ALLOC, a->alloc, origin);
            set_rel(t, C_REL, a->release, origin);
            if (a->dur != TP_NONE)
                tp_table_set_int(t, C_DUR, a->dur);
            set_rel(t, C_AREL, a->active_release, origin);
            if (a->active_dur != TP_NONE)
                tp_table_set_int(t, C_ADUR, a->active_dur);
            if (a->alloc != TP_NONE)
                tp_table_set_int(t, C_ATS, a->alloc);
        }
    } else if (curve && vo->plot) {
        int prc = plot(st, vo, t);
        if (prc == -2)
            rc = tp_error_set(err, TP_ERR_FORMAT, "%s: memory_record.csv: a size beyond int64 KB", st->path);
        else if (prc < 0)
            rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    } else if (curve) {
        for (size_t i = 0; i < d->nrecords; i++) {
            const struct tp_npu_record *r = &d->records[i];
            if (!device_row(t, st, r->device, vo->device))
                continue;
            tp_table_set_str(t, C_COMP, tp_store_str(st, r->component));
            tp_table_set_int(t, C_TIME, r->ts - origin);
            tp_table_set_int(t, C_TS, r->ts);
            set_mb(t, C_ALLOCATED, r->allocated_mb);
            set_mb(t, C_RESERVED, r->reserved_mb);
            set_mb(t, C_ACTIVE, r->active_mb);
        }
    } else {
        rc = peaks(st, vo, modules, t, err);
    }
    if (rc != TP_OK) {
        tp_table_free(t);
        return rc;
    }
    *out = t;
    return TP_OK;
}

const char *tp_npu_memory_columns_for(const struct tp_view_opts *vo)
{
    if (vo && vo->events)
        return EVENTS_COLS;
    if (vo && vo->plot)
        return "plot";
    if (vo && vo->curve)
        return CURVE_COLS;
    if (vo && vo->group)
        return COMP_COLS;
    return NULL;
}
