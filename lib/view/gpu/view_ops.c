/* view_ops.c — `tprof ops`: the TensorBoard plugin's Operator view, one row
 * per operator (or operator and input shape, or operator and the first
 * frames of its call stack: ops_stack.c) of the plugin's operator tree
 * (model/tbtree.c, built once per store). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "store_file.h"
#include "table.h"
#include "coldefs.h"
#include "link.h"   /* tp_link_host_order */
#include "memory_attr.h"
#include "tbtree.h"
#include "views.h"
#include "tb_classify.h"
#include "view_extra.h"
#include "summ.h"
#include "agg.h"
#include "try.h"

/* ---- the view ---- */

#define TP_COLS_FILE "view_ops.def"
#define TP_COLS_ARRAY tp_ops_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

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

/* The host events torch lists (key_averages): CPU ops, annotations,
 * runtime and driver calls; python_function frames are not among them. */
/* key_averages' "Self CPU time total": the self time of every torch event
 * sums to the time of the outermost ones, those no other torch event on the
 * thread encloses, torch's nesting (tp_link_torch_parents: the linker's
 * tree nests them with the python frames, and a frame that straddles a
 * torch event's end made the events after it outermost; a torch.compile
 * trace of Flux counted 427 ms instead of 364).  -1: out of memory. */
static int64_t self_cpu_total(const tp_store *st)
{
    if (!st->parent)
        return 0;
    int32_t *tparent;
    if (tp_link_torch_parents(st, &tparent) < 0)
        return -1;
    const int32_t *parent = tparent ? tparent : st->parent;
    int64_t total = 0;
    for (size_t i = 0; i < st->n; i++)
        if (tp_link_is_torch_event(st, i) && parent[i] < 0)
            total += st->dur[i];
    free(tparent);
    return total;
}

/* Fill the memory columns of aggs (node_agg: node -> agg index, -1 none;
 * ng groups): the bytes attributed as the memory view does (memory_attr.c),
 * self = the node's own records, total = its subtree's, summed per group
 * straight from the records' walk (no record array, no pass over the
 * tree).  1 when the store has [memory] events, 0 when not, -1 out of
 * memory. */
static int ops_memory(const tp_store *st, const struct tb_model *m, const int64_t *node_agg, struct tp_sgroup *aggs,
                      size_t ng)
{
    struct tp_mem_sums *sums = calloc(ng ? ng : 1, sizeof *sums);
    int64_t n = sums ? tp_mem_op_sums(st, m, node_agg, sums) : -1;
    for (size_t g = 0; n > 0 && g < ng; g++) {
        aggs[g].x[X_CPUMEM] += sums[g].cpu;
        aggs[g].x[X_DEVMEM] += sums[g].dev;
        aggs[g].x[X_SCPUMEM] += sums[g].self_cpu;
        aggs[g].x[X_SDEVMEM] += sums[g].self_dev;
    }
    free(sums);
    return n < 0 ? -1 : n > 0;
}

/* The keys of an operator (agg.h): its name, its input shapes as Python
 * prints them, the first frames of its call stack (backward ops: their
 * forward's, tp_ops_stacks). */
struct oitem {
    const tp_store *st;
    const struct tb_node *n;
    const uint32_t *stacks;
    long depth;
    struct tp_section *sec;
};

static const char *key_name(const void *it, struct tp_sbuf *b)
{
    (void)b;
    return ((const struct oitem *)it)->n->name;
}
static const char *key_shape(const void *it, struct tp_sbuf *b)
{
    const struct oitem *o = it;
    const tp_store *st = o->st;
    const char *dims = NULL;
    if (st->aux[o->n->row] != TP_NO_AUX && st->ops[st->aux[o->n->row]].input_dims)
        dims = tp_store_str(st, st->ops[st->aux[o->n->row]].input_dims);
    tp_sbuf_pad(b, 0, 8192);
    if (b->oom)
        return NULL;
    pyrepr(dims, b->p, 8192);
    return b->p;
}
static const char *key_stack(const void *it, struct tp_sbuf *b)
{
    const struct oitem *o = it;
    uint32_t cs = o->stacks[o->n->row];
    if (tp_ops_stack_frames(cs ? tp_store_str(o->st, cs) : NULL, o->depth, b) > 0)
        o->sec->flags |= F_ANY_STACK;
    tp_sbuf_putc(b, 0);
    return b->oom ? NULL : b->p;
}

enum { KEY_NAME = 1, KEY_SHAPE = 2, KEY_STACK = 4 };
static const struct tp_agg_key ops_keys[] = {
    TP_AGG_KEY("name", key_name), TP_AGG_KEY("shape", key_shape), {"stack", key_stack, 1, 1, NULL},
};
#define SHAPE_COLUMNS "name,shape,calls,dev_self,dev_total,host_self,host_total,tc"
static const struct tp_agg_set ops_sets[] = {
    {"shape", KEY_NAME | KEY_SHAPE, SHAPE_COLUMNS}, {"input", KEY_NAME | KEY_SHAPE, SHAPE_COLUMNS},
    /* key_averages prints the stack last */
    {"stack", KEY_NAME | KEY_STACK, "name,calls,dev_self,dev_total,host_self,host_total,tc,stack"},
};
static const struct tp_agg_variant ops_variants[] = {
    {"stack", KEY_NAME | KEY_STACK, KEY_STACK}, {"shape", KEY_NAME | KEY_SHAPE, KEY_SHAPE}, {"name", KEY_NAME, 0},
};
#define SHARE(col, m, of) {col, TP_AGG_SHARE, m, of, 0, 0, NULL, 0, NULL}
#define MEM(col, x) {col, TP_AGG_SUM, x, 0, 0, F_MEM, NULL, 0, NULL}
static const struct tp_agg_metric ops_metrics[] = {
    TP_AGG_M("calls", TP_AGG_CALLS, TP_AGG_DUR), TP_AGG_M("dev_self", TP_AGG_SUM, X_DSELF),
    TP_AGG_M("dev_total", TP_AGG_SUM, X_DTOT), TP_AGG_M("host_self", TP_AGG_SUM, X_HSELF),
    TP_AGG_M("host_total", TP_AGG_SUM, TP_AGG_DUR), TP_AGG_M("tc", TP_AGG_FLAG, 0),
    {"tc_self", TP_AGG_RATIO, X_TCS, X_DSELF, 0, 0, NULL, 0, NULL},
    {"tc_total", TP_AGG_RATIO, X_TCT, X_DTOT, 0, 0, NULL, 0, NULL},
    SHARE("self_cpu_pct", X_HSELF, S_CPU_TOTAL), SHARE("cpu_total_pct", TP_AGG_DUR, S_CPU_TOTAL),
    TP_AGG_M("cpu_avg", TP_AGG_AVG, TP_AGG_DUR), SHARE("self_cuda_pct", X_DSELF, S_CUDA_TOTAL),
    SHARE("cuda_total_pct", X_DTOT, S_CUDA_TOTAL), TP_AGG_M("cuda_avg", TP_AGG_AVG, X_DTOT),
    MEM("cpu_mem", X_CPUMEM), MEM("self_cpu_mem", X_SCPUMEM), MEM("dev_mem", X_DEVMEM), MEM("self_dev_mem", X_SDEVMEM),
};
static const struct tp_agg_spec ops_spec = {
    .view = "ops", .cols = tp_ops_cols, .ncols = C_N, TP_AGG_ARRAY(keys, ops_keys),
    TP_AGG_ARRAY(sets, ops_sets), TP_AGG_ARRAY(metrics, ops_metrics), TP_AGG_ARRAY(variants, ops_variants),
    .default_keys = KEY_NAME, .metric_columns = "calls,dev_self,dev_total,host_self,host_total,tc",
    /* by self device time (a trace with GPU activity), else by self host time */
    .sort = {X_DSELF, X_HSELF, F_BY_DEV, 0, NULL},
    .others = "category",
    .param_bits = 20,   /* the stack depth (at most 1000000) */
};

/* The operators of a store as a summary section: one group per key set,
 * first seen in the trees' post-order, thread by thread. */
static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    const struct tb_model *mc = tp_store_tb(st);   /* built once per store */
    TP_TRY_NOMEM(mc, err);
    const struct tb_model m = *mc;
    unsigned keys = tp_agg_summarizing(&ops_spec, sec);
    struct oitem it = {st, NULL, NULL, tp_agg_section_own(&ops_spec, sec), sec};
    struct tp_agg_reader rd;
    int64_t *node_agg = malloc((m.nnodes + 1) * sizeof *node_agg);   /* node -> group, for the memory columns */
    uint32_t *stacks = keys & KEY_STACK ? tp_ops_stacks(st) : NULL;   /* backward ops: their forward's */
    int rc = tp_agg_reader_init(&rd, &ops_spec, keys, sec) < 0 || !node_agg || (keys & KEY_STACK && !stacks)
             ? TP_ERR_NOMEM : TP_OK;
    it.stacks = stacks;
    for (size_t i = 0; rc == TP_OK && i < m.nnodes; i++) node_agg[i] = -1;
    for (size_t i = 0; rc == TP_OK && i < m.nops; i++) {
        struct tb_node *N = &m.nodes[m.ops[i]];
        it.n = N;
        struct tp_sgroup *A = tp_agg_group(&rd, sec, &it);
        if (!A || tp_summ_add(A, N->end - N->start) < 0 || tp_summ_seen(sec, A, tb_node_tid(&m, N), (int64_t)i) < 0) {
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
    int have_mem = rc == TP_OK ? ops_memory(st, &m, node_agg, sec->g, sec->ng) : 0;
    int64_t cpu_total = self_cpu_total(st);
    if (rc != TP_OK || have_mem < 0 || cpu_total < 0)
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    sec->scal[S_CPU_TOTAL] = cpu_total;
    sec->scal[S_CUDA_TOTAL] = self_cuda_total(st);
    sec->flags |= (m.has_kernel || m.has_memcpy_or_memset ? F_BY_DEV : 0) | (have_mem > 0 ? F_MEM : 0);
    free(node_agg);
    tp_agg_reader_free(&rd);
    free(stacks);
    return rc;
}

/* --plot: each row's share of the device self time (host self time in a
 * trace without GPU work, or the time column --sort names): self times
 * add up to the whole, so the shares do too. */
static const char *const share_cols[] = {"dev_self", "host_self", "dev_total", "host_total"};
static const struct tp_chart ops_chart = {TP_CHART_SHARE, "name", "shape", share_cols, 4, NULL, NULL, NULL};
static const struct tp_chart category_chart = {TP_CHART_SHARE, "category", NULL, share_cols, 1, NULL, NULL, NULL};

/* key_averages' footer (when there is host time to total: a trace without
 * CPU events has none to speak of) */
static void footer(tp_table *t, const struct tp_section *sec)
{
    char line[96], v[32];
    if (sec->scal[S_CPU_TOTAL] <= 0)
        return;
    tp_fmt_human_time((double)sec->scal[S_CPU_TOTAL] / 1000.0, TP_UNIT_DEFAULT, v, sizeof v);   /* _format_time */
    snprintf(line, sizeof line, "Self CPU time total: %s", v);
    tp_table_add_footer(t, line);
    if (sec->flags & F_BY_DEV) {
        tp_fmt_human_time((double)sec->scal[S_CUDA_TOTAL] / 1000.0, TP_UNIT_DEFAULT, v, sizeof v);
        snprintf(line, sizeof line, "Self CUDA time total: %s", v);
        tp_table_add_footer(t, line);
    }
}

/* The table of a (merged) section (a summary file keeps the default stack
 * depth). */
static int ops_table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                     tp_error *err)
{
    long depth = tp_ops_stack_depth(vo ? vo->group : NULL), had = tp_agg_section_own(&ops_spec, sec);
    if (depth != had)
        return tp_error_set(err, TP_ERR_FORMAT, "%s: the summary holds ops --group stack=%ld, not stack=%ld", path,
                            had, depth);
    int rc = tp_agg_summ_table(&ops_spec, sec, path, vo ? vo->group : NULL, NULL, out, err);
    if (rc != TP_OK)
        return rc;
    footer(*out, sec);
    /* key_averages(group_by_stack_n=N) of such a trace is its plain
     * table: so is this one, with a word on why */
    if (depth && !(sec->flags & F_ANY_STACK) && sec->ng)
        tp_error_set(err, TP_OK, "%s: no operator has a call stack (record with with_stack=True): "
                     "one row per name, as key_averages(group_by_stack_n=%ld) gives", path, depth);
    if (vo && vo->plot)
        tp_table_set_chart(*out, &ops_chart);
    return TP_OK;
}

static int reads(const struct tp_view_opts *vo, const char *variant)
{
    return tp_ops_stack_depth(vo ? vo->group : NULL) >= 0 && tp_agg_reads(&ops_spec, vo ? vo->group : NULL, variant);
}

/* The keys and the stack depth of a --group (a summary file: the default
 * depth in its stack section) */
static long param(const struct tp_view_opts *vo)
{
    long n = tp_ops_stack_depth(vo ? vo->group : NULL);
    return n < 0 ? 0 : tp_agg_group_param(&ops_spec, vo ? vo->group : NULL, n);
}
static long file_param(const struct tp_view_opts *vo)
{
    long n = vo ? param(vo) : 0;
    return n ? n : TP_OPS_STACK_DEFAULT;
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

const struct tp_summ_view tp_summ_ops_name = {&desc_name, "ops", reads, summarize, ops_table, param};
const struct tp_summ_view tp_summ_ops_shape = {&desc_shape, "ops", reads, summarize, ops_table, param};
const struct tp_summ_view tp_summ_ops_stack = {&desc_stack, "ops", reads, summarize, ops_table, file_param};

/* What summarize() and the category table read of a lazily read store:
 * asked for only when the store does not hold the section
 * (tp_store_summ_view_build), as the view's needs (views.def) leave them out. */
#define OPS_NEEDS (TP_NEED_AUX | TP_NEED_CAT | TP_NEED_DUR | TP_NEED_NAME | TP_NEED_PID | TP_NEED_TID | TP_NEED_TS | \
                   TP_NEED_PARENT | TP_NEED_MEM_INFO)

int tp_ops_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    if (vo && vo->group && strcmp(vo->group, "category") == 0) {
        TP_TRY(tp_store_need(st, OPS_NEEDS, err));
        int rc = tp_ops_by_category(st, out, err);
        if (rc == TP_OK && vo->plot)
            tp_table_set_chart(*out, &category_chart);
        return rc;
    }
    unsigned keys;
    if (tp_agg_parse(&ops_spec, vo ? vo->group : NULL, &keys, err) != TP_OK)
        return err->status;
    if (tp_ops_stack_depth(vo ? vo->group : NULL) < 0) {
        char arg[64];
        tp_agg_arg(vo->group, "stack", arg, sizeof arg);
        return tp_error_set(err, TP_ERR_USAGE, "ops: --group stack=N: '%s' is not a positive number of frames", arg);
    }
    /* one trace is a run of one rank: its table comes from its summary */
    keys = tp_agg_variant_of(&ops_spec, keys)->keys;
    return tp_store_summ_view_build(keys & KEY_STACK ? &tp_summ_ops_stack : keys & KEY_SHAPE ? &tp_summ_ops_shape
                                                                                             : &tp_summ_ops_name,
                                    OPS_NEEDS, st, vo, out, err);
}

const char *tp_ops_columns_for(const struct tp_view_opts *vo)
{
    if (vo && vo->group && strcmp(vo->group, "category") == 0)
        return tp_ops_category_columns;
    return tp_agg_columns(&ops_spec, vo ? vo->group : NULL);
}

size_t tp_ops_group_keys(char *buf, size_t cap)
{
    return tp_agg_describe(&ops_spec, buf, cap);
}
