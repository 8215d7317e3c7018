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

enum { R_KERNEL, R_MEMCPY, R_MEMSET, R_COMM, R_RUNTIME, R_DL, R_CPU, R_OTHER, R_TOTAL, NROLE = 7 };

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }




static _Thread_local const tp_store *g_st;
static int cmp_row(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    if (g_st->ts[x] != g_st->ts[y]) return g_st->ts[x] < g_st->ts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

struct step { int64_t s, e, num, dmin, dmax, matched; };

int tp_tb_breakdown(const tp_store *st, struct tp_tb_breakdown *out)
{
    size_t n = st->n;
    int64_t *ord = malloc((n ? n : 1) * sizeof *ord);
    int64_t *rts = malloc((n ? n : 1) * sizeof *rts);
    int64_t *dev_of = NULL;   /* device rows grouped by launching runtime */
    int64_t *dev_next = NULL, *rt_head = NULL;
    unsigned char *dmatched = NULL;
    struct step *steps = NULL;
    struct tp_ranges role[NROLE + 1], cost[NROLE + 1], slots = {0}, tmp = {0}, tmp2 = {0};
    memset(role, 0, sizeof role);
    memset(cost, 0, sizeof cost);
    int rc = 0;
    size_t nsteps = 0, no = 0, nrt = 0;
    memset(out, 0, sizeof *out);
    int64_t *comm_ext = NULL;
    size_t ncomm = 0;
    if (!ord || !rts) goto oom;
    for (size_t i = 0; i < n; i++)
        if (st->ph[i] == 'X') ord[no++] = (int64_t)i;
    g_st = st;
    qsort(ord, no, sizeof *ord, cmp_row);
    /* external ids of communication ops */
    comm_ext = malloc((no ? no : 1) * sizeof *comm_ext);
    steps = malloc((no ? no : 1) * sizeof *steps);
    if (!comm_ext || !steps) goto oom;
    for (size_t k = 0; k < no; k++) {
        int64_t r = ord[k];
        if (tp_tb_is_host_node(st, (size_t)r) && tp_tb_comm_lib(tp_store_str(st, st->name[r])) &&
            st->external_id[r] != TP_NONE)
            comm_ext[ncomm++] = st->external_id[r];
    }
    qsort(comm_ext, ncomm, sizeof *comm_ext, cmp_i64);
    int64_t cpu_min = INT64_MAX, cpu_max = INT64_MIN;
    for (size_t k = 0; k < no; k++) {
        int64_t r = ord[k];
        uint8_t kd = st->kind[r];
        const char *name = tp_store_str(st, st->name[r]);
        int64_t s = st->ts[r], e = st->ts[r] + st->dur[r];
        int ro = -1;
        if (kd == TP_K_KERNEL) {
            ro = R_KERNEL;
            if (st->external_id[r] != TP_NONE && ncomm &&
                bsearch(&st->external_id[r], comm_ext, ncomm, sizeof *comm_ext, cmp_i64))
                ro = R_COMM;
        } else if (kd == TP_K_MEMCPY) ro = R_MEMCPY;
        else if (kd == TP_K_MEMSET) ro = R_MEMSET;
        /* driver launches (cuLaunchKernel[Ex]) are launches as runtime calls are */
        else if (kd == TP_K_RUNTIME || kd == TP_K_DRIVER) { ro = R_RUNTIME; rts[nrt++] = r; }
        else {
            int py = kd == TP_K_PYTHON_FUNCTION && tp_tb_is_python_cat(tp_store_str(st, st->cat[r]));
            int op = kd == TP_K_CPU_OP, ua = kd == TP_K_USER_ANNOTATION || kd == TP_K_GPU_USER_ANNOTATION;
            if (!py && !op && !ua) continue;
            if ((op || ua) && tp_tb_is_dataloader(name)) {
                ro = R_DL;
                if (op) { if (s < cpu_min) cpu_min = s; if (e > cpu_max) cpu_max = e; }
            } else if ((op || ua) && starts(name, "ProfilerStep#")) {
                if (s < cpu_min) cpu_min = s;
                if (e > cpu_max) cpu_max = e;
                /* GPU-side copies of the step annotation are not steps */
                if (kd != TP_K_GPU_USER_ANNOTATION) {
                    struct step *S = &steps[nsteps++];
                    memset(S, 0, sizeof *S);
                    S->s = s; S->e = e; S->num = atoll(name + 13);
                }
                continue;
            } else {
                if (op || py) { if (s < cpu_min) cpu_min = s; if (e > cpu_max) cpu_max = e; }
                ro = tp_tb_comm_lib(name) ? R_COMM : R_CPU;
            }
        }
        if (tp_ranges_push(&role[ro], s, e) < 0) goto oom;
    }
    for (int k = 0; k < NROLE; k++) tp_ranges_merge(&role[k]);
    if (!nsteps && cpu_min <= cpu_max) {
        steps[0].s = cpu_min; steps[0].e = cpu_max; steps[0].num = 0;
        nsteps = 1;
    }
    /* GPU adjustment: device work of the runtime calls inside each step */
    dev_next = malloc((n ? n : 1) * sizeof *dev_next);
    rt_head = malloc((n ? n : 1) * sizeof *rt_head);
    dmatched = calloc(n ? n : 1, 1);
    if (!dev_next || !rt_head || !dmatched) goto oom;
    for (size_t i = 0; i < n; i++) rt_head[i] = -1;
    for (size_t k = no; k-- > 0;) {
        int64_t r = ord[k];
        uint8_t kd = st->kind[r];
        if (kd != TP_K_KERNEL && kd != TP_K_MEMCPY && kd != TP_K_MEMSET) continue;
        int64_t l = st->launcher[r];
        if (l < 0 || (st->kind[l] != TP_K_RUNTIME && st->kind[l] != TP_K_DRIVER)) continue;
        dev_next[r] = rt_head[l];
        rt_head[l] = r;
    }
    for (size_t i = 0; i < nsteps; i++) { steps[i].dmin = INT64_MAX; steps[i].dmax = INT64_MIN; }
    int use_gpu = 0;
    {
        size_t is = 0;
        for (size_t k = 0; k < nrt && is < nsteps; k++) {
            int64_t r = rts[k], rs = st->ts[r], re = st->ts[r] + st->dur[r];
            while (is < nsteps) {
                struct step *S = &steps[is];
                if (rs < S->s) break;
                if (re <= S->e) {
                    for (int64_t d = rt_head[r]; d >= 0; d = dev_next[d]) {
                        int64_t ds = st->ts[d], de = st->ts[d] + st->dur[d];
                        if (ds < S->dmin) S->dmin = ds;
                        if (de > S->dmax) S->dmax = de;
                        S->matched++;
                        dmatched[d] = 1;
                        use_gpu = 1;
                    }
                    break;
                }
                if (rs < S->e) break;
                is++;
            }
        }
    }
    if (use_gpu) {
        int64_t prev_end = steps[0].s;
        if (steps[0].matched) {
            for (size_t k = 0; k < no; k++) {
                int64_t d = ord[k];
                uint8_t kd = st->kind[d];
                if ((kd == TP_K_KERNEL || kd == TP_K_MEMCPY || kd == TP_K_MEMSET) && !dmatched[d]) {
                    int64_t de = st->ts[d] + st->dur[d];
                    if (de < steps[0].dmin && de > prev_end) prev_end = de;
                }
            }
        }
        for (size_t i = 0; i < nsteps; i++) {
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
        if (nsteps > 1) {
            size_t last = 0;
            for (size_t i = 0; i < nsteps; i++)
                if (steps[i].matched > 0) last = i;
            size_t keep = last + 1;
            if (last > 0 && (double)steps[last - 1].matched * 0.8 > (double)steps[last].matched) keep = last;
            nsteps = keep;
        }
    }
    /* priority accounting */
    for (size_t i = 0; i < nsteps; i++)
        if (tp_ranges_push(&slots, steps[i].s, steps[i].e) < 0) goto oom;
    tp_ranges_merge(&slots);
    for (int k = 0; k < NROLE; k++) {
        if (tp_ranges_intersect(&slots, &role[k], &cost[k]) < 0 || tp_ranges_subtract(&slots, &cost[k], &tmp) < 0) goto oom;
        struct tp_ranges x = slots; slots = tmp; tmp = x;
    }
    cost[R_OTHER] = slots;
    slots.a = NULL; slots.n = slots.cap = 0;

    /* each step's share of each cost range */
    out->steps = calloc(nsteps ? nsteps : 1, sizeof *out->steps);
    if (!out->steps) goto oom;
    for (size_t i = 0; i < nsteps; i++) {
        struct tp_tb_step *T = &out->steps[i];
        T->num = steps[i].num;
        T->start = steps[i].s;
        T->end = steps[i].e;
        for (int k = 0; k <= R_OTHER; k++) T->cost[k] = tp_ranges_overlap(&cost[k], T->start, T->end);
        T->cost[R_TOTAL] = T->end - T->start;
        for (int k = 0; k < TP_TB_NCOST; k++) out->sum[k] += T->cost[k];
    }
    out->nsteps = nsteps;
    goto done;
oom:
    rc = -1;
done:
    for (int k = 0; k <= NROLE; k++) { free(role[k].a); free(cost[k].a); }
    free(slots.a); free(tmp.a); free(tmp2.a);
    free(ord); free(rts); free(dev_of); free(dev_next); free(rt_head); free(dmatched); free(steps); free(comm_ext);
    return rc;
}

void tp_tb_breakdown_free(struct tp_tb_breakdown *b)
{
    free(b->steps);
    memset(b, 0, sizeof *b);
}

static void *breakdown_new(const tp_store *st)
{
    struct tp_tb_breakdown *b = malloc(sizeof *b);
    if (b && tp_tb_breakdown(st, b) < 0) {
        free(b);
        b = NULL;
    }
    return b;
}

static void breakdown_delete(void *p)
{
    tp_tb_breakdown_free(p);
    free(p);
}

const struct tp_tb_breakdown *tp_store_breakdown(const tp_store *st)
{
    return tp_store_model(st, TP_MODEL_TB_BREAKDOWN, breakdown_new, breakdown_delete);
}
