/* view_roofline.c — `tprof roofline`: achieved rates against the device's
 * peaks, one row per operator and input shape.
 *
 * FLOPs and bytes are the prof view's (PyProf's op classes and tprof's aten
 * formulas, model/flops/), which every kernel of an operator call repeats:
 * they are counted once per call (per launching operator event; on PyProf
 * rows, per sub-sequence 0), and the call's kernel time is the sum of its
 * kernels.  Rates are aggregates, total FLOPs over total kernel time (so a
 * slow call weighs more than in a mean of per-call rates).  The bound is
 * compute when the FLOPs per byte reach the ridge point, peak FLOP/s over
 * peak bandwidth, memory below it.  Peaks: the built-in table (peaks.c) by
 * device name, the bandwidth the trace states (Nsight's TARGET_INFO_GPU)
 * taking precedence; "-" where a peak is unknown. */
#include <stdlib.h>
#include <string.h>
#include "category.h"
#include "json.h"
#include "peaks.h"
#include "store.h"
#include "strtab.h"
#include "table.h"
#include "coldefs.h"
#include "views.h"

#define TP_COLS_FILE "view_roofline.def"
#define TP_COLS_ARRAY tp_roofline_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

struct grp {
    const char *name, *kernel;     /* a cell of the prof table, a store string */
    size_t shape_at;               /* the shape in the group's key: name \x1f shape */
    int64_t calls, kernels, time;
    double flops, bytes;
    int known, tc;
    int32_t device;
};

/* The device properties of GPU `id`; a process that sees one GPU lists it
 * as id 0 whatever its index on the node (kernels on "device 2"), so when
 * no id matches and every listed device has the same name, that one. */
static const struct tp_device *device_of(const tp_store *st, int32_t id)
{
    for (size_t i = 0; i < st->ndevices; i++)
        if (st->devices[i].id == id)
            return &st->devices[i];
    for (size_t i = 1; i < st->ndevices; i++)
        if (st->devices[i].name != st->devices[0].name)
            return NULL;
    return st->ndevices ? &st->devices[0] : NULL;
}

static double cell_num(const tp_table *t, size_t r, long c, int *ok)
{
    enum tp_cellkind k = tp_table_cell_kind(t, r, (size_t)c);
    *ok = k == TP_CELL_INT || k == TP_CELL_FLOAT;
    return k == TP_CELL_INT ? (double)tp_table_cell_int(t, r, (size_t)c)
         : k == TP_CELL_FLOAT ? tp_table_cell_float(t, r, (size_t)c) : 0.0;
}

static _Thread_local const struct grp *g_g;
static int cmp_grp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (g_g[x].time != g_g[y].time)
        return g_g[x].time > g_g[y].time ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* One output row from a group. */
static void put_row(tp_table *t, const tp_store *st, const struct grp *G, const char *shape, int64_t all_ns,
                    const char **devname, int *peaks_used)
{
    enum tp_dtype dt = tp_dtype_of(shape);
    const struct tp_device *dev = device_of(st, G->device);
    const char *dname = dev && dev->name ? tp_store_str(st, dev->name) : "";
    const struct tp_peaks *pk = tp_peaks_find(dname);
    const char *label;
    double peak_tf = tp_peak_tflops(pk, dt, G->tc, &label);
    double peak_gbs = dev && dev->mem_bw > 0 ? (double)dev->mem_bw / 1e9 : pk ? pk->hbm_gbs : 0;
    if (dname[0] && !*devname)
        *devname = dname;
    if (pk || peak_gbs > 0)
        *peaks_used = 1;
    tp_table_add_row(t);
    tp_table_set_str(t, C_NAME, G->name);
    tp_table_set_str(t, C_SHAPE, shape);
    tp_table_set_str(t, C_CAT, tp_category_name(tp_category_of(G->name, G->kernel, 0)));
    tp_table_set_str(t, C_DTYPE, tp_dtype_name(dt));
    tp_table_set_int(t, C_CALLS, G->calls);
    tp_table_set_int(t, C_KERNELS, G->kernels);
    tp_table_set_int(t, C_TIME, G->time);
    tp_table_set_str(t, C_PEAK, label);
    if (peak_tf > 0)
        tp_table_set_float(t, C_PEAK_TF, peak_tf);
    if (peak_gbs > 0)
        tp_table_set_float(t, C_PEAK_BW, peak_gbs / 1000.0);
    tp_table_set_str(t, C_DEVICE, dname[0] ? dname : "-");
    tp_table_set_float(t, C_PCT, all_ns ? 100.0 * (double)G->time / (double)all_ns : 0.0);
    if (!G->known)
        return;
    if (G->flops <= 9007199254740992.0)   /* exact in a double: print as an integer */
        tp_table_set_int(t, C_FLOPS, (int64_t)G->flops);
    else
        tp_table_set_float(t, C_FLOPS, G->flops);
    if (G->bytes <= 9007199254740992.0)
        tp_table_set_int(t, C_BYTES, (int64_t)G->bytes);
    else
        tp_table_set_float(t, C_BYTES, G->bytes);
    if (G->time <= 0)
        return;
    double tflops = G->flops / (double)G->time / 1e3, tbs = G->bytes / (double)G->time / 1e3;
    tp_table_set_float(t, C_TFLOPS, tflops);
    tp_table_set_float(t, C_TBS, tbs);
    if (G->bytes > 0)
        tp_table_set_float(t, C_AI, G->flops / G->bytes);
    if (peak_tf > 0)
        tp_table_set_float(t, C_PCT_C, 100.0 * tflops / peak_tf);
    if (peak_gbs > 0)
        tp_table_set_float(t, C_PCT_BW, 100.0 * tbs / (peak_gbs / 1000.0));
    if (peak_tf > 0 && peak_gbs > 0 && G->bytes > 0)
        tp_table_set_str(t, C_BOUND, G->flops / G->bytes >= peak_tf * 1e12 / (peak_gbs * 1e9) ? "compute" : "memory");
}

/* A call's Input Dims as compact text: through memo (input_dims id ->
 * its compact text's id in shapes, + 1) when the id is below nmemo, else
 * into buf.  NULL: out of memory. */
static const char *dims_shape(const tp_store *st, uint32_t input_dims, uint32_t *memo, size_t nmemo,
                              tp_strtab *shapes, char *buf, size_t cap)
{
    const char *text = input_dims ? tp_store_str(st, input_dims) : "";
    if (input_dims >= nmemo) {
        tp_json_compact(text, buf, cap);
        return buf;
    }
    uint32_t *m = &memo[input_dims];
    if (!*m) {
        tp_json_compact(text, buf, cap);
        uint32_t sid = tp_strtab_intern(shapes, buf, strlen(buf));
        if (sid == UINT32_MAX)
            return NULL;
        *m = sid + 1;
    }
    return tp_strtab_get(shapes, *m - 1);
}

/* The group id of (name, shape), interned as "name\x1fshape" in keys (key:
 * a buffer grown as needed); UINT32_MAX out of memory. */
static uint32_t group_key(tp_strtab *keys, const char *name, const char *shape, char **key, size_t *keycap)
{
    size_t nl = strlen(name), sl = strlen(shape), need = nl + sl + 2;
    if (need > *keycap) {
        char *k2 = realloc(*key, need * 2);
        if (!k2)
            return UINT32_MAX;
        *key = k2;
        *keycap = need * 2;
    }
    memcpy(*key, name, nl);
    (*key)[nl] = '\x1f';
    memcpy(*key + nl + 1, shape, sl + 1);
    return tp_strtab_intern(keys, *key, nl + 1 + sl);
}

int tp_roofline_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    tp_table *prof = NULL, *t = NULL;
    struct tp_view_opts pvo = {0};
    if (vo)
        pvo = *vo;
    /* the six columns of prof's table read below: its other cells (245K
     * rows of 22 on a 1 GB trace) cost nothing left out */
    pvo.need_columns = "op,opname,params,tc,flops,bytes";
    int rc = tp_view_prof.build(st, &pvo, &prof, err);
    if (rc != TP_OK)
        return rc;
    const struct tp_coldef *pc = tp_table_coldefs(prof);
    size_t pn = tp_table_cols(prof);
    long c_op = tp_table_col_find(pc, pn, "op"), c_opname = tp_table_col_find(pc, pn, "opname"),
         c_params = tp_table_col_find(pc, pn, "params"), c_tc = tp_table_col_find(pc, pn, "tc"),
         c_flops = tp_table_col_find(pc, pn, "flops"), c_bytes = tp_table_col_find(pc, pn, "bytes");
    size_t nrows = tp_table_rows(prof);
    tp_strtab keys = {0};   /* freed whatever its init did: a partial init holds blocks */
    /* the operator events seen: a bit per store row (a hash map of them
     * probed a random slot per kernel, a third of this view's own time) */
    uint64_t *seen = calloc(st->n / 64 + 1, sizeof *seen);
    struct grp *g = calloc(nrows + 1, sizeof *g);
    size_t *perm = malloc((nrows + 1) * sizeof *perm);
    char *key = NULL, dims[4096];
    size_t keycap = 0;
    int keys_ok = tp_strtab_init(&keys) == 0;
    /* an operator's Input Dims compacted once per distinct text, not once
     * per kernel: input_dims id -> its compact text's id in shapes, + 1 */
    tp_strtab shapes = {0};
    size_t nmemo = st->strings.count + 1;
    uint32_t *dims_memo = calloc(nmemo, sizeof *dims_memo);
    int shapes_ok = tp_strtab_init(&shapes) == 0;
    if (!g || !perm || !keys_ok || !seen || !dims_memo || !shapes_ok) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
        goto done;
    }
    int64_t all_ns = 0, known_ns = 0;
    for (size_t i = 0; i < nrows && i < st->nannots; i++) {
        const struct tp_kernel_annot *a = &st->annots[i];
        size_t r = a->event;
        const char *name = tp_table_cell_str(prof, i, (size_t)c_opname);
        if (!name || strcmp(name, "N/A") == 0)
            name = tp_table_cell_str(prof, i, (size_t)c_op);
        if (!name || !*name)
            name = "N/A";   /* a kernel no operator or marker launched */
        const char *params = tp_table_cell_str(prof, i, (size_t)c_params);
        int fk, bk;
        double flops = cell_num(prof, i, c_flops, &fk), bytes = cell_num(prof, i, c_bytes, &bk);
        int known = fk && bk && params && strncmp(params, "na=na", 5) != 0;
        /* a call without a formula: its operator's Input Dims tell shapes apart */
        const char *shape = params ? params : "";
        if (!known)
            shape = dims_shape(st, a->input_dims, dims_memo, nmemo, &shapes, dims, sizeof dims);
        uint32_t id = shape ? group_key(&keys, name, shape, &key, &keycap) : UINT32_MAX;
        if (id == UINT32_MAX) {
            rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
            goto done;
        }
        struct grp *G = &g[id];   /* ids are dense from 1: at most one per row */
        if (!G->name) {
            G->name = name ? name : "";
            G->shape_at = strlen(name ? name : "") + 1;
            G->kernel = tp_store_str(st, st->name[r]);
            G->known = known;
            G->device = st->device[r];
        }
        /* a new call: a new launching operator event, else (PyProf rows,
         * kernels outside operators) sub-sequence 0 */
        int new_call = a->op_event < 0 ? a->sub == 0 : 0;
        if (a->op_event >= 0) {
            uint64_t bit = UINT64_C(1) << (a->op_event & 63), *w = &seen[(size_t)a->op_event >> 6];
            new_call = !(*w & bit);
            *w |= bit;
        }
        if (new_call || G->calls == 0) {
            G->calls++;
            G->flops += flops;
            G->bytes += bytes;
        }
        const char *tc = tp_table_cell_str(prof, i, (size_t)c_tc);
        if (tc && strcmp(tc, "1") == 0)
            G->tc = 1;
        G->kernels++;
        G->time += st->dur[r];
        all_ns += st->dur[r];
        if (known)
            known_ns += st->dur[r];
    }
    size_t ng = 0;
    for (size_t id = 0; id <= nrows; id++)
        if (g[id].name)
            perm[ng++] = id;
    g_g = g;
    qsort(perm, ng, sizeof *perm, cmp_grp);
    t = tp_table_new(tp_roofline_cols, C_N);
    if (!t) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
        goto done;
    }
    const char *devname = NULL;
    int peaks_used = 0;
    for (size_t k = 0; k < ng; k++)
        put_row(t, st, &g[perm[k]], tp_strtab_get(&keys, (uint32_t)perm[k]) + g[perm[k]].shape_at, all_ns,
                &devname, &peaks_used);
    if (nrows == 0)
        tp_error_set(err, TP_OK, "%s: no GPU kernel: no roofline", st->path);
    else
        tp_error_set(err, TP_OK, "%s: FLOPs and bytes known for %.1f%% of kernel time; %s%s%s", st->path,
                     all_ns ? 100.0 * (double)known_ns / (double)all_ns : 0.0,
                     peaks_used ? "peaks of " : "no peak known for ",
                     devname ? devname : "an unnamed device",
                     peaks_used ? "" : " (tprof(1), ROOFLINE): the %-of-peak columns are -");
    /* the prof table's strings are referenced by t's rows: copied on set */
    rc = tp_table_take(&t, out, st->path, err);   /* (out of memory overrides the note) */
done:
    tp_table_free(t);
    tp_table_free(prof);
    tp_strtab_free(&keys);
    tp_strtab_free(&shapes);
    free(dims_memo);
    free(seen);
    free(g);
    free(perm);
    free(key);
    return rc;
}
