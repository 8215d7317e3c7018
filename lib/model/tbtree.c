/* tbtree.c — the TensorBoard plugin's operator tree (tb_model), the model
 * the ops, memory, modules, gpu and advice views and `kernels --group props`
 * share.
 *
 * The plugin's numbers come from its own operator tree (SPEC §2.2, §3, §6),
 * which differs from the linker's containment trees: runtime calls attach to
 * host nodes by External id (not by time), user annotations other than
 * NCCL/Gloo ones are not nodes, a partially overlapping node is dropped, a
 * node whose only child has its name absorbs that child (remove_dup_nodes),
 * and host self time subtracts children and the node's own runtime calls.
 * It is built once per store, on first use (tp_store_tb), and freed with the
 * store; views read it and never build their own. */
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
#include "tbtree_order.h"
#include "tbtree_ids.h"
#include "store_file.h"
#include "model_new.h"

#define ZERO_EXT_TO_ROOT 0

/* ---- plugin event classification ---- */

/* EV_* and CL_* (what a node came from, what the plugin makes of it): tbtree.h */

static int starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}





static int is_tc_op(const char *s)
{
    static const char *const allow[] = {
        "aten::_convolution", "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_tbc",
        "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d", "aten::convolution",
        "aten::cudnn_convolution", "aten::cudnn_convolution_transpose", "aten::prelu", "aten::addmm",
        "aten::addmv", "aten::addr", "aten::matmul", "aten::mm", "aten::mv", "aten::linear", "aten::addbmm",
        "aten::baddbmm", "aten::bmm", "aten::chain_matmul", "aten::linalg_multi_dot",
        "aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell", "aten::lstm_cell", "aten::gru_cell",
        "aten::rnn_tanh_cell", "aten::rnn_relu_cell", "CudnnConvolutionBackward", "BmmBackward0",
        "aten::cudnn_convolution_transpose_backward", "CudnnConvolutionTransposeBackward", "MmBackward",
        "aten::cudnn_convolution_backward_weight", "aten::addmm_", "AddmvBackward", "MvBackward",
        "aten::cudnn_convolution_transpose_backward_weight", "aten::cudnn_convolution_transpose_backward_input",
        "AddmmBackward", "aten::cudnn_convolution_backward_input", "AddbmmBackward",
        "aten::cudnn_convolution_backward"};
    for (size_t i = 0; i < sizeof allow / sizeof *allow; i++)
        if (strcmp(s, allow[i]) == 0)
            return 1;
    return 0;
}

/* The plugin's TC_Allowlist (substring match on the kernel name, SPEC §7.2). */
int tp_tb_kernel_tc(const char *name)
{
    static const char *const pat[] = {"h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816",
                                      "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1",
                                      "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm", "xmma_sparse_conv",
                                      "xmma_warp_specialized_implicit_gemm", "xmma_gemm", "xmma_sparse_gemm",
                                      "c1688"};
    for (size_t i = 0; i < sizeof pat / sizeof *pat; i++)
        if (strstr(name, pat[i]))
            return 1;
    return 0;
}

/* ---- the model ---- */

/* struct tb_rt, tb_node, tb_model: tbtree.h */

/* A growing array of int64 (the threads, the stale kernels, the
 * traversal's lists; a node's and a call's lists are in the pools below):
 * three values fill glibc's smallest chunk (32 bytes). */
static int push64(int64_t **a, size_t *n, size_t *cap, int64_t v)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 3;
        int64_t *p = realloc(*a, c * sizeof *p);
        if (!p)
            return -1;
        *a = p;
        *cap = c;
    }
    (*a)[(*n)++] = v;
    return 0;
}


static _Thread_local const tp_store *g_st;
static _Thread_local struct tb_model *g_m;

/* (start, -end, index): the nodes come in time order already but for
 * equal starts and the stand-in nodes, so this sorts by runs (tp_sort_runs) */
static int cmp_node(int64_t i, int64_t j, const void *ctx)
{
    const struct tb_model *m = ctx;
    const struct tb_node *x = &m->nodes[i], *y = &m->nodes[j];
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;
    return i < j ? -1 : i > j;
}
static int cmp_rt(const void *a, const void *b)
{
    const struct tb_rt *x = &g_m->rts[*(const uint32_t *)a], *y = &g_m->rts[*(const uint32_t *)b];
    int nx = x->row < 0, ny = y->row < 0;
    if (nx != ny) return nx - ny;
    if (!nx) {
        if (x->start != y->start) return x->start < y->start ? -1 : 1;
        if (x->end != y->end) return x->end > y->end ? -1 : 1;
    }
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    return i < j ? -1 : i > j;
}

/* Append v to the list (*off, *n) in the pool (*a, *len, *cap) of 4-byte
 * values (m->rtl, m->devl): a list that does not end the pool moves to its
 * end first (the few lists that grow after their pool was filled: a
 * root's, a stand-in's, the stale kernels').  The stages that give many
 * lists more at once (attach_by_model, split_captured) make room first
 * instead.  0, or -1 out of memory or past 32 bits. */
static int pool_reserve(uint32_t **a, size_t *len, size_t *cap, size_t more)
{
    if (more > (size_t)UINT32_MAX - *len) return -1;
    if (*len + more <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < *len + more) c *= 2;
    uint32_t *p = realloc(*a, c * sizeof *p);
    if (!p) return -1;
    *a = p;
    *cap = c;
    return 0;
}

static int pool_push(uint32_t **a, size_t *len, size_t *cap, uint32_t *off, uint32_t *n, uint32_t v)
{
    int at_end = *n && (size_t)*off + *n == *len;
    if (pool_reserve(a, len, cap, at_end ? 1 : (size_t)*n + 1) < 0) return -1;
    if (!at_end) {
        if (*n) memmove(*a + *len, *a + *off, *n * sizeof **a);
        *off = (uint32_t)*len;
        *len += *n;
    }
    (*a)[(*off) + (*n)++] = v;
    (*len)++;
    return 0;
}

/* Whether a node's launch calls are in cmp_rt's order already (most lists
 * are one call, or calls attached in time order): 0.2M qsort calls were
 * most of the sorting. */
static int rts_sorted(const struct tb_model *m, const struct tb_node *n)
{
    const uint32_t *l = tb_node_rts(m, n);
    for (size_t k = 1; k < n->nrts; k++)
        if (cmp_rt(&l[k - 1], &l[k]) > 0) return 0;
    return 1;
}

/* A node's launch calls in cmp_rt's order, sorted where a list of more
 * than one is made or grown (attach_by_ext, attach_by_model, a root's):
 * no pass over every node for the few lists that need it.  The order is
 * total, so sorting again after a list grows gives what one sort at the
 * end gave. */
static void sort_rts(struct tb_model *m, struct tb_node *n)
{
    if (n->nrts > 1 && !rts_sorted(m, n))
        qsort(m->rtl + n->rts, n->nrts, sizeof *m->rtl, cmp_rt);
}

static void tb_free(struct tb_model *m)
{
    free(m->rtl); free(m->devl);
    free(m->nodes); free(m->rts); free(m->roots); free(m->tids);
    free(m->kern); free(m->kern_op); free(m->kern_elig); free(m->kern_tid); free(m->ops);
    memset(m, 0, sizeof *m);
}

static int is_op_node(const struct tb_node *n)
{
    return n->cl == CL_OP && n->ev == EV_OPERATOR && strcmp(n->name, "DataParallel.forward") != 0 &&
           strcmp(n->name, "DistributedDataParallel.forward") != 0 && !starts(n->name, "Optimizer.");
}

/* The Tensor Core tests by string id, asked once per name instead of once
 * per kernel and operator (18 substring searches, 45 comparisons): 0 not
 * asked yet, 1 no, 2 yes. */
struct tc_memo {
    const tp_store *st;
    uint8_t *kernel, *op;
};

static int memo_kernel_tc(struct tc_memo *t, uint32_t id)
{
    if (!t->kernel[id]) t->kernel[id] = tp_tb_kernel_tc(tp_store_str(t->st, id)) ? 2 : 1;
    return t->kernel[id] == 2;
}

/* A node named after its row (not a root or a Lightning module's NAME) has
 * its name's string id. */
static int memo_op_tc(struct tc_memo *t, const struct tb_node *n)
{
    if (n->row < 0 || n->name != tp_store_str(t->st, t->st->name[n->row])) return is_tc_op(n->name);
    uint32_t id = t->st->name[n->row];
    if (!t->op[id]) t->op[id] = is_tc_op(n->name) ? 2 : 1;
    return t->op[id] == 2;
}

/* A kernel a node's launch call ran, in the traversal's list. */
static int push_kern(struct tb_model *m, const struct tb_node *n, int64_t row)
{
    size_t cap = m->capkern;
    if (push64(&m->kern, &m->nkern, &m->capkern, row) < 0) return -1;
    if (m->capkern != cap) {
        const char **a = realloc(m->kern_op, m->capkern * sizeof *a);
        int *b = realloc(m->kern_elig, m->capkern * sizeof *b);
        int64_t *t = realloc(m->kern_tid, m->capkern * sizeof *t);
        if (a) m->kern_op = a;
        if (b) m->kern_elig = b;
        if (t) m->kern_tid = t;
        if (!a || !b || !t) return -1;
    }
    m->kern_op[m->nkern - 1] = n->name;
    m->kern_tid[m->nkern - 1] = tb_node_tid(m, n);
    m->kern_elig[m->nkern - 1] = n->tc_allow;
    return 0;
}

/* A node's stats from its children's and its own launch calls', and the
 * traversal's lists, in one walk (two walks over a tree bigger than any
 * cache were twice the misses): post-order, the operators (children
 * first), and the kernels (children's, then the node's own runtimes'). */
static int fill_stats(struct tb_model *m, int64_t ni, struct tc_memo *memo)
{
    struct tb_node *n = &m->nodes[ni];
    int64_t csum = 0, dev = 0, tc = 0;
    int elig_child = 0;
    for (int64_t c = n->first_child; c >= 0; c = m->nodes[c].next_sib) {
        if (fill_stats(m, c, memo) < 0) return -1;
        n = &m->nodes[ni];
        struct tb_node *cn = &m->nodes[c];
        csum += cn->end - cn->start;
        dev += cn->dev;
        tc += cn->tc_total;
        if (cn->tc_elig) elig_child = 1;
    }
    n->tc_allow = memo_op_tc(memo, n);
    if (is_op_node(n) && push64(&m->ops, &m->nops, &m->capops, ni) < 0) return -1;
    int64_t rsum = 0, rdev = 0, rtc = 0;
    const uint32_t *rl = tb_node_rts(m, n);
    for (size_t k = 0; k < n->nrts; k++) {
        struct tb_rt *r = &m->rts[rl[k]];
        const uint32_t *dl = tb_rt_dev(m, r);
        if (r->row >= 0) rsum += r->end - r->start;
        for (size_t d = 0; d < r->ndev; d++) {
            int64_t row = dl[d];
            rdev += g_st->dur[row];
            if (g_st->kind[row] != TP_K_KERNEL) continue;
            if (memo_kernel_tc(memo, g_st->name[row])) rtc += g_st->dur[row];
            if (push_kern(m, n, row) < 0) return -1;
        }
    }
    n->self_host = (n->cl == CL_ROOT ? 0 : (n->end - n->start) - csum - rsum);
    n->dev = dev + rdev;
    n->self_dev = rdev;
    n->tc_total = tc + rtc;
    n->tc_self = rtc;
    n->tc_elig = n->tc_allow || (n->ev == EV_OPERATOR && (elig_child || rtc > 0));
    return 0;
}

/* Room for every operator and kernel fill_stats can list (at most every
 * node, every device row of a runtime): grown by doubling, the arrays were
 * copied 20 times over.  Room never written costs no memory. */
static int presize_collect(struct tb_model *m)
{
    size_t nd = 0;
    for (size_t i = 0; i < m->nrts; i++) nd += m->rts[i].ndev;
    m->capops = m->nnodes + 1;
    m->capkern = nd + 1;
    m->ops = malloc(m->capops * sizeof *m->ops);
    m->kern = malloc(m->capkern * sizeof *m->kern);
    m->kern_op = malloc(m->capkern * sizeof *m->kern_op);
    m->kern_elig = malloc(m->capkern * sizeof *m->kern_elig);
    m->kern_tid = malloc(m->capkern * sizeof *m->kern_tid);
    return m->ops && m->kern && m->kern_op && m->kern_elig && m->kern_tid ? 0 : -1;
}

static int node_attach_rt(struct tb_model *m, struct tb_node *n, int64_t r)
{
    return pool_push(&m->rtl, &m->nrtl, &m->caprtl, &n->rts, &n->nrts, (uint32_t)r);
}

/* Runtime and driver calls are both launches (the plugin predates driver
 * launches: cuLaunchKernel[Ex] of Triton, CUTLASS, cuBLASLt). */
static int is_launch_call(uint8_t kind)
{
    return kind == TP_K_RUNTIME || kind == TP_K_DRIVER;
}

/* Which launch calls a node holds (a byte per m->rts entry; NULL on out of
 * memory). */
static uint8_t *attached_mark(const struct tb_model *m)
{
    uint8_t *on = calloc(m->nrts + 1, 1);
    if (!on)
        return NULL;
    /* every list in the pool so far is a node's (attach_by_ext gives an id's
     * calls to one node, split_captured a new list to each stand-in; none
     * has moved yet): the pool, not a walk over every node */
    for (size_t k = 0; k < m->nrtl; k++)
        on[m->rtl[k]] = 1;
    return on;
}

/* A stand-in node's thread gets a tree even if no other node is on it:
 * its place in m->tids, -1 out of memory. */
static int64_t know_tid(struct tb_model *m, int64_t tid)
{
    for (size_t t = 0; t < m->ntids; t++)
        if (m->tids[t] == tid) return (int64_t)t;
    return push64(&m->tids, &m->ntids, &m->captids, tid) < 0 ? -1 : (int64_t)m->ntids - 1;
}

/* What tb_build's stages share: the X events in time order, the launch
 * calls and device rows that have a correlation and the (External id,
 * runtime) pairs of launch calls, in time order, to be grouped by id
 * (corr_groups, attach_by_ext: tables by id, else sorts; hash maps of
 * every launch were a cache miss per lookup), the device rows whose launch
 * call never came, and per node what build_trees and remove_dup_nodes
 * read without touching the node array. */
struct tb_build {
    const tp_store *st;
    struct tb_model *m;
    struct tp_x_order *xo;                      /* ord and no: the X rows in time order */
    uint32_t *ord;
    size_t no;
    uint32_t *corr; size_t ncorr;               /* launch calls (CORR_LAUNCH | runtime) and device
                                                   rows with a correlation, in time order */
    struct tp_kv *ext; size_t next;             /* (External id, runtime) */
    int64_t *stale; size_t nstale, capstale;
    uint32_t *ntix;                             /* per node: its thread (tix), for build_trees to
                                                   read 4 bytes a node, not a node's cache line */
    int64_t *steps; size_t nsteps, capsteps;    /* the step nodes */
    uint64_t *parents;                          /* a bit per node: an operator given a child */
    struct tp_i64map tidmap;
    int64_t dummy;                              /* the stale kernels' runtime */
    int64_t last_tid, last_rank; int last_tid_known;   /* the thread of the last node */
    struct tp_tb_names names;                   /* what each name says, tested once */
};

/* Graph replays matched to a capture trace (tp_store_attach_capture): the
 * activities of each captured operator instance leave the graph launch's
 * list for a launch of their own (row -1: it has no host time) held by a
 * stand-in node named after the captured operator, of zero length at the
 * graph launch, so it nests under the operator around the launch. */
static int split_captured(struct tb_build *b)
{
    const tp_store *st = b->st;
    struct tb_model *m = b->m;
    const struct tp_attribution *a = &st->attr;
    if (!a->cap_inst || a->cap_instances == 0) return 0;
    int64_t *inst_rt = malloc((size_t)a->cap_instances * sizeof *inst_rt);
    if (!inst_rt) return -1;
    for (int64_t i = 0; i < a->cap_instances; i++) inst_rt[i] = -1;
    size_t nrts = m->nrts, total = 0;
    /* the stand-ins in the order their first activity comes, each launch's
     * activities counted; then room for them all at the pool's end */
    for (size_t ri = 0; ri < nrts; ri++) {
        for (size_t d = 0; d < m->rts[ri].ndev; d++) {
            struct tb_rt *R = &m->rts[ri];
            int64_t row = tb_rt_dev(m, R)[d], in = a->cap_inst[row];
            if (in < 0) continue;
            if (inst_rt[in] < 0) {
                int64_t ni = (int64_t)m->nnodes++, nr = (int64_t)m->nrts++;
                struct tb_rt *S = &m->rts[nr];
                memset(S, 0, sizeof *S);
                S->row = -1; S->start = S->end = R->start; S->next = -1;
                struct tb_node *N = &m->nodes[ni];
                memset(N, 0, sizeof *N);
                N->row = R->row; N->ev = EV_OPERATOR; N->cl = CL_OP;
                N->start = N->end = R->start; N->no_ext = 1;
                N->name = tp_store_str(st, a->cap_name[row]);
                N->first_child = N->next_sib = N->last_child = -1;
                int64_t t = know_tid(m, st->tid[R->row]);
                if (t < 0 || node_attach_rt(m, N, nr) < 0) { free(inst_rt); return -1; }
                N->tix = b->ntix[ni] = (uint32_t)t;
                inst_rt[in] = nr;
            }
            m->rts[inst_rt[in]].ndev++;
            total++;
        }
    }
    if (pool_reserve(&m->devl, &m->ndevl, &m->capdevl, total) < 0) { free(inst_rt); return -1; }
    for (size_t ri = nrts; ri < m->nrts; ri++) {
        m->rts[ri].dev = (uint32_t)m->ndevl;
        m->ndevl += m->rts[ri].ndev;
        m->rts[ri].ndev = 0;
    }
    for (size_t ri = 0; ri < nrts; ri++) {
        struct tb_rt *R = &m->rts[ri];
        uint32_t *dl = m->devl + R->dev;
        size_t keep = 0;
        for (size_t d = 0; d < R->ndev; d++) {
            int64_t row = dl[d], in = a->cap_inst[row];
            if (in < 0) { dl[keep++] = (uint32_t)row; continue; }
            struct tb_rt *S = &m->rts[inst_rt[in]];
            m->devl[S->dev + S->ndev++] = (uint32_t)row;
        }
        R->ndev = (uint32_t)keep;
    }
    free(inst_rt);
    return 0;
}

/* A launch call that launched GPU work but is in no node (no External id, or
 * one no node has) goes where the attribution model (st->attr) charges its
 * activities: to the node of the operator around it, else to a stand-in node
 * of the call itself (an operator named after the call, as TraceLens lists
 * it).  The plugin loses such kernels; every view reading this tree then
 * agrees with `prof` and the coverage line.  Frees `on`. */
static int attach_by_model(struct tb_build *b, uint8_t *on)
{
    const tp_store *st = b->st;
    struct tb_model *m = b->m;
    if (!on) return -1;
    int rc = -1;
    struct tp_i64map row_node = {0};
    int32_t *to = NULL;      /* per launch call: the node it goes to, -1 none */
    uint32_t *more = NULL;   /* per node: the calls it gets */
    /* most traces leave no launch call out: then there is no map to build */
    size_t left = 0;
    for (size_t ri = 0; ri < m->nrts && !left; ri++)
        left = !on[ri] && m->rts[ri].ndev && tp_store_attr_op(st, tb_rt_dev(m, &m->rts[ri])[0]) >= 0;
    if (!left) { rc = 0; goto done; }
    /* a node exists for every launch call at most (tb_alloc's room) */
    to = malloc((m->nrts + 1) * sizeof *to);
    more = calloc(m->nnodes + m->nrts + 1, sizeof *more);
    if (!to || !more || tp_i64map_init(&row_node, m->nnodes) < 0) goto done;
    for (size_t i = 0; i < m->nnodes; i++) {
        int64_t *v = tp_i64map_slot(&row_node, m->nodes[i].row);
        if (!v) goto done;
        *v = (int64_t)i;
    }
    for (size_t ri = 0; ri < m->nrts; ri++) {
        struct tb_rt *R = &m->rts[ri];
        to[ri] = -1;
        if (on[ri] || R->ndev == 0 || !st->attr.dev_op) continue;
        int64_t op = tp_store_attr_op(st, tb_rt_dev(m, R)[0]);
        if (op < 0) continue;
        int64_t ni = tp_i64map_get(&row_node, op);
        if (ni < 0) {
            /* the call itself stands in for the operator */
            ni = (int64_t)m->nnodes++;
            struct tb_node *N = &m->nodes[ni];
            memset(N, 0, sizeof *N);
            N->row = (int32_t)op; N->ev = EV_OPERATOR; N->cl = CL_OP;
            N->start = st->ts[op]; N->end = st->ts[op] + st->dur[op];
            N->no_ext = 1; N->name = tp_store_str(st, st->name[op]);
            N->first_child = N->next_sib = N->last_child = -1;
            int64_t *v = tp_i64map_slot(&row_node, op);
            if (!v) goto done;
            *v = ni;
            int64_t t = know_tid(m, st->tid[op]);
            if (t < 0) goto done;
            N->tix = b->ntix[ni] = (uint32_t)t;
        }
        to[ri] = (int32_t)ni;
        more[ni]++;
        on[ri] = 1;
    }
    /* each node that gets calls moves its list to the pool's end once, with
     * room for them (appending a call at a time moved a list each time
     * another node's came between) */
    size_t total = 0;
    for (size_t i = 0; i < m->nnodes; i++)
        if (more[i]) total += m->nodes[i].nrts + more[i];
    if (pool_reserve(&m->rtl, &m->nrtl, &m->caprtl, total) < 0) goto done;
    for (size_t i = 0; i < m->nnodes; i++) {
        struct tb_node *N = &m->nodes[i];
        if (!more[i]) continue;
        if (N->nrts) memcpy(m->rtl + m->nrtl, m->rtl + N->rts, N->nrts * sizeof *m->rtl);
        N->rts = (uint32_t)m->nrtl;
        m->nrtl += N->nrts + more[i];
    }
    for (size_t ri = 0; ri < m->nrts; ri++)
        if (to[ri] >= 0) {
            struct tb_node *N = &m->nodes[to[ri]];
            m->rtl[N->rts + N->nrts++] = (uint32_t)ri;
        }
    for (size_t i = 0; i < m->nnodes; i++)
        if (more[i]) sort_rts(m, &m->nodes[i]);
    rc = 0;
done:
    tp_i64map_free(&row_node);
    free(to);
    free(more);
    free(on);
    return rc;
}

/* The X events in time order, and room for every node and runtime. */
static int tb_alloc(struct tb_build *b)
{
    const tp_store *st = b->st;
    struct tb_model *m = b->m;
    b->xo = tp_x_order_get(st);
    if (!b->xo) return -1;
    b->ord = b->xo->ord;
    size_t no = b->no = b->xo->n;
    /* room for a node or a runtime per X event (each is one or the other:
     * room never written costs no memory, and counting them was a pass
     * over the events), a launch per captured operator instance
     * (split_captured) and a stand-in node per launch call or captured
     * instance (attach_by_model) */
    size_t ninst = (size_t)st->attr.cap_instances, room = no + ninst + 1;
    /* node and runtime indices are 32 bits (rows are: tp_store_link refuses
     * more than TP_STORE_MAX_ROWS); roots add one node per thread, checked
     * as they come */
    _Static_assert(TP_STORE_MAX_ROWS <= INT32_MAX, "rows in 32 bits");
    if (room > (size_t)INT32_MAX || st->n > (size_t)INT32_MAX) return -1;
    m->rts = calloc(room, sizeof *m->rts);
    m->nodes = calloc(room, sizeof *m->nodes);
    /* 64 MB of nodes and 11 MB of runtimes on a 1 GB trace, written once */
    tp_advise_huge(m->nodes, room * sizeof *m->nodes);
    tp_advise_huge(m->rts, room * sizeof *m->rts);
    b->corr = malloc((no + 1) * sizeof *b->corr);
    b->ext = malloc((no + 1) * sizeof *b->ext);
    b->ntix = malloc(room * sizeof *b->ntix);
    /* the two lists exist even when empty (a reader's offset 0 into them
     * is then a valid pointer, never NULL + 0) */
    if (pool_reserve(&m->rtl, &m->nrtl, &m->caprtl, 1) < 0 || pool_reserve(&m->devl, &m->ndevl, &m->capdevl, 1) < 0)
        return -1;
    if (!m->rts || !m->nodes || !b->corr || !b->ext || !b->ntix ||
        tp_tb_names_init(&b->names, st) < 0 ||
        tp_i64map_init(&b->tidmap, 64) < 0)
        return -1;
    return 0;
}

/* An entry of b->corr: a launch call (this bit and its runtime) or a
 * device row (its row: rows are below 2^31). */
#define CORR_LAUNCH 0x80000000u

/* A kernel, memcpy or memset row waits to be paired with a launch call of
 * its correlation; a kernel without one is stale at once (no call has its
 * correlation), a copy without one is left out. */
static int add_device_row(struct tb_build *b, int64_t r, uint8_t kind)
{
    const tp_store *st = b->st;
    struct tb_model *m = b->m;
    if (kind == TP_K_KERNEL) m->has_kernel = 1;
    else m->has_memcpy_or_memset = 1;
    int64_t c = st->correlation[r];
    if (c == TP_NONE)
        return kind == TP_K_KERNEL ? push64(&b->stale, &b->nstale, &b->capstale, r) : 0;
    b->corr[b->ncorr++] = (uint32_t)r;
    return 0;
}

/* A launch call becomes a runtime, to be paired with the device rows of
 * its correlation and listed under its External id. */
static void add_launch(struct tb_build *b, int64_t r)
{
    const tp_store *st = b->st;
    struct tb_model *m = b->m;
    int32_t ri = (int32_t)m->nrts++;
    struct tb_rt *R = &m->rts[ri];
    R->row = (int32_t)r; R->start = st->ts[r]; R->end = st->ts[r] + st->dur[r]; R->next = -1;
    if (st->correlation[r] != TP_NONE)
        b->corr[b->ncorr++] = CORR_LAUNCH | (uint32_t)ri;
    if (tp_store_ext(st, r) != TP_NONE) {   /* else attached by the attribution model below */
        /* (runtimes are numbered in time order: sorting by runtime is
         * sorting by position) */
        b->ext[b->next].k = tp_store_ext(st, r);
        b->ext[b->next++].r = ri;
    }
}

static int64_t corr_of(const struct tb_build *b, uint32_t v)
{
    return b->st->correlation[v & CORR_LAUNCH ? b->m->rts[v & ~CORR_LAUNCH].row : (int64_t)v];
}

/* One correlation's launch calls and device rows e[0..n), in time order: a
 * device row goes to the latest launch call before it; those before the
 * first call wait for it (it takes them in (start, -end) order); those no
 * call takes are stale (kernels) or left out.  Pass 0 counts each call's
 * rows (into *total too), pass 1 fills them into m->devl. */
static int pair_group(struct tb_build *b, const uint32_t *e, size_t n, int pass, size_t *total)
{
    struct tb_model *m = b->m;
    int64_t latest = -1;
    size_t nwait = 0;   /* the device rows e[0 .. nwait) before the first call */
    for (size_t h = 0; h < n; h++) {
        uint32_t v = e[h];
        if (v & CORR_LAUNCH) {
            int64_t ri = v & ~CORR_LAUNCH;
            struct tb_rt *R = &m->rts[ri];
            if (pass == 0) {
                R->ndev += nwait;
                *total += nwait;
            } else if (nwait) {
                for (size_t w = 0; w < nwait; w++) m->devl[R->dev + R->ndev++] = e[w];
                tp_sort_rows_nested32(g_st, m->devl + R->dev, R->ndev);
            }
            nwait = 0;
            latest = ri;
        } else if (latest >= 0) {
            struct tb_rt *R = &m->rts[latest];
            if (pass == 1) m->devl[R->dev + R->ndev] = v;
            R->ndev++;
            *total += pass == 0;
        } else {
            nwait++;
        }
    }
    for (size_t w = 0; pass == 1 && w < nwait; w++)
        if (b->st->kind[e[w]] == TP_K_KERNEL && push64(&b->stale, &b->nstale, &b->capstale, e[w]) < 0) return -1;
    return 0;
}

/* Tables indexed by slot (tbtree_ids.h) when the ids fill their blocks
 * well enough: at most 4 slots an entry. */
static int ids_dense(const struct tb_ids *x, size_t n)
{
    return tb_ids_nslots(x) <= 4 * n + ((size_t)1 << TB_IDS_BITS);
}

/* b->corr grouped by correlation, each group in time order, into seq: by
 * counting per id's slot when the ids fill their blocks (kineto numbers
 * them from 1 up; 12 bytes an entry instead of 32 for the pairs and the
 * sort's keys), else by sorting (correlation, place) pairs.  Group g is
 * seq[at[g] .. at[g + 1]) for g < *ng, in no particular order of ids (no
 * group's pairing depends on another's).  0, or -1 out of memory. */
static int corr_groups(struct tb_build *b, uint32_t **seq, uint32_t **at, size_t *ng)
{
    size_t n = b->ncorr;
    struct tb_ids ids = {0};
    uint32_t *sl = malloc((n + 1) * sizeof *sl);
    *seq = malloc((n + 1) * sizeof **seq);
    *at = NULL;
    int rc = -1;
    if (!*seq || !sl) goto done;
    int dense = 1;
    for (size_t i = 0; i < n && dense; i++) {
        int64_t v = tb_ids_put(&ids, corr_of(b, b->corr[i]));
        if (v == -1) goto done;
        dense = v >= 0 && ids_dense(&ids, n);
        sl[i] = (uint32_t)v;
    }
    if (dense) {
        size_t R = tb_ids_nslots(&ids);
        uint32_t *a = calloc(R + 2, sizeof *a);
        if (!a) goto done;
        for (size_t i = 0; i < n; i++) a[sl[i] + 2]++;
        for (size_t g = 2; g < R + 2; g++) a[g] += a[g - 1];
        /* a[g + 1] is where group g starts; it ends there once filled */
        for (size_t i = 0; i < n; i++) (*seq)[a[sl[i] + 1]++] = b->corr[i];
        *at = a;
        *ng = R;
        rc = 0;
        goto done;
    }
    free(sl);
    sl = NULL;
    tb_ids_free(&ids);
    struct tp_kv *kv = malloc((n + 1) * sizeof *kv);
    uint32_t *a = malloc((n + 2) * sizeof *a);
    if (!kv || !a || n > UINT32_MAX) { free(kv); free(a); goto done; }
    for (size_t i = 0; i < n; i++) {
        kv[i].k = corr_of(b, b->corr[i]);
        kv[i].r = (int64_t)i;
    }
    if (tp_sort_kv(kv, n) < 0) { free(kv); free(a); goto done; }
    size_t g = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || kv[i].k != kv[i - 1].k) a[g++] = (uint32_t)i;
        (*seq)[i] = b->corr[kv[i].r];
    }
    a[g] = (uint32_t)n;
    free(kv);
    *at = a;
    *ng = g;
    rc = 0;
done:
    free(sl);
    tb_ids_free(&ids);
    return rc;
}

/* Pair each correlation's launch calls and device rows (pair_group).  A
 * kernel without a correlation id never goes to a call (add_device_row).
 * Two passes over the groups: count each call's rows, then fill them into
 * one block (m->devl). */
static int pair_by_correlation(struct tb_build *b)
{
    struct tb_model *m = b->m;
    uint32_t *seq, *at;
    size_t ng, total = 0;
    int rc = corr_groups(b, &seq, &at, &ng);
    free(b->corr);   /* its pages for what comes next */
    b->corr = NULL;
    for (int pass = 0; rc == 0 && pass < 2; pass++) {
        for (size_t g = 0; rc == 0 && g < ng; g++)
            rc = pair_group(b, seq + at[g], at[g + 1] - at[g], pass, &total);
        if (pass == 1 || rc < 0) break;
        if (pool_reserve(&m->devl, &m->ndevl, &m->capdevl, total) < 0) { rc = -1; break; }
        m->ndevl = total;
        size_t off = 0;
        for (size_t ri = 0; ri < m->nrts; ri++) {
            struct tb_rt *R = &m->rts[ri];
            R->dev = (uint32_t)off;
            off += R->ndev;
            R->ndev = 0;
        }
    }
    free(seq);
    free(at);
    return rc;
}

/* A host row becomes a node when the plugin makes one of it (operators,
 * steps, modules, python functions, data loader, optimizer and
 * communication annotations); its thread is recorded in first-seen order. */
static int add_host_node(struct tb_build *b, int64_t r, uint8_t kind)
{
    const tp_store *st = b->st;
    struct tb_model *m = b->m;
    int ev = EV_NONE, cl = CL_OP;
    const char *cat = tp_store_str(st, st->cat[r]);
    if (kind == TP_K_CPU_OP) ev = EV_OPERATOR;
    else if (kind == TP_K_USER_ANNOTATION || kind == TP_K_GPU_USER_ANNOTATION) ev = EV_USER_ANNOT;
    else if (kind == TP_K_PYTHON_FUNCTION && tp_tb_is_python_cat(cat)) ev = EV_PYTHON;
    else if (kind == TP_K_PYTHON_FUNCTION && st->aux[r] != TP_NO_AUX && tp_store_py(st, &st->ops[st->aux[r]])->module_id != TP_NONE)
        ev = EV_MODULE;
    if (ev == EV_NONE) return 0;
    const char *name = tp_store_str(st, st->name[r]);
    unsigned nb = tp_tb_name_class(&b->names, st->name[r]);
    int64_t ext = tp_store_ext(st, r);
    /* Lightning's record_functions (the plugin's Lightning mode, SPEC
     * §10.2): module calls become module nodes, hooks stay out of the
     * operator tree.  The plugin reads them only as cpu_op events of a trace
     * whose "Framework" is "pytorch-lightning"; PyTorch >= 1.10 writes them as
     * user_annotation, which it drops, so tprof reads both. */
    const char *plname = NULL;
    if (kind == TP_K_CPU_OP || kind == TP_K_USER_ANNOTATION) {
        if (nb & TP_TBN_PL_PROFILE) return 0;
        if (nb & TP_TBN_PL_MODULE) plname = tp_tb_pl_module_name(name);
    }
    if ((ev == EV_OPERATOR || ev == EV_USER_ANNOT) && (nb & TP_TBN_STEP)) {
        ev = EV_STEP; cl = CL_STEP;
    } else if (plname) {
        ev = EV_PLMODULE; cl = CL_PLMOD; name = plname;
    } else if (ev == EV_MODULE) {
        cl = CL_MOD; ext = TP_NONE;
    } else if (nb & TP_TBN_DATALOADER) {
        cl = CL_DL;
    } else if (nb & TP_TBN_OPT_STEP) {
        cl = CL_OPT;
    } else if (ev == EV_USER_ANNOT && !(nb & TP_TBN_COMM)) {
        return 0;   /* other user annotations are not nodes */
    }
    struct tb_node *N = &m->nodes[m->nnodes++];
    N->row = (int32_t)r; N->ev = ev; N->cl = cl; N->start = st->ts[r]; N->end = st->ts[r] + st->dur[r];
    N->no_ext = ext == TP_NONE; N->name = name;
    N->first_child = N->next_sib = N->last_child = -1;
    /* nodes come in runs of one thread: the map only when the thread changes */
    if (!b->last_tid_known || st->tid[r] != b->last_tid) {
        int64_t *t = tp_i64map_slot(&b->tidmap, st->tid[r]);
        if (!t) return -1;
        if (*t < 0) {
            *t = (int64_t)m->ntids;
            if (push64(&m->tids, &m->ntids, &m->captids, st->tid[r]) < 0) return -1;
        }
        b->last_tid = st->tid[r];
        b->last_rank = *t;
        b->last_tid_known = 1;
    }
    N->tix = b->ntix[m->nnodes - 1] = (uint32_t)b->last_rank;
    if (cl == CL_STEP && push64(&b->steps, &b->nsteps, &b->capsteps, (int64_t)m->nnodes - 1) < 0) return -1;
    return 0;
}

/* One pass in time order: nodes, runtimes, and the pairs to sort. */
static int scan_rows(struct tb_build *b)
{
    const tp_store *st = b->st;
    for (size_t k = 0; k < b->no; k++) {
        int64_t r = b->ord[k];
        uint8_t kind = st->kind[r];
        if (kind == TP_K_KERNEL || kind == TP_K_MEMCPY || kind == TP_K_MEMSET) {
            if (add_device_row(b, r, kind) < 0) return -1;
        } else if (is_launch_call(kind)) {
            add_launch(b, r);
        } else if (add_host_node(b, r, kind) < 0) {
            return -1;
        }
    }
    return 0;
}

/* attach runtimes by external id: each id's launch calls, in time order
 * (chained by next), go to the first node with that id, threads taken in
 * first-appearance order and nodes in time order.  Both sides sorted by id,
 * the nodes then by (thread rank, node), and merged (ids spread too thinly
 * for attach_by_ext_dense's tables). */
static int attach_by_ext_sorted(struct tb_build *b)
{
    struct tb_model *m = b->m;
    size_t nn = m->nnodes;
    if (tp_sort_kv(b->ext, b->next) < 0) return -1;
    if (m->ntids && nn + 1 > (size_t)INT64_MAX / m->ntids) return -1;
    struct tp_kv *nodes = malloc((nn + 1) * sizeof *nodes);
    if (!nodes) return -1;
    for (size_t i = 0; i < nn; i++) {
        int64_t ext = tb_node_ext(b->st, &m->nodes[i]);
        nodes[i].k = ext == TP_NONE ? INT64_MIN + 2 : ext;
        nodes[i].r = (int64_t)m->nodes[i].tix * (int64_t)(nn + 1) + (int64_t)i;
    }
    int rc = tp_sort_kv(nodes, nn);
    /* a node takes one id's calls: count them, then fill one block */
    size_t total = 0;
    for (int pass = 0; rc == 0 && pass < 2; pass++) {
        for (size_t g = 0, h, j = 0; g < b->next; g = h) {
            for (h = g + 1; h < b->next && b->ext[h].k == b->ext[g].k; h++)
                if (pass == 0) m->rts[b->ext[h - 1].r].next = (int32_t)b->ext[h].r;
            while (j < nn && nodes[j].k < b->ext[g].k) j++;
            if (j == nn || nodes[j].k != b->ext[g].k) continue;
            struct tb_node *N = &m->nodes[nodes[j].r % (int64_t)(nn + 1)];
            if (pass == 0) {
                total += h - g;
                continue;
            }
            N->rts = (uint32_t)total;
            N->nrts = (uint32_t)(h - g);
            for (size_t q = g; q < h; q++) m->rtl[total++] = (uint32_t)b->ext[q].r;
            sort_rts(m, N);
        }
        if (pass == 0) {
            if (pool_reserve(&m->rtl, &m->nrtl, &m->caprtl, total) < 0) rc = -1;
            m->nrtl = total;
            total = 0;
        }
    }
    free(nodes);
    return rc;
}

/* The same when the launch calls' ids fill their blocks (tbtree_ids.h;
 * kineto numbers its External ids from 1 up): tables indexed by the id's
 * slot hold each id's node, call count and last call, and nothing is
 * sorted (the two sorts were 30 MB of pairs and keys on a 1 GB trace; the
 * tables are 12 bytes a slot).  Each node's list gets the same calls in
 * the same order; where the lists lie in m->rtl differs, which no reader
 * sees.  1 done, 0 ids too spread (nothing changed), -1 out of memory. */
static int attach_by_ext_dense(struct tb_build *b)
{
    struct tb_model *m = b->m;
    size_t nn = m->nnodes, nx = b->next;
    if (nx == 0) return 1;
    struct tb_ids ids = {0};
    uint32_t *sl = malloc(nx * sizeof *sl), *cnt = NULL;
    int32_t *node = NULL, *last = NULL;
    int rc = -1;
    if (!sl) goto done;
    for (size_t i = 0; i < nx; i++) {
        /* (a node without an id sorts as INT64_MIN + 2 in the merge: no
         * call may have that id here, the tables leave such nodes out) */
        int64_t v = b->ext[i].k == INT64_MIN + 2 ? -2 : tb_ids_put(&ids, b->ext[i].k);
        if (v < 0 || !ids_dense(&ids, nn + nx)) {
            rc = v == -1 ? -1 : 0;
            goto done;
        }
        sl[i] = (uint32_t)v;
    }
    size_t R = tb_ids_nslots(&ids);
    node = malloc(R * sizeof *node);
    last = malloc(R * sizeof *last);
    cnt = calloc(R, sizeof *cnt);
    if (!node || !last || !cnt) goto done;
    memset(node, 0xff, R * sizeof *node);
    memset(last, 0xff, R * sizeof *last);
    /* the first node of each id by (thread rank, node) */
    for (size_t i = 0; i < nn; i++) {
        const struct tb_node *N = &m->nodes[i];
        int64_t e = tb_node_ext(b->st, N), k = e == TP_NONE ? -1 : tb_ids_get(&ids, e);
        if (k < 0) continue;
        int32_t *v = &node[k];
        if (*v < 0 || N->tix < m->nodes[*v].tix) *v = (int32_t)i;
    }
    /* the calls come in runtime order: chain each id's, count them */
    for (size_t i = 0; i < nx; i++) {
        size_t k = sl[i];
        int32_t ri = (int32_t)b->ext[i].r;
        if (last[k] >= 0) m->rts[last[k]].next = ri;
        last[k] = ri;
        cnt[k]++;
    }
    size_t total = 0;
    for (size_t k = 0; k < R; k++)
        if (node[k] >= 0 && cnt[k]) {
            struct tb_node *N = &m->nodes[node[k]];
            N->rts = (uint32_t)total;
            N->nrts = 0;
            total += cnt[k];
        }
    if (pool_reserve(&m->rtl, &m->nrtl, &m->caprtl, total) < 0) goto done;
    m->nrtl = total;
    for (size_t i = 0; i < nx; i++) {
        int32_t ni = node[sl[i]];
        if (ni < 0) continue;
        struct tb_node *N = &m->nodes[ni];
        m->rtl[N->rts + N->nrts++] = (uint32_t)b->ext[i].r;
    }
    for (size_t k = 0; k < R; k++)
        if (node[k] >= 0 && cnt[k] > 1) sort_rts(m, &m->nodes[node[k]]);
    rc = 1;
done:
    tb_ids_free(&ids);
    free(sl);
    free(node);
    free(last);
    free(cnt);
    return rc;
}

static int attach_by_ext(struct tb_build *b)
{
    int rc = attach_by_ext_dense(b);
    return rc != 0 ? (rc > 0 ? 0 : -1) : attach_by_ext_sorted(b);
}

/* staled kernels: those whose launch call never came, on one runtime
 * without a row that the first thread with a step hangs on its root */
static int add_stale_runtime(struct tb_build *b)
{
    const tp_store *st = b->st;
    struct tb_model *m = b->m;
    struct tb_rt *D = &m->rts[m->nrts];
    D->row = -1; D->next = -1;
    (void)st;
    if (pool_reserve(&m->devl, &m->ndevl, &m->capdevl, b->nstale) < 0) return -1;
    D->dev = (uint32_t)m->ndevl;
    D->ndev = (uint32_t)b->nstale;
    for (size_t i = 0; i < b->nstale; i++) m->devl[m->ndevl++] = (uint32_t)b->stale[i];
    if (D->ndev) tp_sort_rows_nested32(g_st, m->devl + D->dev, D->ndev);
    b->dummy = (int64_t)m->nrts++;
    return 0;
}

/* One thread's tree: a root, then its nodes (buf[0..nb), in node order) by
 * (start, -end) nested with a stack; a node that overlaps its would-be
 * parent's end is dropped. */
static int build_thread_tree(struct tb_build *b, size_t ti, uint32_t *buf, size_t nb, int has_step, int32_t *stack,
                             int *dummy_given)
{
    const tp_store *st = b->st;
    struct tb_model *m = b->m;
    if (tp_sort_runs32(buf, nb, cmp_node, m) < 0) return -1;
    /* root (nodes array was allocated with room for one extra; grow for more roots) */
    if (m->nnodes >= (size_t)INT32_MAX) return -1;
    struct tb_node *nn = realloc(m->nodes, (m->nnodes + 1) * sizeof *nn);
    if (!nn) return -1;
    m->nodes = nn;
    int32_t root = (int32_t)m->nnodes++;
    struct tb_node *R = &m->nodes[root];
    memset(R, 0, sizeof *R);
    R->row = -1; R->ev = EV_ROOT; R->cl = CL_ROOT; R->name = "CallTreeRoot"; R->tix = (uint32_t)ti;
    R->start = INT64_MIN; R->end = INT64_MAX; R->no_ext = 1;
    R->first_child = R->next_sib = R->last_child = -1;
    /* zero-external-id runtimes of this thread: the plugin files them
     * under the raw tid but looks them up by int(tid), so with the string
     * tids kineto wrote they never reach a tree; tprof keeps them out too
     * (see man/tbviews-notes.txt). */
    for (size_t q = 0; ZERO_EXT_TO_ROOT && q + 1 < m->nrts; q++)
        if (m->rts[q].row >= 0 && tp_store_ext(st, m->rts[q].row) == 0 && st->tid[m->rts[q].row] == m->tids[ti])
            if (node_attach_rt(m, &m->nodes[root], (int64_t)q) < 0) return -1;
    if (has_step && !*dummy_given) {
        if (node_attach_rt(m, &m->nodes[root], b->dummy) < 0) return -1;
        *dummy_given = 1;
    }
    sort_rts(m, &m->nodes[root]);
    size_t sp = 0;
    stack[sp++] = root;
    for (size_t k = 0; k < nb; k++) {
        struct tb_node *N = &m->nodes[buf[k]];
        for (;;) {
            struct tb_node *T = &m->nodes[stack[sp - 1]];
            if (N->start >= T->end && sp > 1) { sp--; continue; }
            if (N->end <= T->end) {
                if (T->last_child < 0 && T->ev == EV_OPERATOR)
                    b->parents[stack[sp - 1] / 64] |= (uint64_t)1 << (stack[sp - 1] % 64);
                if (T->last_child < 0) T->first_child = (int32_t)buf[k];
                else m->nodes[T->last_child].next_sib = (int32_t)buf[k];
                T->last_child = (int32_t)buf[k];
                stack[sp++] = (int32_t)buf[k];
            } else {
                N->dropped = 1;
            }
            break;
        }
    }
    m->roots[m->nroots++] = root;
    return 0;
}

/* The nodes bucketed by thread in one pass (each bucket in node order, as
 * a scan of every node per thread gave them), then a tree per thread. */
static int build_trees(struct tb_build *b)
{
    struct tb_model *m = b->m;
    size_t nodes_real = m->nnodes, nt = m->ntids;
    uint32_t *buf = malloc((nodes_real + 1) * sizeof *buf);
    int32_t *stack = malloc((nodes_real + 2) * sizeof *stack);
    size_t *at = calloc(nt + 1, sizeof *at);
    uint8_t *step = calloc(nt + 1, 1);
    b->parents = calloc((nodes_real + nt) / 64 + 1, sizeof *b->parents);
    m->roots = malloc((nt + 1) * sizeof *m->roots);
    int rc = -1, dummy_given = 0;
    if (!buf || !stack || !at || !step || !b->parents || !m->roots) goto done;
    for (size_t i = 0; i < nodes_real; i++) at[b->ntix[i] + 1]++;
    for (size_t i = 0; i < b->nsteps; i++) step[m->nodes[b->steps[i]].tix] = 1;
    for (size_t t = 0; t < nt; t++) at[t + 1] += at[t];
    for (size_t i = 0; i < nodes_real; i++) buf[at[b->ntix[i]]++] = (uint32_t)i;
    /* at[t] is now where bucket t ends */
    for (size_t ti = 0, from = 0; ti < nt; from = at[ti++])
        if (build_thread_tree(b, ti, buf + from, at[ti] - from, step[ti], stack, &dummy_given) < 0) goto done;
    rc = 0;
done:
    free(buf);
    free(stack);
    free(at);
    free(step);
    return rc;
}

/* remove_dup_nodes: an operator whose only child is an operator of the same
 * name takes over that child's children and runtimes.  Only an operator
 * with a child can (and only its own children change), so the nodes are
 * the ones build_thread_tree marked, in node order as before: not a pass
 * over every node. */
/* An operator that has one child, an operator of its own name, takes over
 * that child's children and runtimes, again while that holds. */
static void absorb_dup_child(struct tb_model *m, struct tb_node *N)
{
    for (;;) {
        int64_t c = N->first_child;
        if (c < 0 || m->nodes[c].next_sib >= 0) break;
        struct tb_node *C = &m->nodes[c];
        if (strcmp(C->name, N->name) != 0 || N->ev != EV_OPERATOR || C->ev != EV_OPERATOR) break;
        N->first_child = C->first_child;
        N->last_child = C->last_child;
        /* (N's own list stays in the pool, unused) */
        N->rts = C->rts; N->nrts = C->nrts;
        C->rts = 0; C->nrts = 0;
        C->dropped = 1;
    }
}

static void remove_dup_nodes(struct tb_model *m, const uint64_t *parents)
{
    for (size_t w = 0; w <= m->nnodes / 64; w++)
        for (uint64_t bits = parents[w]; bits; bits &= bits - 1)
            absorb_dup_child(m, &m->nodes[w * 64 + (size_t)__builtin_ctzll(bits)]);
}

static int tb_build(const tp_store *st, void *out)
{
    struct tb_model *m = out;
    memset(m, 0, sizeof *m);
    g_st = st;
    g_m = m;
    struct tb_build b = { .st = st, .m = m, .dummy = -1 };
    struct tc_memo memo = { .st = st };
    int rc = -1;
    /* each stage's pairs freed once used, so that the next stage's blocks
     * can take their pages instead of fresh ones */
    if (tb_alloc(&b) < 0 || scan_rows(&b) < 0 || pair_by_correlation(&b) < 0)
        goto done;
    if (attach_by_ext(&b) < 0)
        goto done;
    free(b.ext); b.ext = NULL;
    if (split_captured(&b) < 0 ||
        attach_by_model(&b, attached_mark(m)) < 0 || add_stale_runtime(&b) < 0 || build_trees(&b) < 0)
        goto done;
    remove_dup_nodes(m, b.parents);
    size_t nstr = st->strings.count ? st->strings.count : 1;
    memo.kernel = calloc(nstr, 1);
    memo.op = calloc(nstr, 1);
    if (!memo.kernel || !memo.op || presize_collect(m) < 0) goto done;
    for (size_t i = 0; i < m->nroots; i++)
        if (fill_stats(m, m->roots[i], &memo) < 0) goto done;
    rc = 0;
done:
    free(memo.kernel); free(memo.op);
    free(b.corr); free(b.ext); free(b.stale); free(b.ntix); free(b.steps); free(b.parents); tp_tb_names_free(&b.names);
    tp_x_order_put(st, b.xo, TP_MODEL_TB_BREAKDOWN);
    tp_i64map_free(&b.tidmap);
    if (rc < 0) tb_free(m);
    return rc;
}

static void *tb_new(const tp_store *st)
{
    return tp_model_new(st, tp_store_file_tree(st), sizeof(struct tb_model), tb_build);
}

void tp_tb_model_delete(void *p)
{
    tb_free(p);
    free(p);
}

const struct tb_model *tp_store_tb(const tp_store *st)
{
    return tp_store_model(st, TP_MODEL_TB_TREE, tb_new, tp_tb_model_delete);
}

int tp_tb_is_op(const struct tb_node *n)
{
    return is_op_node(n);
}

const char *tp_tb_pl_module_name(const char *s)
{
    static const char pre[] = "[pl][module]";
    if (!starts(s, pre)) return NULL;
    s += sizeof pre - 1;
    /* TYPE: NAME.  Without ": " the plugin's find() of -1 drops NAME's first
     * character; tprof keeps the whole name. */
    const char *sep = strstr(s, ": ");
    return sep ? sep + 2 : s;
}

int tp_tb_is_pl_profile(const char *s)
{
    return starts(s, "[pl][profile]");
}
