/* attribution.c — the one attribution model: every GPU activity's launch
 * call, launching operator, or the reason it has none (store.h, struct
 * tp_attribution), and the coverage line every attributing view prints.
 *
 * The linker found each activity's launch call by correlation id (runtime or
 * driver call; a graph launch for every kernel of its replay) and the CPU
 * operator around that call.  Here each activity gets its operator: that
 * operator, else, for a graph replay, the graph launch call itself
 * (torch.cuda.CUDAGraph.replay and vLLM's model runner record no operator
 * around it; TraceLens lists such a call as its own launcher).  A runtime or
 * driver launch outside any operator stays unattributed, as in the plugin
 * (it is no operator's time).  Each activity without a launch call gets a
 * cause:
 *   - no correlation id: nothing can link it;
 *   - before the profiler: its correlation id is lower than any launch call
 *     the trace holds, or it started before the first host event: it was
 *     launched before the profiler window opened;
 *   - no launch record: the host was traced but the call is missing (the
 *     profiler lost records, e.g. a full CUPTI buffer). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "link.h"
#include "checked.h"
#include "store_file.h"

int tp_is_graph_launch(const char *name)
{
    return strcmp(name, "cudaGraphLaunch") == 0 || strcmp(name, "hipGraphLaunch") == 0 ||
           strcmp(name, "cuGraphLaunch") == 0 || strcmp(name, "cudaGraphLaunch_v10000") == 0;
}

static int is_device(uint8_t k)
{
    return k == TP_K_KERNEL || k == TP_K_MEMCPY || k == TP_K_MEMSET;
}

static int is_host(uint8_t k)
{
    return k == TP_K_CPU_OP || k == TP_K_USER_ANNOTATION || k == TP_K_PYTHON_FUNCTION || k == TP_K_RUNTIME ||
           k == TP_K_DRIVER;
}

void tp_attribution_free(struct tp_attribution *a)
{
    free(a->dev_op);
    free(a->dev_kind);
    free(a->dev_cause);
    free(a->cap_inst);
    free(a->cap_name);
    memset(a, 0, sizeof *a);
}

double tp_attr_share(const struct tp_attribution *a)
{
    if (a->kernel_ns <= 0)
        return 100.0;
    int64_t done = a->cause_ns[TP_ATTR_OPERATOR];
    tp_sat_add(&done, a->cause_ns[TP_ATTR_LAUNCH_CALL]);
    return 100.0 * (double)done / (double)a->kernel_ns;
}

int tp_link_attribution(tp_store *st)
{
    struct tp_attribution *a = &st->attr;
    tp_attribution_free(a);
    size_t n = st->n ? st->n : 1;
    a->dev_op = malloc((st->ndev ? st->ndev : 1) * sizeof *a->dev_op);
    a->dev_kind = calloc(st->ndev ? st->ndev : 1, 1);
    a->dev_cause = calloc(st->ndev ? st->ndev : 1, 1);
    /* the graph launch calls counted (the kernels of a replay share one) */
    uint64_t *counted = calloc(n / 64 + 1, sizeof *counted);
    if (!a->dev_op || !a->dev_kind || !a->dev_cause || !counted) {
        free(counted);
        tp_attribution_free(a);
        return -1;
    }
    /* The profiler window as the host saw it: the first host event and the
     * lowest correlation id of a launch call. */
    a->call_example = a->outside_example = -1;
    /* python_function events a lean load (tp_store_set_lean) left out
     * are host events too */
    int64_t first_host = st->lean ? st->left_out_first_ts : INT64_MAX, low_corr = INT64_MAX;
    for (size_t i = 0; i < st->n; i++) {
        uint8_t k = st->kind[i];
        if (is_host(k) && st->ph[i] == 'X' && st->ts[i] < first_host)
            first_host = st->ts[i];
        if ((k == TP_K_RUNTIME || k == TP_K_DRIVER) && st->correlation[i] != TP_NONE && st->correlation[i] < low_corr)
            low_corr = st->correlation[i];
        if (k == TP_K_CPU_OP)
            a->host_ops++;
    }
    for (size_t i = 0; i < st->n; i++) {
        uint8_t k = st->kind[i];
        if (!is_device(k))
            continue;
        int64_t d = tp_store_dev_index(st, i);   /* >= 0: a device row */
        int64_t l = tp_store_launcher(st, i);
        a->dev_op[d] = -1;
        uint8_t cause;
        if (l >= 0) {
            const char *ln = tp_store_str(st, st->name[l]);
            a->dev_kind[d] = tp_is_graph_launch(ln) ? TP_LAUNCH_GRAPH
                         : st->kind[l] == TP_K_DRIVER ? TP_LAUNCH_DRIVER : TP_LAUNCH_RUNTIME;
            if (tp_store_launch_op(st, i) >= 0) {
                a->dev_op[d] = (int32_t)tp_store_launch_op(st, i);
                cause = TP_ATTR_OPERATOR;
            } else if (a->dev_kind[d] == TP_LAUNCH_GRAPH) {
                a->dev_op[d] = (int32_t)l;
                cause = TP_ATTR_LAUNCH_CALL;
                a->call_example = l;
            } else {
                cause = TP_ATTR_OUTSIDE_OPERATOR;
                a->outside_example = l;
            }
            if (a->dev_kind[d] == TP_LAUNCH_GRAPH && !(counted[l >> 6] & (UINT64_C(1) << (l & 63)))) {
                counted[l >> 6] |= UINT64_C(1) << (l & 63);
                a->graph_launches++;
            }
        } else if (st->correlation[i] == TP_NONE) {
            cause = TP_ATTR_NO_CORRELATION;
        } else if (st->correlation[i] < low_corr || st->ts[i] < first_host) {
            cause = TP_ATTR_BEFORE_PROFILER;
        } else {
            cause = TP_ATTR_NO_LAUNCH_RECORD;
        }
        a->dev_cause[d] = cause;
        if (k != TP_K_KERNEL)
            continue;
        a->kernels++;
        tp_sat_add(&a->kernel_ns, st->dur[i]);
        tp_sat_add(&a->cause_ns[cause], st->dur[i]);
        a->cause_n[cause]++;
        if (cause <= TP_ATTR_LAUNCH_CALL) {
            tp_sat_add(&a->kind_ns[a->dev_kind[d]], st->dur[i]);
            a->kind_n[a->dev_kind[d]]++;
        }
    }
    free(counted);
    return 0;
}

/* ---- the coverage line ---- */

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* "31.0%", or "0%" for nothing at all (a tiny share still shows 0.0%). */
static void fmt_pct(char *b, size_t cap, int64_t part, int64_t whole)
{
    if (part == 0)
        snprintf(b, cap, "0%%");
    else
        snprintf(b, cap, "%.1f%%", pct(part, whole));
}

struct sbuf {
    char *p;
    size_t cap, len;
};

static void put(struct sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct sbuf *s, const char *fmt, ...)
{
    if (s->len + 1 >= s->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(s->p + s->len, s->cap - s->len, fmt, ap);
    va_end(ap);
    if (w > 0)
        s->len = s->len + (size_t)w < s->cap ? s->len + (size_t)w : s->cap - 1;
}

static const char *plural(int64_t n)
{
    return n == 1 ? "" : "s";
}

int tp_store_coverage(const tp_store *st, char *buf, size_t cap)
{
    if (cap)
        buf[0] = 0;
    const struct tp_attribution *a = &st->attr;
    /* nvprof/nsys/dict inputs attribute by NVTX markers (prof.py), Ascend by
     * its own tables: the operator coverage line is about kineto traces */
    if (!st->linked || st->format != TP_SRC_KINETO_JSON || a->kernels == 0 || !a->dev_op)
        return 0;
    struct sbuf s = {buf, cap, 0};
    char p1[32], p2[32], p3[32];
    double share = tp_attr_share(a);
    fmt_pct(p2, sizeof p2, a->kind_ns[TP_LAUNCH_DRIVER], a->kernel_ns);
    fmt_pct(p3, sizeof p3, a->kind_ns[TP_LAUNCH_GRAPH], a->kernel_ns);
    put(&s, "%s: %.1f%% of kernel time attributed to operators (driver launches %s, graph replays %s", st->path, share,
        p2, p3);
    if (a->cause_n[TP_ATTR_OUTSIDE_OPERATOR]) {
        fmt_pct(p1, sizeof p1, a->cause_ns[TP_ATTR_OUTSIDE_OPERATOR], a->kernel_ns);
        put(&s, ", outside any operator %s: %lld kernel%s of calls such as %s", p1,
            (long long)a->cause_n[TP_ATTR_OUTSIDE_OPERATOR], plural(a->cause_n[TP_ATTR_OUTSIDE_OPERATOR]),
            /* (a view on a lazily read store may not have read the names) */
            tp_store_need(st, TP_NEED_NAME, NULL) == TP_OK ? tp_store_str(st, st->name[a->outside_example]) : "?");
    }
    static const char *const why[TP_ATTR_CAUSES] = {
        [TP_ATTR_NO_CORRELATION] = "without a correlation id",
        [TP_ATTR_BEFORE_PROFILER] = "launched before the profiler started",
        [TP_ATTR_NO_LAUNCH_RECORD] = "whose launch call the profiler lost",
    };
    int64_t none_ns = 0;
    for (int c = TP_ATTR_NO_CORRELATION; c < TP_ATTR_CAUSES; c++)
        tp_sat_add(&none_ns, a->cause_ns[c]);
    fmt_pct(p1, sizeof p1, none_ns, a->kernel_ns);
    put(&s, ", no launch record %s", p1);
    for (int c = TP_ATTR_NO_CORRELATION, first = 1; c < TP_ATTR_CAUSES; c++) {
        if (!a->cause_n[c])
            continue;
        put(&s, "%s %lld kernel%s %s", first ? ":" : ",", (long long)a->cause_n[c], plural(a->cause_n[c]), why[c]);
        first = 0;
    }
    put(&s, ")");
    if (a->captured_n) {
        put(&s, "; %lld of the %lld kernel%s of %lld graph launch%s are charged to the operators captured in the "
                "graph (%lld replay%s matched to the capture trace)",
            (long long)a->captured_n, (long long)a->kind_n[TP_LAUNCH_GRAPH], plural(a->kind_n[TP_LAUNCH_GRAPH]),
            (long long)a->graph_launches, a->graph_launches == 1 ? "" : "es", (long long)a->replays_matched,
            plural(a->replays_matched));
        if (a->captured_n < a->kind_n[TP_LAUNCH_GRAPH])
            put(&s, ", the rest to the operator or call that launched the graph (no capture of the same size)");
    } else if (a->kind_n[TP_LAUNCH_GRAPH]) {
        put(&s, "; the %lld kernel%s of %lld graph launch%s are charged to the operator that launched the graph",
            (long long)a->kind_n[TP_LAUNCH_GRAPH], plural(a->kind_n[TP_LAUNCH_GRAPH]), (long long)a->graph_launches,
            a->graph_launches == 1 ? "" : "es");
        if (a->cause_n[TP_ATTR_LAUNCH_CALL])
            put(&s, " (%lld to the call %s itself: no operator encloses it)", (long long)a->cause_n[TP_ATTR_LAUNCH_CALL],
                tp_store_need(st, TP_NEED_NAME, NULL) == TP_OK ? tp_store_str(st, st->name[a->call_example]) : "?");
        if (a->captures_read)
            put(&s, ", not to the operators captured in the graph (none of the %lld capture%s read has a replay's "
                    "size)", (long long)a->captures_read, plural(a->captures_read));
        else
            put(&s, ", not to the operators captured in the graph (no capture trace: --capture)");
    }
    if (share < 95.0) {
        /* what the user can do, for the largest cause */
        int worst = TP_ATTR_OUTSIDE_OPERATOR;
        for (int c = TP_ATTR_OUTSIDE_OPERATOR; c < TP_ATTR_CAUSES; c++)
            if (a->cause_ns[c] > a->cause_ns[worst])
                worst = c;
        const char *hint =
            a->host_ops == 0 ? "the trace holds no CPU operator: profile with ProfilerActivity.CPU as well"
            : worst == TP_ATTR_OUTSIDE_OPERATOR
                ? "kernels are launched outside torch operators (a custom extension or a Triton launcher called "
                  "directly): register the launching code as a torch custom op (torch.library) so the profiler "
                  "records an operator around it"
            : worst == TP_ATTR_BEFORE_PROFILER
                ? "the GPU was still running work queued before the profiler started: profile a longer window "
                  "(warmup steps in the schedule) or synchronize before profiling"
            : worst == TP_ATTR_NO_LAUNCH_RECORD
                ? "the profiler dropped launch records: profile fewer steps or enlarge the activity buffer"
                : "the trace has no correlation ids: record it with torch.profiler and both CPU and CUDA activities";
        put(&s, "; to attribute more: %s", hint);
    }
    return 1;
}

/* ---- `tprof info` rows ---- */

int tp_attr_info_line(const tp_store *st, size_t i, char *key, size_t kcap, char *val, size_t vcap)
{
    const struct tp_attribution *a = &st->attr;
    if (!st->linked || st->format != TP_SRC_KINETO_JSON || a->kernels == 0 || !a->dev_op)
        return 0;
    int64_t attributed = a->cause_ns[TP_ATTR_OPERATOR];
    tp_sat_add(&attributed, a->cause_ns[TP_ATTR_LAUNCH_CALL]);
    struct row {
        const char *key, *what;
        int64_t ns, n;
    } rows[] = {
/* a line of kernels of one cause, or of one kind of launch */
#define CAUSE(key, what, c) {key, what, a->cause_ns[c], a->cause_n[c]}
#define KIND(key, what, k) {key, what, a->kind_ns[k], a->kind_n[k]}
        {"", "kernels", attributed, a->cause_n[TP_ATTR_OPERATOR] + a->cause_n[TP_ATTR_LAUNCH_CALL]},
        CAUSE(".operator", "kernels launched inside a CPU operator", TP_ATTR_OPERATOR),
        CAUSE(".launch_call", "kernels of graph launches outside any operator, charged to the launch call",
              TP_ATTR_LAUNCH_CALL),
        KIND(".runtime_launches", "kernels of runtime launch calls", TP_LAUNCH_RUNTIME),
        KIND(".driver_launches", "kernels of driver launch calls (cuLaunchKernel[Ex])", TP_LAUNCH_DRIVER),
        KIND(".graph_replays", "kernels of graph replays", TP_LAUNCH_GRAPH),
        {".graph_replays.captured", "kernels of graph replays charged to captured operators (--capture)",
         a->captured_ns, a->captured_n},
        CAUSE(".none.outside_operator", "kernels of launch calls outside any operator", TP_ATTR_OUTSIDE_OPERATOR),
        CAUSE(".none.no_correlation", "kernels without a correlation id", TP_ATTR_NO_CORRELATION),
        CAUSE(".none.before_profiler", "kernels launched before the profiler started", TP_ATTR_BEFORE_PROFILER),
        CAUSE(".none.no_launch_record", "kernels whose launch call the profiler lost", TP_ATTR_NO_LAUNCH_RECORD),
#undef CAUSE
#undef KIND
    };
    if (i >= sizeof rows / sizeof *rows)
        return 0;
    const struct row *r = &rows[i];
    snprintf(key, kcap, "kernel_time.attributed%s", r->key);
    char p[32];
    if (i == 0)
        snprintf(p, sizeof p, "%.1f%%", tp_attr_share(a));
    else
        fmt_pct(p, sizeof p, r->ns, a->kernel_ns);
    snprintf(val, vcap, "%s (%lld of %lld %s, %lld.%03lld of %lld.%03lld us)", p, (long long)r->n,
             (long long)a->kernels, r->what, (long long)(r->ns / 1000), (long long)(r->ns % 1000),
             (long long)(a->kernel_ns / 1000), (long long)(a->kernel_ns % 1000));
    if (i == 5 && a->graph_launches) {
        size_t len = strlen(val);
        snprintf(val + len, vcap - len, ", %lld graph launch%s", (long long)a->graph_launches,
                 a->graph_launches == 1 ? "" : "es");
    }
    return 1;
}
