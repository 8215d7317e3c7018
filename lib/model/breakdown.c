/* breakdown.c — the TensorBoard plugin's step-time breakdown (SPEC §4) as
 * data, the model the steps, dist, gpu and advice views share.
 *
 * Every host/device event gets one role (kernel, memcpy, memset,
 * communication, runtime, dataloader, CPU exec); each role's ranges are
 * merged, then made disjoint in priority order, and each step's time is
 * split among them; what no role covers is "other".  Steps are the
 * ProfilerStep#N ranges widened to the GPU work their runtime and driver
 * calls launched (or one step spanning the CPU ops when there is none), the
 * trailing steps without GPU work trimmed as the plugin does.  All
 * arithmetic is exact int64 nanoseconds.  Built once per store on first
 * use (tp_store_breakdown) and freed with it. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "breakdown.h"
#include "ranges.h"
#include "store.h"
#include "tb_classify.h"
#include "tbtree_order.h"
#include "store_file.h"
#include "model_new.h"

enum { R_KERNEL, R_MEMCPY, R_MEMSET, R_COMM, R_RUNTIME, R_DL, R_CPU, R_OTHER, R_TOTAL, NROLE = 7 };

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

struct step { int64_t s, e, num, dmin, dmax, matched; };

/* What tp_tb_breakdown's stages share: the X events in time order, the
 * runtime calls among them, the steps, and each role's ranges. */
struct bd {
    const tp_store *st;
    struct tp_x_order *xo;            /* ord and no */
    uint32_t *ord; size_t no;         /* X rows by (ts, row) */
    int64_t *rts; size_t nrt;         /* runtime and driver calls, in time order */
    int64_t *comm_ext; size_t ncomm;  /* external ids of communication ops, sorted */
    struct step *steps; size_t nsteps;
    int64_t cpu_min, cpu_max;         /* span of the CPU work, for a trace without steps */
    int32_t *step_of;                 /* per runtime or driver row: the step it launched in, -1 none */
    unsigned char *dmatched;          /* device rows that widened a step */
    struct tp_ranges role[NROLE + 1], cost[NROLE + 1];
    struct tp_tb_names names;         /* what each name says, tested once */
    uint32_t py_cat; int py_ok;       /* the last python_function category asked, and its answer */
};

/* The X events in time order; room for the runtimes, steps and comm ids. */
static int order_events(struct bd *b)
{
    const tp_store *st = b->st;
    size_t n = st->n;
    b->xo = tp_x_order_get(st);
    if (b->xo) {
        b->ord = b->xo->ord;
        b->no = b->xo->n;
    }
    b->rts = malloc((n ? n : 1) * sizeof *b->rts);
    if (!b->ord || !b->rts) return -1;
    b->comm_ext = malloc((b->no ? b->no : 1) * sizeof *b->comm_ext);
    b->steps = malloc((b->no ? b->no : 1) * sizeof *b->steps);
    if (!b->comm_ext || !b->steps || tp_tb_names_init(&b->names, st) < 0) return -1;
    return 0;
}

/* One pass over the X rows in row order (the order does not matter here,
 * and row order reads the columns front to back, not through ord): the
 * external ids of communication ops, whose kernels count as
 * communication, sorted; and room for every range a role can get, from a
 * count of the X events by kind (grown by doubling, the roles' arrays were
 * copied by realloc and their pages faulted twice: a 1 GB trace pushes
 * 1.2M ranges; room never written costs no memory).  0, or -1 out of
 * memory. */
static int scan_rows(struct bd *b)
{
    const tp_store *st = b->st;
    size_t nk = 0, ncpy = 0, nset = 0, nrt = 0, nhost = 0;
    for (size_t r = 0; r < st->n; r++) {
        if (st->ph[r] != 'X') continue;
        uint8_t kd = st->kind[r];
        if (kd == TP_K_KERNEL) nk++;
        else if (kd == TP_K_MEMCPY) ncpy++;
        else if (kd == TP_K_MEMSET) nset++;
        else if (kd == TP_K_RUNTIME || kd == TP_K_DRIVER) nrt++;
        else {
            nhost++;
            if (tp_store_ext(st, r) != TP_NONE && tp_tb_is_host_node(st, r) &&
                (tp_tb_name_class(&b->names, st->name[r]) & TP_TBN_COMM))
                b->comm_ext[b->ncomm++] = tp_store_ext(st, r);
        }
    }
    qsort(b->comm_ext, b->ncomm, sizeof *b->comm_ext, cmp_i64);
    size_t cap[NROLE] = {[R_KERNEL] = nk, [R_MEMCPY] = ncpy, [R_MEMSET] = nset, [R_COMM] = nk + nhost,
                         [R_RUNTIME] = nrt, [R_DL] = nhost, [R_CPU] = nhost};
    for (int k = 0; k < NROLE; k++) {
        if (!cap[k]) continue;
        b->role[k].a = malloc(cap[k] * sizeof *b->role[k].a);
        if (!b->role[k].a) return -1;
        b->role[k].cap = cap[k];
    }
    return 0;
}

/* Every event's range goes to its role; ProfilerStep# ranges become steps
 * instead, and the CPU ops' span is kept for a trace without steps. */
static int assign_roles(struct bd *b)
{
    const tp_store *st = b->st;
    b->cpu_min = INT64_MAX;
    b->cpu_max = INT64_MIN;
    b->py_ok = -1;
    for (size_t k = 0; k < b->no; k++) {
        int64_t r = b->ord[k];
        uint8_t kd = st->kind[r];
        int64_t s = st->ts[r], e = st->ts[r] + st->dur[r];
        int ro = -1;
        if (kd == TP_K_KERNEL) {
            ro = R_KERNEL;
            int64_t ext = tp_store_ext(st, r);
            if (ext != TP_NONE && b->ncomm && bsearch(&ext, b->comm_ext, b->ncomm, sizeof *b->comm_ext, cmp_i64))
                ro = R_COMM;
        } else if (kd == TP_K_MEMCPY) ro = R_MEMCPY;
        else if (kd == TP_K_MEMSET) ro = R_MEMSET;
        /* driver launches (cuLaunchKernel[Ex]) are launches as runtime calls are */
        else if (kd == TP_K_RUNTIME || kd == TP_K_DRIVER) { ro = R_RUNTIME; b->rts[b->nrt++] = r; }
        else {
            int py = 0;
            if (kd == TP_K_PYTHON_FUNCTION) {   /* one category for all of them, as a rule: asked once */
                if (st->cat[r] != b->py_cat || b->py_ok < 0) {
                    b->py_cat = st->cat[r];
                    b->py_ok = tp_tb_is_python_cat(tp_store_str(st, st->cat[r]));
                }
                py = b->py_ok;
            }
            int op = kd == TP_K_CPU_OP, ua = kd == TP_K_USER_ANNOTATION || kd == TP_K_GPU_USER_ANNOTATION;
            if (!py && !op && !ua) continue;
            unsigned nc = tp_tb_name_class(&b->names, st->name[r]);
            if ((op || ua) && (nc & TP_TBN_DATALOADER)) {
                ro = R_DL;
                if (op) { if (s < b->cpu_min) b->cpu_min = s; if (e > b->cpu_max) b->cpu_max = e; }
            } else if ((op || ua) && (nc & TP_TBN_STEP)) {
                if (s < b->cpu_min) b->cpu_min = s;
                if (e > b->cpu_max) b->cpu_max = e;
                /* GPU-side copies of the step annotation are not steps */
                if (kd != TP_K_GPU_USER_ANNOTATION) {
                    struct step *S = &b->steps[b->nsteps++];
                    memset(S, 0, sizeof *S);
                    S->s = s; S->e = e; S->num = atoll(tp_store_str(st, st->name[r]) + 13);
                }
                continue;
            } else {
                if (op || py) { if (s < b->cpu_min) b->cpu_min = s; if (e > b->cpu_max) b->cpu_max = e; }
                ro = nc & TP_TBN_COMM ? R_COMM : R_CPU;
            }
        }
        if (tp_ranges_push(&b->role[ro], s, e) < 0) return -1;
    }
    return 0;
}

/* Each step's span of the device work launched by the runtime calls inside
 * it; 1 when any step launched some (the plugin then adjusts the steps).
 * The runtime and driver calls are matched to the steps in time order (a
 * call goes to the step that holds it, none when it straddles one), then
 * each device row to its launcher's step: min, max and count do not depend
 * on the order, so no lists of device rows per call are built. */
static int match_gpu_work(struct bd *b)
{
    const tp_store *st = b->st;
    struct step *steps = b->steps;
    size_t n = st->n, nsteps = b->nsteps;
    for (size_t i = 0; i < nsteps; i++) { steps[i].dmin = INT64_MAX; steps[i].dmax = INT64_MIN; }
    if (!nsteps) return 0;
    /* written at the runtime rows only: the launchers read below (a linked
     * store has at most 2^31 - 1 rows, so a step index fits) */
    b->step_of = malloc((n ? n : 1) * sizeof *b->step_of);
    b->dmatched = calloc(n ? n : 1, 1);
    if (!b->step_of || !b->dmatched) return -1;
    size_t is = 0;
    for (size_t k = 0; k < b->nrt; k++) {
        int64_t r = b->rts[k], rs = st->ts[r], re = st->ts[r] + st->dur[r];
        int32_t in = -1;
        while (is < nsteps) {
            struct step *S = &steps[is];
            if (rs < S->s) break;
            if (re <= S->e) { in = (int32_t)is; break; }
            if (rs < S->e) break;
            is++;
        }
        b->step_of[r] = in;
    }
    int use_gpu = 0;
    for (size_t k = 0; k < b->no; k++) {
        int64_t d = b->ord[k];
        uint8_t kd = st->kind[d];
        if (kd != TP_K_KERNEL && kd != TP_K_MEMCPY && kd != TP_K_MEMSET) continue;
        int64_t l = tp_store_launcher(st, d);
        /* the calls in b->rts: runtime and driver X rows (step_of is set there only) */
        if (l < 0 || (st->kind[l] != TP_K_RUNTIME && st->kind[l] != TP_K_DRIVER) || st->ph[l] != 'X' ||
            b->step_of[l] < 0)
            continue;
        struct step *S = &steps[b->step_of[l]];
        int64_t ds = st->ts[d], de = st->ts[d] + st->dur[d];
        if (ds < S->dmin) S->dmin = ds;
        if (de > S->dmax) S->dmax = de;
        S->matched++;
        b->dmatched[d] = 1;
        use_gpu = 1;
    }
    return use_gpu;
}

/* The plugin's GPU adjustment: each step starts where the previous one
 * ended (the first after the unmatched device work before it) and ends no
 * earlier than its device work; trailing steps without GPU work go. */
static void adjust_steps(struct bd *b)
{
    const tp_store *st = b->st;
    struct step *steps = b->steps;
    int64_t prev_end = steps[0].s;
    if (steps[0].matched) {
        for (size_t k = 0; k < b->no; k++) {
            int64_t d = b->ord[k];
            uint8_t kd = st->kind[d];
            if ((kd == TP_K_KERNEL || kd == TP_K_MEMCPY || kd == TP_K_MEMSET) && !b->dmatched[d]) {
                int64_t de = st->ts[d] + st->dur[d];
                if (de < steps[0].dmin && de > prev_end) prev_end = de;
            }
        }
    }
    for (size_t i = 0; i < b->nsteps; i++) {
        struct step *S = &steps[i];
        int64_t s = prev_end > S->s ? prev_end : S->s, e;
        if (!S->matched) e = S->e > s ? S->e : s;
        else {
            e = S->e > S->dmax ? S->e : S->dmax;
            if (e < s) e = s;
        }
        S->s = s;
        S->e = e;
        prev_end = e;
    }
    if (b->nsteps > 1) {
        size_t last = 0;
        for (size_t i = 0; i < b->nsteps; i++)
            if (steps[i].matched > 0) last = i;
        size_t keep = last + 1;
        if (last > 0 && (double)steps[last - 1].matched * 0.8 > (double)steps[last].matched) keep = last;
        b->nsteps = keep;
    }
}

/* priority accounting: within the steps, each role keeps what the roles
 * before it left; what is left at the end is Other */
static int priority_costs(struct bd *b)
{
    struct tp_ranges slots = {0}, tmp = {0};
    int rc = -1;
    for (size_t i = 0; i < b->nsteps; i++)
        if (tp_ranges_push(&slots, b->steps[i].s, b->steps[i].e) < 0) goto done;
    tp_ranges_merge(&slots);
    for (int k = 0; k < NROLE; k++) {
        if (tp_ranges_intersect(&slots, &b->role[k], &b->cost[k]) < 0 ||
            tp_ranges_subtract(&slots, &b->cost[k], &tmp) < 0)
            goto done;
        struct tp_ranges x = slots; slots = tmp; tmp = x;
    }
    b->cost[R_OTHER] = slots;
    slots.a = NULL; slots.n = slots.cap = 0;
    rc = 0;
done:
    free(slots.a); free(tmp.a);
    return rc;
}

/* each step's share of each cost range */
static int fill_steps(const struct bd *b, struct tp_tb_breakdown *out)
{
    out->steps = calloc(b->nsteps ? b->nsteps : 1, sizeof *out->steps);
    if (!out->steps) return -1;
    for (size_t i = 0; i < b->nsteps; i++) {
        struct tp_tb_step *T = &out->steps[i];
        T->num = b->steps[i].num;
        T->start = b->steps[i].s;
        T->end = b->steps[i].e;
        /* the costs are sorted, disjoint ranges (intersections and
         * differences of merged ones): a binary search to each step's first
         * range, not a pass over all of them per step and cost */
        for (int k = 0; k <= R_OTHER; k++) T->cost[k] = tp_ranges_within(&b->cost[k], T->start, T->end);
        T->cost[R_TOTAL] = T->end - T->start;
        for (int k = 0; k < TP_TB_NCOST; k++) out->sum[k] += T->cost[k];
    }
    out->nsteps = b->nsteps;
    return 0;
}

int tp_tb_breakdown(const tp_store *st, struct tp_tb_breakdown *out)
{
    struct bd b;
    memset(&b, 0, sizeof b);
    b.st = st;
    memset(out, 0, sizeof *out);
    int rc = -1;
    if (order_events(&b) < 0) goto done;
    if (scan_rows(&b) < 0 || assign_roles(&b) < 0) goto done;
    for (int k = 0; k < NROLE; k++) tp_ranges_merge(&b.role[k]);
    if (!b.nsteps && b.cpu_min <= b.cpu_max) {
        /* every field: match_gpu_work counts from matched = 0 (it was left as
         * malloc gave it, so a trace without ProfilerStep got its kernel time
         * or not by what the heap held: `report` differed from `steps`) */
        memset(&b.steps[0], 0, sizeof b.steps[0]);
        b.steps[0].s = b.cpu_min; b.steps[0].e = b.cpu_max; b.steps[0].num = 0;
        b.nsteps = 1;
    }
    int gpu = match_gpu_work(&b);
    if (gpu < 0) goto done;
    if (gpu) adjust_steps(&b);
    if (priority_costs(&b) < 0 || fill_steps(&b, out) < 0) goto done;
    rc = 0;
done:
    for (int k = 0; k <= NROLE; k++) { free(b.role[k].a); free(b.cost[k].a); }
    tp_x_order_put(st, b.xo, TP_MODEL_TB_TREE); free(b.rts); free(b.step_of); free(b.dmatched); free(b.steps); free(b.comm_ext);
    tp_tb_names_free(&b.names);
    return rc;
}

void tp_tb_breakdown_free(struct tp_tb_breakdown *b)
{
    free(b->steps);
    memset(b, 0, sizeof *b);
}

static int build(const tp_store *st, void *out)
{
    return tp_tb_breakdown(st, out);
}

static void *breakdown_new(const tp_store *st)
{
    return tp_model_new(st, tp_store_file_breakdown(st), sizeof(struct tp_tb_breakdown), build);
}

void tp_tb_breakdown_delete(void *p)
{
    tp_tb_breakdown_free(p);
    free(p);
}

const struct tp_tb_breakdown *tp_store_breakdown(const tp_store *st)
{
    return tp_store_model(st, TP_MODEL_TB_BREAKDOWN, breakdown_new, tp_tb_breakdown_delete);
}
