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
#include "tb_classify.h"
#include "view_extra.h"
#include "view_options.h"
#include "summ.h"

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

/* The summary of an operator group (summ.h): calls and host total time are
 * its count and sum (its durations the host times), and these sums: */
enum { X_DSELF, X_DTOT, X_HSELF, X_TCS, X_TCT, X_CPUMEM, X_SCPUMEM, X_DEVMEM, X_SDEVMEM, X_N };
/* section-wide: key_averages' totals; flags: the trace has GPU activity
 * (sort by device time), it has [memory] events */
enum { S_CPU_TOTAL, S_CUDA_TOTAL };
enum { F_BY_DEV = 1, F_MEM = 2, F_ANY_STACK = 4 };   /* below TP_SUMM_PARAM_SHIFT: the stack depth */

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
                        const int64_t *node_agg, struct tp_sgroup *aggs, int64_t *cpu, int64_t *dev)
{
    int64_t c = self_c[ni], d = self_d[ni];
    for (int64_t ch = m->nodes[ni].first_child; ch >= 0; ch = m->nodes[ch].next_sib) {
        int64_t cc = 0, dd = 0;
        mem_subtree(m, ch, self_c, self_d, node_agg, aggs, &cc, &dd);
        c += cc;
        d += dd;
    }
    if (node_agg[ni] >= 0) {
        struct tp_sgroup *A = &aggs[node_agg[ni]];
        A->x[X_CPUMEM] += c;
        A->x[X_DEVMEM] += d;
        A->x[X_SCPUMEM] += self_c[ni];
        A->x[X_SDEVMEM] += self_d[ni];
    }
    *cpu = c;
    *dev = d;
}

/* Fill the memory columns of aggs (node_agg: node -> agg index, -1 none);
 * 1 when the store has [memory] events, 0 when not, -1 out of memory. */
static int ops_memory(const tp_store *st, const struct tb_model *m, const int64_t *node_agg, struct tp_sgroup *aggs)
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

/* The operators of a store as a summary section: one group per name (or
 * name and input shape, or name and the first by_stack frames of its call
 * stack), first seen in the trees' post-order, thread by thread. */
static int summarize(const tp_store *st, struct tp_section *sec, int by_shape, long by_stack, tp_error *err)
{
    const struct tb_model *mc = tp_store_tb(st);   /* built once per store */
    if (!mc)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    const struct tb_model m = *mc;
    int64_t *node_agg = malloc((m.nnodes + 1) * sizeof *node_agg);   /* node -> group, for the memory columns */
    char *sbuf = malloc(8192);
    struct tp_sbuf frames = {0};
    uint32_t *stacks = by_stack ? tp_ops_stacks(st) : NULL;   /* backward ops: their forward's */
    int rc = TP_OK;
    if (!node_agg || !sbuf || (by_stack && !stacks))
        rc = TP_ERR_NOMEM;
    for (size_t i = 0; rc == TP_OK && i < m.nnodes; i++) node_agg[i] = -1;
    for (size_t i = 0; rc == TP_OK && i < m.nops; i++) {
        struct tb_node *N = &m.nodes[m.ops[i]];
        sbuf[0] = 0;
        const char *detail = sbuf;
        if (by_stack) {
            frames.len = 0;
            uint32_t cs = stacks[N->row];
            if (tp_ops_stack_frames(cs ? tp_store_str(st, cs) : NULL, by_stack, &frames) > 0)
                sec->flags |= F_ANY_STACK;
            tp_sbuf_putc(&frames, 0);
            if (frames.oom) { rc = TP_ERR_NOMEM; break; }
            detail = frames.p;
        }
        if (by_shape) {
            const char *dims = NULL;
            if (st->aux[N->row] != TP_NO_AUX && st->ops[st->aux[N->row]].input_dims)
                dims = tp_store_str(st, st->ops[st->aux[N->row]].input_dims);
            pyrepr(dims, sbuf, 8192);
        }
        const char *key[] = {N->name, detail};
        struct tp_sgroup *A = tp_summ_group(sec, key);
        if (!A || tp_summ_add(A, N->end - N->start) < 0 || tp_summ_seen(sec, A, N->tid, (int64_t)i) < 0) {
            rc = TP_ERR_NOMEM;
            break;
        }
        if (A->n == 1)
            A->flag = N->tc_elig;
        node_agg[m.ops[i]] = A - sec->g;
        A->x[X_HSELF] += N->self_host;
        A->x[X_DTOT] += N->dev;
        A->x[X_DSELF] += N->self_dev;
        A->x[X_TCS] += N->tc_self;
        A->x[X_TCT] += N->tc_total;
    }
    int have_mem = rc == TP_OK ? ops_memory(st, &m, node_agg, sec->g) : 0;
    int64_t cpu_total = self_cpu_total(st);
    if (rc != TP_OK || have_mem < 0 || cpu_total < 0)
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    sec->scal[S_CPU_TOTAL] = cpu_total;
    sec->scal[S_CUDA_TOTAL] = self_cuda_total(st);
    sec->flags |= (m.has_kernel || m.has_memcpy_or_memset ? F_BY_DEV : 0) | (have_mem > 0 ? F_MEM : 0);
    free(node_agg);
    free(sbuf);
    tp_sbuf_free(&frames);
    free(stacks);
    return rc;
}

static int summarize_name(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    return summarize(st, sec, 0, 0, err);
}

static int summarize_shape(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    return summarize(st, sec, 1, 0, err);
}

static int summarize_stack(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    return summarize(st, sec, 0, sec->flags >> TP_SUMM_PARAM_SHIFT, err);
}

/* By self device time (a trace with GPU activity), else by self host time;
 * ties in first-seen order. */
static int cmp_by(const struct tp_sgroup *const *a, const struct tp_sgroup *const *b, int x)
{
    int64_t vx = (*a)->x[x], vy = (*b)->x[x];
    if (vx != vy) return vx > vy ? -1 : 1;
    return tp_summ_cmp_order(a, b);
}
static int cmp_dev(const struct tp_sgroup *const *a, const struct tp_sgroup *const *b)
{
    return cmp_by(a, b, X_DSELF);
}
static int cmp_host(const struct tp_sgroup *const *a, const struct tp_sgroup *const *b)
{
    return cmp_by(a, b, X_HSELF);
}

/* --plot: each row's share of the device self time (host self time in a
 * trace without GPU work, or the time column --sort names): self times
 * add up to the whole, so the shares do too. */
static const char *const share_cols[] = {"dev_self", "host_self", "dev_total", "host_total"};
static const struct tp_chart ops_chart = {TP_CHART_SHARE, "name", "shape", share_cols, 4, NULL, NULL, NULL};
static const struct tp_chart category_chart = {TP_CHART_SHARE, "category", NULL, share_cols, 1, NULL, NULL, NULL};

/* The table of a (merged) section: by_stack its stack depth, 0 none. */
static int ops_table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, int by_shape,
                     long by_stack, tp_table **out, tp_error *err)
{
    int64_t cpu_total = sec->scal[S_CPU_TOTAL], cuda_total = sec->scal[S_CUDA_TOTAL];
    const struct tp_sgroup **perm = tp_summ_sorted(sec, sec->flags & F_BY_DEV ? cmp_dev : cmp_host);
    tp_table *t = tp_table_new(ops_cols, sizeof ops_cols / sizeof *ops_cols);
    if (!perm || !t) {
        free(perm);
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < sec->ng; k++) {
        const struct tp_sgroup *A = perm[k];
        const int64_t *x = A->x;
        tp_table_add_row(t);
        tp_table_set_str(t, C_NAME, A->key[0]);
        if (by_shape) tp_table_set_str(t, C_SHAPE, A->key[1]);
        if (by_stack && A->key[1][0]) tp_table_set_str(t, C_STACK, A->key[1]);
        tp_table_set_int(t, C_CALLS, A->n);
        tp_table_set_int(t, C_DSELF, x[X_DSELF]);
        tp_table_set_int(t, C_DTOT, x[X_DTOT]);
        tp_table_set_int(t, C_HSELF, x[X_HSELF]);
        tp_table_set_int(t, C_HTOT, A->sum);
        tp_table_set_str(t, C_TC, A->flag ? "Yes" : "No");
        tp_table_set_float(t, C_TCS, x[X_DSELF] ? 100.0 * (double)x[X_TCS] / (double)x[X_DSELF] : 0.0);
        tp_table_set_float(t, C_TCT, x[X_DTOT] ? 100.0 * (double)x[X_TCT] / (double)x[X_DTOT] : 0.0);
        if (cpu_total > 0) {
            tp_table_set_float(t, C_SCPUP, 100.0 * (double)x[X_HSELF] / (double)cpu_total);
            tp_table_set_float(t, C_CPUP, 100.0 * (double)A->sum / (double)cpu_total);
        }
        tp_table_set_int(t, C_CPUAVG, (A->sum + A->n / 2) / A->n);   /* nearest ns */
        if (cuda_total > 0) {
            tp_table_set_float(t, C_SCUDAP, 100.0 * (double)x[X_DSELF] / (double)cuda_total);
            tp_table_set_float(t, C_CUDAP, 100.0 * (double)x[X_DTOT] / (double)cuda_total);
        }
        tp_table_set_int(t, C_CUDAAVG, (x[X_DTOT] + A->n / 2) / A->n);
        if (sec->flags & F_MEM) {
            tp_table_set_int(t, C_CPUMEM, x[X_CPUMEM]);
            tp_table_set_int(t, C_SCPUMEM, x[X_SCPUMEM]);
            tp_table_set_int(t, C_DEVMEM, x[X_DEVMEM]);
            tp_table_set_int(t, C_SDEVMEM, x[X_SDEVMEM]);
        }
    }
    /* key_averages' footer (when there is host time to total: a trace
     * without CPU events has none to speak of) */
    char line[96], v[32];
    if (cpu_total > 0) {
        tp_fmt_human_time((double)cpu_total / 1000.0, TP_UNIT_DEFAULT, v, sizeof v);   /* _format_time */
        snprintf(line, sizeof line, "Self CPU time total: %s", v);
        tp_table_add_footer(t, line);
        if (sec->flags & F_BY_DEV) {
            tp_fmt_human_time((double)cuda_total / 1000.0, TP_UNIT_DEFAULT, v, sizeof v);
            snprintf(line, sizeof line, "Self CUDA time total: %s", v);
            tp_table_add_footer(t, line);
        }
    }
    /* key_averages(group_by_stack_n=N) of such a trace is its plain
     * table: so is this one, with a word on why */
    if (by_stack && !(sec->flags & F_ANY_STACK) && sec->ng)
        tp_error_set(err, TP_OK, "%s: no operator has a call stack (record with with_stack=True): "
                     "one row per name, as key_averages(group_by_stack_n=%ld) gives", path, by_stack);
    if (vo && vo->plot)
        tp_table_set_chart(t, &ops_chart);
    free(perm);
    *out = t;
    return TP_OK;
}

static int table_name(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                      tp_error *err)
{
    return ops_table(sec, path, vo, 0, 0, out, err);
}

static int table_shape(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                       tp_error *err)
{
    return ops_table(sec, path, vo, 1, 0, out, err);
}

static int table_stack(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                       tp_error *err)
{
    long want = tp_ops_stack_depth(vo ? vo->group : NULL), have = sec->flags >> TP_SUMM_PARAM_SHIFT;
    if (want != have)   /* a summary file keeps the default depth */
        return tp_error_set(err, TP_ERR_FORMAT, "%s: the summary holds ops --group stack=%ld, not stack=%ld", path,
                            have, want);
    return ops_table(sec, path, vo, 0, have, out, err);
}

static int is_shape(const struct tp_view_opts *vo)
{
    return vo && vo->group && (strcmp(vo->group, "shape") == 0 || strcmp(vo->group, "input") == 0);
}

static int reads(const struct tp_view_opts *vo, const char *variant)
{
    if (is_shape(vo))
        return strcmp(variant, "shape") == 0;
    if (tp_ops_stack_depth(vo ? vo->group : NULL) > 0)
        return strcmp(variant, "stack") == 0;
    return (!vo || !vo->group || strcmp(vo->group, "name") == 0) && strcmp(variant, "name") == 0;
}

#define OPS_X {"dev_self_ns", "dev_total_ns", "host_self_ns", "tc_self_ns", "tc_total_ns", "cpu_mem_bytes", \
               "self_cpu_mem_bytes", "dev_mem_bytes", "self_dev_mem_bytes"}
static const struct tp_summ_desc desc_name = {
    .view = "ops", .variant = "name", .nkeys = 1, .nx = X_N, .nscal = 2,
    .keys = {"name"}, .xs = OPS_X, .scals = {"self_cpu_total_ns", "self_cuda_total_ns"},
};
static const struct tp_summ_desc desc_shape = {
    .view = "ops", .variant = "shape", .nkeys = 2, .nx = X_N, .nscal = 2,
    .keys = {"name", "shape"}, .xs = OPS_X, .scals = {"self_cpu_total_ns", "self_cuda_total_ns"},
};
static const struct tp_summ_desc desc_stack = {
    .view = "ops", .variant = "stack", .nkeys = 2, .nx = X_N, .nscal = 2,
    .keys = {"name", "stack"}, .xs = OPS_X, .scals = {"self_cpu_total_ns", "self_cuda_total_ns"},
};

/* The stack depth of a --group (a summary file: the default one). */
static long stack_depth(const struct tp_view_opts *vo)
{
    long n = tp_ops_stack_depth(vo ? vo->group : NULL);
    return n > 0 ? n : TP_OPS_STACK_DEFAULT;
}

const struct tp_summ_view tp_summ_ops_name = {&desc_name, "ops", reads, summarize_name, table_name, NULL};
const struct tp_summ_view tp_summ_ops_shape = {&desc_shape, "ops", reads, summarize_shape, table_shape, NULL};
const struct tp_summ_view tp_summ_ops_stack = {&desc_stack, "ops", reads, summarize_stack, table_stack,
                                              stack_depth};

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    if (vo && vo->group && strcmp(vo->group, "category") == 0) {
        int rc = tp_ops_by_category(st, out, err);
        if (rc == TP_OK && vo->plot)
            tp_table_set_chart(*out, &category_chart);
        return rc;
    }
    int by_shape = is_shape(vo);
    long by_stack = tp_ops_stack_depth(vo ? vo->group : NULL);
    if (by_stack < 0)
        return tp_error_set(err, TP_ERR_USAGE, "ops: --group stack=N: '%s' is not a positive number of frames",
                            vo->group + 6);
    if (vo && vo->group && !by_shape && !by_stack && strcmp(vo->group, "name") != 0)
        return tp_error_set(err, TP_ERR_USAGE, "ops: --group must be name, shape, stack[=N] or category, not %s",
                            vo->group);
    /* one trace is a run of one rank: its table comes from its summary */
    return tp_summ_view_build(by_shape ? &tp_summ_ops_shape : by_stack ? &tp_summ_ops_stack : &tp_summ_ops_name, st,
                              vo, out, err);
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
    TP_VOPT_FLAG("plot", plot, "a bar per operator: its share of the device self time (-w or terminal wide)"),
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
