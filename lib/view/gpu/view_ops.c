/* view_ops.c — `tprof ops`: the TensorBoard plugin's Operator view, one row
 * per operator (or operator and input shape, or operator and the first
 * frames of its call stack: ops_stack.c) of the plugin's operator tree
 * (model/tbtree.c, built once per store). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "table.h"
#include "memory_attr.h"
#include "tbtree.h"
#include "views.h"
#include "i64map.h"
#include "tb_classify.h"
#include "view_extra.h"
#include "view_options.h"

/* ---- the view ---- */

static const struct tp_coldef ops_cols[] = {
    {"name", "Name", TP_COL_STR, -1, 0, "operator name"},
    {"shape", "Input Shape", TP_COL_STR, -1, 0, "input shapes (--group shape)"},
    {"calls", "Calls", TP_COL_INT, -1, 0, "number of calls"},
    {"dev_self", "DeviceSelf(us)", TP_COL_US, -1, 0, "device time of kernels launched by the op itself"},
    {"dev_total", "DeviceTotal(us)", TP_COL_US, -1, 0, "device time including child operators"},
    {"host_self", "HostSelf(us)", TP_COL_US, -1, 0, "host time minus child operators and own runtime calls"},
    {"host_total", "HostTotal(us)", TP_COL_US, -1, 0, "host time"},
    {"tc", "TCEligible", TP_COL_STR, -1, 0, "operator is Tensor Core eligible (Yes/No)"},
    {"tc_self", "TCSelf(%)", TP_COL_FIXED, -1, 2, "Tensor Core kernel time / self device time"},
    {"tc_total", "TCTotal(%)", TP_COL_FIXED, -1, 2, "Tensor Core kernel time / total device time"},
    /* torch.profiler key_averages().table() columns */
    {"self_cpu_pct", "SelfCPU(%)", TP_COL_FIXED, -1, 2, "host self time / Self CPU time total (key_averages' Self CPU %)"},
    {"cpu_total_pct", "CPUTotal(%)", TP_COL_FIXED, -1, 2, "host total time / Self CPU time total (key_averages' CPU total %)"},
    {"cpu_avg", "CPUAvg(us)", TP_COL_US, -1, 0, "host total time per call (key_averages' CPU time avg)"},
    {"self_cuda_pct", "SelfCUDA(%)", TP_COL_FIXED, -1, 2, "device self time / Self CUDA time total (key_averages' Self CUDA %)"},
    {"cuda_total_pct", "CUDATotal(%)", TP_COL_FIXED, -1, 2, "device total time / Self CUDA time total (key_averages' CUDA total %)"},
    {"cuda_avg", "CUDAAvg(us)", TP_COL_US, -1, 0, "device total time per call (key_averages' CUDA time avg)"},
    {"cpu_mem", "CPUMem(B)", TP_COL_INT, -1, 0, "CPU bytes allocated minus freed, children included (CPU Mem)"},
    {"self_cpu_mem", "SelfCPUMem(B)", TP_COL_INT, -1, 0, "CPU bytes allocated minus freed by the op itself (Self CPU Mem)"},
    {"dev_mem", "DevMem(B)", TP_COL_INT, -1, 0, "device bytes allocated minus freed, children included (CUDA Mem)"},
    {"self_dev_mem", "SelfDevMem(B)", TP_COL_INT, -1, 0, "device bytes allocated minus freed by the op itself (Self CUDA Mem)"},
    /* --group category (ops_category.c builds that table) */
    {"category", "Category", TP_COL_STR, -1, 0, "operator category after TraceLens (--group category)"},
    {"pct", "Pct", TP_COL_FIXED, -1, 2, "share of the table's device time (%, --group category)"},
    {"cum_pct", "CumPct", TP_COL_FIXED, -1, 2, "running total of Pct (--group category)"},
    {"stack", "Source Location", TP_COL_STR, -1, 0, "--group stack[=N]: the first N frames of the Call stack, "
                                                    "innermost first, joined by \" <- \" (- none recorded)"},
};
enum { C_NAME, C_SHAPE, C_CALLS, C_DSELF, C_DTOT, C_HSELF, C_HTOT, C_TC, C_TCS, C_TCT,
       C_SCPUP, C_CPUP, C_CPUAVG, C_SCUDAP, C_CUDAP, C_CUDAAVG, C_CPUMEM, C_SCPUMEM, C_DEVMEM, C_SDEVMEM,
       C_CATEGORY, C_PCT, C_CUMPCT, C_STACK };

/* key_averages' "Self CUDA time total": the self device time of every event
 * it lists sums to all GPU activity (kernels, copies, sets), whether or not an
 * operator launched it. */
static int64_t self_cuda_total(const tp_store *st)
{
    int64_t total = 0;
    for (size_t i = 0; i < st->n; i++) {
        uint8_t k = st->kind[i];
        if (st->ph[i] == 'X' && (k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET) && st->dur[i] > 0)
            total += st->dur[i];
    }
    return total;
}

/* Python repr of a JSON value: ", " and ": " separators, 'single' quotes. */
static void pyrepr(const char *j, char *out, size_t cap)
{
    size_t o = 0;
    int instr = 0;
    if (!j || !*j) j = "[]";
    for (; *j && o + 3 < cap; j++) {
        char c = *j;
        if (instr) {
            if (c == '\\' && j[1]) { out[o++] = c; out[o++] = *++j; continue; }
            if (c == '"') { out[o++] = '\''; instr = 0; continue; }
            out[o++] = c;
            continue;
        }
        if (c == '"') { out[o++] = '\''; instr = 1; }
        else if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
        else if (c == ',') { out[o++] = ','; out[o++] = ' '; }
        else if (c == ':') { out[o++] = ':'; out[o++] = ' '; }
        else if (strncmp(j, "null", 4) == 0) { if (o + 4 < cap) { memcpy(out + o, "None", 4); o += 4; } j += 3; }
        else if (strncmp(j, "true", 4) == 0) { if (o + 4 < cap) { memcpy(out + o, "True", 4); o += 4; } j += 3; }
        else if (strncmp(j, "false", 5) == 0) { if (o + 5 < cap) { memcpy(out + o, "False", 5); o += 5; } j += 4; }
        else out[o++] = c;
    }
    out[o] = 0;
}

struct agg {
    const char *name;
    char *detail;    /* --group shape: the input shapes; stack: the frames ("" none) */
    int64_t calls, dself, dtot, hself, htot, tcs, tct;
    int elig;
    int64_t cpu_mem, self_cpu_mem, dev_mem, self_dev_mem;   /* bytes, with [memory] events */
};

/* key_averages' "Self CPU time total": the self time of every host event
 * torch lists (CPU ops, annotations, runtime and driver calls) sums to the
 * time of the outermost ones, those no other such event on the thread
 * encloses (python_function frames are not torch events: skipped). */
static int64_t self_cpu_total(const tp_store *st)
{
    if (!st->parent)
        return 0;
    signed char *inner = calloc(st->n ? st->n : 1, 1);   /* 0 unknown, 1 enclosed, -1 outermost */
    int64_t *path = malloc((st->n ? st->n : 1) * sizeof *path);
    int64_t total = 0;
    if (!inner || !path) {   /* -1: out of memory (the view says so; 0 would be a wrong percentage) */
        free(inner);
        free(path);
        return -1;
    }
    for (size_t i = 0; i < st->n; i++) {
        uint8_t k = st->kind[i];
        if (st->ph[i] != 'X' || (k != TP_K_CPU_OP && k != TP_K_USER_ANNOTATION && k != TP_K_RUNTIME && k != TP_K_DRIVER))
            continue;
        /* walk up past python frames to the first torch event; memoize the path */
        size_t np = 0;
        int64_t p = st->parent[i];
        signed char v = -1;
        while (p >= 0) {
            uint8_t pk = st->kind[p];
            if (pk != TP_K_PYTHON_FUNCTION) { v = 1; break; }
            if (inner[p]) { v = inner[p]; break; }
            path[np++] = p;
            p = st->parent[p];
        }
        for (size_t j = 0; j < np; j++)
            inner[path[j]] = v;   /* "is there a torch event above this python frame" */
        if (v < 0)
            total += st->dur[i];
    }
    free(inner);
    free(path);
    return total;
}

/* Bytes per operator node, attributed as the memory view does (memory_attr.c):
 * self = the node's own records, total = its subtree's.  Returns the
 * subtree totals of node ni through *cpu / *dev and adds into the aggregates. */
static void mem_subtree(const struct tb_model *m, int64_t ni, const int64_t *self_c, const int64_t *self_d,
                        const int64_t *node_agg, struct agg *aggs, int64_t *cpu, int64_t *dev)
{
    int64_t c = self_c[ni], d = self_d[ni];
    for (int64_t ch = m->nodes[ni].first_child; ch >= 0; ch = m->nodes[ch].next_sib) {
        int64_t cc = 0, dd = 0;
        mem_subtree(m, ch, self_c, self_d, node_agg, aggs, &cc, &dd);
        c += cc;
        d += dd;
    }
    if (node_agg[ni] >= 0) {
        struct agg *A = &aggs[node_agg[ni]];
        A->cpu_mem += c;
        A->dev_mem += d;
        A->self_cpu_mem += self_c[ni];
        A->self_dev_mem += self_d[ni];
    }
    *cpu = c;
    *dev = d;
}

/* Fill the memory columns of aggs (node_agg: node -> agg index, -1 none);
 * 1 when the store has [memory] events, 0 when not, -1 out of memory. */
static int ops_memory(const tp_store *st, const struct tb_model *m, const int64_t *node_agg, struct agg *aggs)
{
    struct tp_mem mem;
    if (tp_mem_collect(st, m, &mem) < 0)
        return -1;
    if (mem.n == 0) {
        tp_mem_free(&mem);
        return 0;
    }
    int64_t *self_c = calloc(m->nnodes ? m->nnodes : 1, sizeof *self_c);
    int64_t *self_d = calloc(m->nnodes ? m->nnodes : 1, sizeof *self_d);
    if (!self_c || !self_d) {
        free(self_c);
        free(self_d);
        tp_mem_free(&mem);
        return -1;
    }
    for (size_t k = 0; k < mem.n; k++) {
        const struct tp_memrec *r = &mem.recs[k];
        if (r->node < 0 || r->dev < 0)
            continue;
        if (mem.devs[r->dev].type == 0)
            self_c[r->node] += r->bytes;
        else
            self_d[r->node] += r->bytes;
    }
    for (size_t i = 0; i < m->nroots; i++) {
        int64_t c, d;
        mem_subtree(m, m->roots[i], self_c, self_d, node_agg, aggs, &c, &d);
    }
    free(self_c);
    free(self_d);
    tp_mem_free(&mem);
    return 1;
}

static _Thread_local struct agg *g_aggs;
static _Thread_local int g_by_dev;
static int cmp_agg(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int64_t vx = g_by_dev ? g_aggs[x].dself : g_aggs[x].hself;
    int64_t vy = g_by_dev ? g_aggs[y].dself : g_aggs[y].hself;
    if (vx != vy) return vx > vy ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    if (vo && vo->group && strcmp(vo->group, "category") == 0)
        return tp_ops_by_category(st, out, err);
    int by_shape = vo && vo->group && (strcmp(vo->group, "shape") == 0 || strcmp(vo->group, "input") == 0);
    long by_stack = tp_ops_stack_depth(vo ? vo->group : NULL);
    if (by_stack < 0)
        return tp_error_set(err, TP_ERR_USAGE, "ops: --group stack=N: '%s' is not a positive number of frames",
                            vo->group + 6);
    if (vo && vo->group && !by_shape && !by_stack && strcmp(vo->group, "name") != 0)
        return tp_error_set(err, TP_ERR_USAGE, "ops: --group must be name, shape, stack[=N] or category, not %s",
                            vo->group);
    int by_detail = by_shape || by_stack, any_stack = 0;
    const struct tb_model *mc = tp_store_tb(st);   /* built once per store */
    if (!mc)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    const struct tb_model m = *mc;
    struct agg *aggs = calloc(m.nops + 1, sizeof *aggs);
    int64_t *node_agg = malloc((m.nnodes + 1) * sizeof *node_agg);   /* node -> agg, for the memory columns */
    size_t na = 0;
    struct tp_i64map idx = {0};
    char sbuf[8192];
    struct tp_sbuf frames = {0};
    uint32_t *stacks = by_stack ? tp_ops_stacks(st) : NULL;   /* backward ops: their forward's */
    if (!aggs || !node_agg || tp_i64map_init(&idx, m.nops) < 0 || (by_stack && !stacks)) {
        free(aggs);
        free(node_agg);
        free(stacks);
        tp_i64map_free(&idx);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    int rc = TP_OK;
    for (size_t i = 0; i < m.nnodes; i++) node_agg[i] = -1;
    for (size_t i = 0; i < m.nops; i++) {
        struct tb_node *N = &m.nodes[m.ops[i]];
        uint64_t h = 1469598103934665603ULL;
        for (const char *p = N->name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        sbuf[0] = 0;
        const char *detail = sbuf;
        if (by_stack) {
            frames.len = 0;
            uint32_t cs = stacks[N->row];
            any_stack |= tp_ops_stack_frames(cs ? tp_store_str(st, cs) : NULL, by_stack, &frames) > 0;
            tp_sbuf_putc(&frames, 0);
            if (frames.oom) { rc = TP_ERR_NOMEM; break; }
            detail = frames.p;
        }
        if (by_shape) {
            const char *dims = NULL;
            if (st->aux[N->row] != TP_NO_AUX && st->ops[st->aux[N->row]].input_dims)
                dims = tp_store_str(st, st->ops[st->aux[N->row]].input_dims);
            pyrepr(dims, sbuf, sizeof sbuf);
        }
        if (by_detail) {
            h = (h ^ 0xff) * 1099511628211ULL;
            for (const char *p = detail; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        }
        int64_t key = (int64_t)(h & 0x3fffffffffffffffULL);
        /* probe chain of aggs with this hash key: linear scan on collision */
        int64_t *slot = tp_i64map_slot(&idx, key);
        int64_t a = slot ? *slot : -1;
        while (slot && a >= 0 &&
               (strcmp(aggs[a].name, N->name) != 0 || (by_detail && strcmp(aggs[a].detail, detail) != 0))) {
            key = (key * 31 + 7) & 0x3fffffffffffffffLL;
            slot = tp_i64map_slot(&idx, key);
            a = slot ? *slot : -1;
        }
        if (!slot) { rc = TP_ERR_NOMEM; break; }
        if (a < 0) {
            a = (int64_t)na++;
            *slot = a;
            aggs[a].name = N->name;
            aggs[a].detail = by_detail ? strdup(detail) : NULL;
            aggs[a].elig = N->tc_elig;
            if (by_detail && !aggs[a].detail) { rc = TP_ERR_NOMEM; break; }
        }
        struct agg *A = &aggs[a];
        node_agg[m.ops[i]] = a;
        A->calls++;
        A->htot += N->end - N->start;
        A->hself += N->self_host;
        A->dtot += N->dev;
        A->dself += N->self_dev;
        A->tcs += N->tc_self;
        A->tct += N->tc_total;
    }
    int have_mem = rc == TP_OK ? ops_memory(st, &m, node_agg, aggs) : 0;
    int64_t cpu_total = self_cpu_total(st), cuda_total = self_cuda_total(st);
    size_t *perm = malloc((na + 1) * sizeof *perm);
    tp_table *t = tp_table_new(ops_cols, sizeof ops_cols / sizeof *ops_cols);
    if (rc != TP_OK || have_mem < 0 || cpu_total < 0 || !perm || !t) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    } else {
        for (size_t i = 0; i < na; i++) perm[i] = i;
        g_aggs = aggs;
        g_by_dev = m.has_kernel || m.has_memcpy_or_memset;
        qsort(perm, na, sizeof *perm, cmp_agg);
        for (size_t k = 0; k < na; k++) {
            struct agg *A = &aggs[perm[k]];
            tp_table_add_row(t);
            tp_table_set_str(t, C_NAME, A->name);
            if (by_shape) tp_table_set_str(t, C_SHAPE, A->detail);
            if (by_stack && A->detail[0]) tp_table_set_str(t, C_STACK, A->detail);
            tp_table_set_int(t, C_CALLS, A->calls);
            tp_table_set_int(t, C_DSELF, A->dself);
            tp_table_set_int(t, C_DTOT, A->dtot);
            tp_table_set_int(t, C_HSELF, A->hself);
            tp_table_set_int(t, C_HTOT, A->htot);
            tp_table_set_str(t, C_TC, A->elig ? "Yes" : "No");
            tp_table_set_float(t, C_TCS, A->dself ? 100.0 * (double)A->tcs / (double)A->dself : 0.0);
            tp_table_set_float(t, C_TCT, A->dtot ? 100.0 * (double)A->tct / (double)A->dtot : 0.0);
            if (cpu_total > 0) {
                tp_table_set_float(t, C_SCPUP, 100.0 * (double)A->hself / (double)cpu_total);
                tp_table_set_float(t, C_CPUP, 100.0 * (double)A->htot / (double)cpu_total);
            }
            tp_table_set_int(t, C_CPUAVG, (A->htot + A->calls / 2) / A->calls);   /* nearest ns */
            if (cuda_total > 0) {
                tp_table_set_float(t, C_SCUDAP, 100.0 * (double)A->dself / (double)cuda_total);
                tp_table_set_float(t, C_CUDAP, 100.0 * (double)A->dtot / (double)cuda_total);
            }
            tp_table_set_int(t, C_CUDAAVG, (A->dtot + A->calls / 2) / A->calls);
            if (have_mem) {
                tp_table_set_int(t, C_CPUMEM, A->cpu_mem);
                tp_table_set_int(t, C_SCPUMEM, A->self_cpu_mem);
                tp_table_set_int(t, C_DEVMEM, A->dev_mem);
                tp_table_set_int(t, C_SDEVMEM, A->self_dev_mem);
            }
        }
        /* key_averages' footer (when there is host time to total: a trace
         * without CPU events has none to speak of) */
        char line[96], v[32];
        if (cpu_total > 0) {
            tp_fmt_human_time((double)cpu_total / 1000.0, TP_UNIT_DEFAULT, v, sizeof v);   /* _format_time */
            snprintf(line, sizeof line, "Self CPU time total: %s", v);
            tp_table_add_footer(t, line);
            if (m.has_kernel || m.has_memcpy_or_memset) {
                tp_fmt_human_time((double)cuda_total / 1000.0, TP_UNIT_DEFAULT, v, sizeof v);
                snprintf(line, sizeof line, "Self CUDA time total: %s", v);
                tp_table_add_footer(t, line);
            }
        }
        *out = t;
        t = NULL;
        /* key_averages(group_by_stack_n=N) of such a trace is its plain
         * table: so is this one, with a word on why */
        if (by_stack && !any_stack && na)
            tp_error_set(err, TP_OK, "%s: no operator has a call stack (record with with_stack=True): "
                         "one row per name, as key_averages(group_by_stack_n=%ld) gives", st->path, by_stack);
    }
    if (t) tp_table_free(t);
    for (size_t i = 0; i < na; i++) free(aggs[i].detail);
    tp_sbuf_free(&frames);
    free(stacks);
    free(aggs);
    free(node_agg);
    free(perm);
    tp_i64map_free(&idx);
    return rc;
}

static const char *columns_for(const struct tp_view_opts *vo)
{
    if (!vo || !vo->group)
        return NULL;
    if (strcmp(vo->group, "shape") == 0 || strcmp(vo->group, "input") == 0)
        return "name,shape,calls,dev_self,dev_total,host_self,host_total,tc";
    if (strcmp(vo->group, "category") == 0)
        return tp_ops_category_columns;
    if (tp_ops_stack_depth(vo->group) > 0)   /* key_averages prints the stack last */
        return "name,calls,dev_self,dev_total,host_self,host_total,tc,stack";
    return NULL;
}

static const struct tp_view_option ops_options[] = {
    TP_VOPT_FILTERS,
    TP_VOPT_STRING("group", "G", group, "name (default), shape: per input shape, stack[=N]: per name and the "
                   "first N (5) frames of its call stack (key_averages' group_by_stack_n), or category: "
                   "TraceLens' op categories (Ascend: name, shape, stack)"),
};

const tp_view tp_view_ops = {
    .name = "ops",
    .summary = "TensorBoard plugin Operator view: device/host self and total time per operator",
    .cols = ops_cols,
    .ncols = sizeof ops_cols / sizeof *ops_cols,
    .default_columns = "name,calls,dev_self,dev_total,host_self,host_total,tc",
    .build = build,
    .columns_for = columns_for,
    .attributes = TP_ATTRIBUTES_ALWAYS,
    TP_VIEW_OPTIONS(ops_options),
};
